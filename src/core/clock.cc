#include "core/clock.h"

namespace diagd {

const SystemClock& SystemClock::Instance() {
  static const SystemClock clock;
  return clock;
}

namespace {

// `value` (0 or more) in exactly `width` digits, zero-padded, at `out`.
char* PutDigits(char* out, long long value, int width) {
  for (int i = width - 1; i >= 0; --i, value /= 10) out[i] = static_cast<char>('0' + value % 10);
  return out + width;
}

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

// By hand, not gmtime_r and snprintf: the run store formats one per trace
// row, and each took the time zone lock and parsed a format string.
std::string FormatRfc3339Millis(WallTime time) {
  using namespace std::chrono;
  const auto at = time_point_cast<milliseconds>(time);
  const auto day = floor<days>(at);
  const year_month_day date(day);
  const hh_mm_ss clock(at - day);
  // A WallTime spans 1677 to 2262 (nanoseconds in 64 bits): four digits.
  static_assert(duration_cast<years>(WallTime::duration::max()).count() < 1970);
  char buf[24];
  char* out = PutDigits(buf, static_cast<int>(date.year()), 4);
  *out++ = '-';
  out = PutDigits(out, static_cast<unsigned>(date.month()), 2);
  *out++ = '-';
  out = PutDigits(out, static_cast<unsigned>(date.day()), 2);
  *out++ = 'T';
  out = PutDigits(out, clock.hours().count(), 2);
  *out++ = ':';
  out = PutDigits(out, clock.minutes().count(), 2);
  *out++ = ':';
  out = PutDigits(out, clock.seconds().count(), 2);
  *out++ = '.';
  out = PutDigits(out, clock.subseconds().count(), 3);
  *out++ = 'Z';
  return std::string(buf, out);
}

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
