// Canonical tool results (docs/specs/tool-contracts.md): the one truth about what a
// tool returned, from which the model observation, the harness control view,
// evidence checks and the user's process are all derived. Every list and
// string here is already bounded; `truncated` says whether anything was cut.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tools/tool_request.h"
#include "tools/tool_types.h"

namespace diagd::tools {

struct DocumentEvidence {
  std::string document_id;
  std::string source;
  std::string title;
  std::string breadcrumb;
  std::string excerpt;  // an exact substring of the document
};

struct DocumentsResult {
  EvidenceStatus evidence_status = EvidenceStatus::kNoEvidence;
  std::string tool_call_id;
  std::string query;
  std::vector<DocumentEvidence> evidence;
  std::size_t returned_count = 0;
  std::optional<RelevanceLevel> relevance_level;
  bool truncated = false;
};

struct LogEvent {
  std::string timestamp;  // RFC 3339 UTC with milliseconds
  std::optional<std::string> level;
  std::optional<std::string> service;
  std::string message;
};

struct LogsResult {
  EvidenceStatus evidence_status = EvidenceStatus::kNoEvidence;
  std::string tool_call_id;
  std::string topic;
  std::string query;
  int lookback_minutes = 0;
  // In time order, oldest first; when more matched than were kept, the
  // earliest matches and the newest (EarliestShare).
  std::vector<LogEvent> events;
  std::size_t returned_count = 0;
  bool truncated = false;
};

struct MysqlResult {
  EvidenceStatus evidence_status = EvidenceStatus::kNoEvidence;
  std::string tool_call_id;
  std::string datasource;
  std::string sql;
  std::vector<SqlValue> params;
  std::vector<std::string> columns;
  // Cells: numbers as numbers, text as strings, NULL as monostate, binary as a
  // short placeholder string such as "<binary 2048 bytes>".
  std::vector<std::vector<SqlValue>> rows;
  std::size_t returned_count = 0;
  bool truncated = false;
};

using ToolResult = std::variant<DocumentsResult, LogsResult, MysqlResult>;

ToolName ToolOf(const ToolResult& result);
EvidenceStatus EvidenceStatusOf(const ToolResult& result);
const std::string& ToolCallIdOf(const ToolResult& result);
std::size_t ReturnedCountOf(const ToolResult& result);
bool TruncatedOf(const ToolResult& result);

// Bounds applied to every result that leaves a tool, whatever the backend did.
struct ResultLimits {
  std::size_t max_evidence = 5;
  std::size_t max_excerpt_chars = 600;
  std::size_t max_events = 30;
  std::size_t max_message_chars = 2000;
  std::size_t max_rows = 30;
  std::size_t max_cell_chars = 1000;
};

// Of `max_events` events kept from more matches, how many are the earliest
// (the rest are the newest): a fifth, rounded up, so the onset of a failure
// is seen whatever the volume after it (docs/log-query.md). Every cut of an
// event list (backend, canonical bound, observation bound) keeps these ends.
std::size_t EarliestShare(std::size_t max_events);

// `events` cut to `max_events` by dropping from the middle: the first
// EarliestShare(max_events) and the newest others. False when nothing was cut.
bool KeepBothEnds(std::vector<LogEvent>& events, std::size_t max_events);

// Makes an adapter's raw result canonical: drops unusable items (an evidence
// item without excerpt, an event without message), cuts lists and strings to
// `limits` (setting `truncated`; events keep both ends), sets `returned_count`, and derives
// `evidence_status` from what is left: EVIDENCE_FOUND only when an item
// remains. An upstream relevance never upgrades an empty result.
void Canonicalize(ToolResult& result, const ResultLimits& limits);

// Writes the request's own fields (query, topic, lookback, datasource, sql,
// params) and the tool call id onto `result`, so that what a result says was
// asked is what was asked, whatever the backend echoed. False when `result`
// is not of the request's tool (a backend bug).
bool BindToRequest(ToolResult& result, const ToolRequest& request,
                   const std::string& tool_call_id);

// An ERROR result of the request's tool, echoing its scope fields.
ToolResult ErrorResultFor(const ToolRequest& request, const std::string& tool_call_id);

}  // namespace diagd::tools
