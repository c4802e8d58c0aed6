// Timestamps of log lines: the formats a plain `.log` line may start with
// (docs/log-query.md lists them with an example each) and ISO 8601 for the
// `timestamp` field of `.jsonl` records. Every result is UTC milliseconds
// since the Unix epoch; a timestamp without a zone is read as UTC, digits
// below the millisecond are dropped (not rounded).
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace diagd::tools::logs {

// Milliseconds since 1970-01-01T00:00:00Z.
using UnixMillis = std::int64_t;

struct TimestampMatch {
  UnixMillis time_ms = 0;
  std::size_t length = 0;  // bytes of the line the timestamp spans
};

// The timestamp at the very start of `line`, in any supported format, or
// nothing. A match must end at the end of the line or before a character
// that cannot continue it (no digit or letter), so `10:05:123` is no match.
// `reference_ms` gives the year to formats that lack one (syslog
// `Nov 29 10:05:12`): the latest year that puts the time no more than one day
// after the reference.
std::optional<TimestampMatch> MatchLeadingTimestamp(std::string_view line, UnixMillis reference_ms);

// `text` as a whole as an ISO 8601 / RFC 3339 timestamp:
// `YYYY-MM-DD[T| ]HH:MM:SS[(.|,)fraction][Z|±HH:MM|±HHMM|±HH]`.
std::optional<UnixMillis> ParseIso8601(std::string_view text);

}  // namespace diagd::tools::logs
