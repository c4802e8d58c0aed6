// The head of a plain-text log line: where an event starts, and what its
// level, service and message are. docs/log-query.md has the rules with the
// line shapes they come from (diagd's own layout, log4j, Apache, HDFS,
// OpenStack, HealthApp, Zookeeper...).
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "tools/logs/log_timestamp.h"

namespace diagd::tools::logs {

// The normalized name of a level word: TRACE, DEBUG, INFO, WARN (for WARN
// and WARNING), ERROR, FATAL, CRITICAL or SEVERE, whatever the case of
// `word`; empty when `word` is none of them. Views static storage.
std::string_view NormalizeLevelWord(std::string_view word);

// A level as written by a structured record: a level word normalized as
// above, any other text in ASCII upper case (so `notice` is `NOTICE`).
// Empty stays empty.
std::string NormalizeLevelText(std::string_view text);

struct LineHead {
  UnixMillis time_ms = 0;
  std::string_view level;      // normalized (static storage); empty when none
  std::string_view service;    // a view into the line; empty when none
  std::size_t message_offset;  // the message is line.substr(message_offset)
};

// The head of `line` (one line, without its line ending) when the line
// starts an event, that is, starts with a timestamp (optionally after one
// source-file token such as OpenStack's `nova-api.log.1.2017-05-16_13:53:08`);
// nothing for a continuation line. `reference_ms` as for
// MatchLeadingTimestamp.
std::optional<LineHead> ParseLineHead(std::string_view line, UnixMillis reference_ms);

}  // namespace diagd::tools::logs
