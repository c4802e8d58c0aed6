#include "core/clock.h"

#include <cstdio>
#include <ctime>

namespace diagd {

const SystemClock& SystemClock::Instance() {
  static const SystemClock clock;
  return clock;
}

std::string FormatRfc3339Millis(WallTime time) {
  using namespace std::chrono;
  auto millis = duration_cast<milliseconds>(time.time_since_epoch()).count();
  auto seconds = millis / 1000;
  auto fraction = millis % 1000;
  if (fraction < 0) {
    fraction += 1000;
    seconds -= 1;
  }
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(fraction));
  return buf;
}

namespace {

bool ReadDigits(std::string_view s, std::size_t& i, int count, int& out) {
  if (i + static_cast<std::size_t>(count) > s.size()) return false;
  out = 0;
  for (int k = 0; k < count; ++k, ++i) {
    char c = s[i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  return true;
}

bool Expect(std::string_view s, std::size_t& i, char c) {
  if (i >= s.size() || s[i] != c) return false;
  ++i;
  return true;
}

}  // namespace

std::optional<WallTime> ParseRfc3339(std::string_view s) {
  using namespace std::chrono;
  std::size_t i = 0;
  int year, month, day, hour, minute, second;
  if (!ReadDigits(s, i, 4, year) || !Expect(s, i, '-') || !ReadDigits(s, i, 2, month) ||
      !Expect(s, i, '-') || !ReadDigits(s, i, 2, day)) {
    return std::nullopt;
  }
  if (i >= s.size() || (s[i] != 'T' && s[i] != 't' && s[i] != ' ')) return std::nullopt;
  ++i;
  if (!ReadDigits(s, i, 2, hour) || !Expect(s, i, ':') || !ReadDigits(s, i, 2, minute) ||
      !Expect(s, i, ':') || !ReadDigits(s, i, 2, second)) {
    return std::nullopt;
  }
  std::int64_t nanos = 0;
  if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
    ++i;
    int digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (digits < 9) nanos = nanos * 10 + (s[i] - '0');
      ++digits;
      ++i;
    }
    if (digits == 0) return std::nullopt;
    for (int k = digits; k < 9; ++k) nanos *= 10;
  }
  int offset_minutes = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int sign = s[i] == '-' ? -1 : 1;
    ++i;
    int oh, om;
    if (!ReadDigits(s, i, 2, oh) || !Expect(s, i, ':') || !ReadDigits(s, i, 2, om)) {
      return std::nullopt;
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  year_month_day ymd{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                     std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok()) return std::nullopt;
  auto time = sys_days(ymd) + hours(hour) + minutes(minute) + seconds(second) +
              nanoseconds(nanos) - minutes(offset_minutes);
  return time_point_cast<WallTime::duration>(time);
}

}  // namespace diagd
