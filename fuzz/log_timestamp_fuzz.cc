// tools::logs::MatchLeadingTimestamp and ParseIso8601: the start of every
// `.log` line and the `timestamp` of every `.jsonl` record. The first input
// byte picks the reference time (for syslog's year-less stamps), the rest is
// the line.
//
// Checks: a match spans 1..size bytes, ends at the end of the line, before a
// byte that cannot continue it, or (bracketed) with its `]`, and the matched
// prefix alone reads as the same time. A time ParseIso8601 accepts,
// written back as `YYYY-MM-DDTHH:MM:SS.mmmZ`, reads as the same time.
#include <chrono>
#include <cstdio>

#include "fuzz/fuzz_check.h"
#include "tools/logs/log_timestamp.h"

namespace {

namespace logs = diagd::tools::logs;
using logs::UnixMillis;

// Mid-year, a January morning (December lines fall in the year before) and
// a leap day.
constexpr UnixMillis kReferences[] = {1'795'953'600'000, 1'798'763'400'000, 1'709'164'800'000};

bool CanContinue(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// `ms` as RFC 3339 in UTC; empty outside the years 0000..9999.
std::string Iso(UnixMillis ms) {
  using namespace std::chrono;
  sys_time<milliseconds> time{milliseconds(ms)};
  auto day = floor<days>(time);
  year_month_day ymd(day);
  int y = static_cast<int>(ymd.year());
  if (y < 0 || y > 9999) return {};
  hh_mm_ss clock(time - day);
  char out[32];
  std::snprintf(out, sizeof out, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", y,
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(clock.hours().count()), static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()),
                static_cast<int>(clock.subseconds().count()));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  UnixMillis reference = kReferences[data[0] % std::size(kReferences)];
  std::string_view line = diagd::fuzz::Bytes(data + 1, size - 1);

  if (auto match = logs::MatchLeadingTimestamp(line, reference)) {
    FUZZ_CHECK(match->length >= 1 && match->length <= line.size());
    if (line[0] == '[') {
      FUZZ_CHECK(line[match->length - 1] == ']');  // the bracket ends it: `[...]x` is a match
    } else {
      FUZZ_CHECK(match->length == line.size() || !CanContinue(line[match->length]));
    }
    auto alone = logs::MatchLeadingTimestamp(line.substr(0, match->length), reference);
    FUZZ_CHECK(alone.has_value() && alone->time_ms == match->time_ms &&
               alone->length == match->length);
  }

  if (auto ms = logs::ParseIso8601(line)) {
    auto leading = logs::MatchLeadingTimestamp(line, reference);
    FUZZ_CHECK(leading.has_value() && leading->time_ms == *ms && leading->length == line.size());
    if (std::string iso = Iso(*ms); !iso.empty()) {
      auto again = logs::ParseIso8601(iso);
      FUZZ_CHECK(again.has_value() && *again == *ms);
    }
  }
  return 0;
}
