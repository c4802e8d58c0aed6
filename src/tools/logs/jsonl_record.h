// One line of a `.jsonl` topic: a JSON object with `timestamp` (ISO 8601,
// UTC when it has no zone) and optional `level`, `service` and `message`
// (`msg` when `message` is absent). Other keys are ignored.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tools/logs/log_timestamp.h"

namespace diagd::tools::logs {

struct JsonRecord {
  UnixMillis time_ms = 0;
  std::string level;    // NormalizeLevelText of a string; pino/bunyan numbers
                        // 10..60 as TRACE..FATAL; empty when absent or other
  std::string service;  // empty when absent, empty or not a string
  std::string message;  // empty when absent or not a string; filled only when asked
};

// The record on `line`, or nothing when the line is not a JSON object or has
// no valid `timestamp` (a broken line). `with_message` false skips copying
// the message (the index does not keep it).
std::optional<JsonRecord> ParseJsonRecord(std::string_view line, bool with_message);

}  // namespace diagd::tools::logs
