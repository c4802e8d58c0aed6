// query_logs' request, canonical result and rules (docs/specs/tool-contracts.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tools/tool_types.h"

namespace diagd::tools {

namespace logs {
inline constexpr ToolName kQueryLogs{"query_logs"};

struct LogsRules {
  std::vector<std::string> topics;  // the known topics; empty when not known
  int default_lookback_minutes = 60;
  int max_lookback_minutes = 1440;
  bool operator==(const LogsRules&) const = default;
};
// Its part of CatalogOptions (catalog_options.h).
struct LogsCatalog {
  LogsRules logs;
  bool operator==(const LogsCatalog&) const = default;
};
// Its bounds on a result, as a part of ResultLimits (tool_face.h).
struct LogsLimits {
  std::size_t max_events = 30;
  std::size_t max_message_chars = 2000;
  bool operator==(const LogsLimits&) const = default;
};
}  // namespace logs

struct LogsRequest {
  std::string topic;
  std::string query;         // the log query language (docs/log-query.md); may be empty
  int lookback_minutes = 0;  // the actual lookback: defaulted and clamped to the maximum
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

// Of `max_events` events kept from more matches, how many are the earliest
// (the rest are the newest): a fifth, rounded up, so the onset of a failure
// is seen whatever the volume after it (docs/log-query.md). Every cut of an
// event list (backend, canonical bound, observation bound) keeps these ends.
std::size_t EarliestShare(std::size_t max_events);

// `events` cut to `max_events` by dropping from the middle: the first
// EarliestShare(max_events) and the newest others. False when nothing was cut.
bool KeepBothEnds(std::vector<LogEvent>& events, std::size_t max_events);

}  // namespace diagd::tools
