// The diagnosis conversation read back into plain facts. The offline model
// keeps nothing between calls: every call rebuilds, from the request's
// messages alone, what the question was, which topics and datasources the
// tools offer, which tool calls were made with which input, and what each
// observation said (results, errors, protocol answers, stop instructions).
//
// Thread safety: plain values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/chat_model.h"

namespace diagd::model::offline {

enum class Lang { kZh, kEn };

enum class ToolKind { kDocuments, kLogs, kMysql, kMetrics, kOther };

// How the harness answered one tool call.
enum class Outcome {
  kEvidence,       // a result with evidence_status EVIDENCE_FOUND
  kNoEvidence,     // NO_EVIDENCE
  kError,          // evidence_status ERROR (TOOL_TIMEOUT, QUERY_FAILED...)
  kDuplicate,      // DUPLICATE_SCOPE
  kInvalidInput,   // INVALID_TOOL_INPUT
  kViolation,      // INVALID_PROGRESS_PROTOCOL
  kUnknownTool,    // UNKNOWN_TOOL
  kStop,           // a bare stop_required answer: the tool did not run
  kNoObservation,  // no tool message answered it (the loop ended)
};

struct DocItem {
  std::string document_id, source, title, breadcrumb, excerpt;
};

struct EventItem {
  std::string timestamp, level, service, message;
};

// One series of a metrics result: its labels as sent (`__name__` among
// them), its summary line (with the label values, the only citable text of
// a metrics observation) and its points, read but never quoted.
struct SeriesItem {
  std::vector<std::pair<std::string, std::string>> labels;
  std::string summary;
  std::vector<std::pair<std::string, double>> points;  // RFC 3339 time, value

  std::string Label(std::string_view key) const;
};

// A cell as a quote must match it: text as is; a number, boolean or null
// in its JSON form.
struct Cell {
  std::string text;
  bool is_text = false;
};

struct CallInput {
  std::string query;  // documents, logs, metrics (PromQL)
  // logs: where the events come from, a topic or a service read inside a
  // topic that several services share (then `shared_topic` is the topic,
  // and the query sent was "service:<topic> <query>").
  std::string topic;
  std::string shared_topic;
  std::optional<int> lookback;
  std::string datasource, sql;      // mysql
  std::vector<std::string> params;  // mysql, text parameters only
};

struct CallRecord {
  std::string id;
  ToolKind tool = ToolKind::kOther;
  CallInput input;
  bool graded = false;  // we sent a previous_observation with it
  Outcome outcome = Outcome::kNoObservation;
  bool stop_required = false;
  std::string error_code, message, violation_type, field, reason;
  std::string expected_previous_id;
  int lookback_used = 0;
  std::vector<DocItem> docs;
  std::vector<EventItem> events;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<SeriesItem> series;
};

// The topic a service named in the question was read in, where it shares
// one with other services (`service:NAME` found its events); empty when it
// was not found there.
std::string SharedTopicOf(const struct InvestigationState& state, const std::string& service);

struct InvestigationState {
  Lang lang = Lang::kZh;
  std::string question;                  // the last user message
  std::string context;                   // earlier user turns, then the question
  std::vector<std::string> topics;       // the query_logs topic enum
  std::vector<std::string> datasources;  // the query_mysql datasource enum
  // The datasources the tool description says speak SQLite ("orders (SQLite)").
  std::vector<std::string> sqlite_datasources;
  bool offers_documents = false, offers_logs = false, offers_mysql = false;
  bool offers_metrics = false;
  std::vector<CallRecord> calls;
  // The EVIDENCE_FOUND call that still awaits our grade.
  std::optional<std::string> pending;
  bool stop_required = false;
};

InvestigationState RebuildState(const ChatRequest& request);

// The tool's wire name.
const char* ToolWireName(ToolKind tool);

// The language of a component's system message: English when it holds no
// CJK text.
Lang LanguageOf(const ChatRequest& request);

}  // namespace diagd::model::offline
