#include "tools/logs/log_timestamp.h"

#include <array>
#include <chrono>

namespace diagd::tools::logs {
namespace {

constexpr UnixMillis kMillisPerDay = 86'400'000;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// A read position in the text, with the small steps every format is made of.
// Each step either advances and succeeds, or fails; a failed format is
// abandoned as a whole, so a failed step need not restore the position.
struct Cursor {
  std::string_view s;
  std::size_t i = 0;

  bool AtEnd() const { return i >= s.size(); }
  char Peek(std::size_t ahead = 0) const { return i + ahead < s.size() ? s[i + ahead] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c || AtEnd()) return false;
    ++i;
    return true;
  }
  // Between `min` and `max` digits (as many as there are, up to `max`).
  bool Digits(int min, int max, int& out) {
    out = 0;
    int n = 0;
    while (n < max && IsDigit(Peek())) {
      out = out * 10 + (s[i] - '0');
      ++i;
      ++n;
    }
    return n >= min;
  }
  bool Digits(int count, int& out) { return Digits(count, count, out); }
  // A three-letter English month abbreviation, any case: 1..12.
  bool Month(int& out) {
    static constexpr std::array<std::string_view, 12> kMonths = {
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
    if (i + 3 > s.size()) return false;
    char name[3] = {Lower(s[i]), Lower(s[i + 1]), Lower(s[i + 2])};
    for (std::size_t m = 0; m < kMonths.size(); ++m) {
      if (std::string_view(name, 3) == kMonths[m]) {
        out = static_cast<int>(m) + 1;
        i += 3;
        return true;
      }
    }
    return false;
  }
  // A day of month written `04`, ` 4` (ctime and syslog pad with a space) or `4`.
  bool PaddedDay(int& out) {
    if (Peek() == ' ') ++i;
    return Digits(1, 2, out);
  }
  // `[.,]` and 1..9 digits; the first three are the milliseconds.
  bool OptionalFraction(int& millis) {
    millis = 0;
    if (Peek() != '.' && Peek() != ',') return true;
    if (!IsDigit(Peek(1))) return true;  // "12:00:00." ends a sentence, not a fraction
    ++i;
    int digits = 0;
    while (IsDigit(Peek())) {
      if (digits < 3) millis = millis * 10 + (s[i] - '0');
      ++digits;
      ++i;
    }
    for (int k = digits; k < 3; ++k) millis *= 10;
    return digits <= 9;
  }
  bool Time(int& hour, int& minute, int& second) {
    return Digits(2, hour) && Eat(':') && Digits(2, minute) && Eat(':') && Digits(2, second);
  }
  // The end of a timestamp: the end of the text, or a character that cannot
  // continue it.
  bool AtBoundary() const { return AtEnd() || (!IsDigit(s[i]) && !IsAlpha(s[i])); }
};

struct Civil {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0;
  int offset_minutes = 0;  // east of UTC
};

std::optional<UnixMillis> ToMillis(const Civil& c) {
  using namespace std::chrono;
  if (c.month < 1 || c.month > 12 || c.day < 1 || c.hour > 23 || c.minute > 59 || c.second > 60) {
    return std::nullopt;
  }
  year_month_day ymd{year(c.year), month(static_cast<unsigned>(c.month)),
                     day(static_cast<unsigned>(c.day))};
  if (!ymd.ok()) return std::nullopt;
  auto days = sys_days(ymd).time_since_epoch().count();
  return static_cast<UnixMillis>(days) * kMillisPerDay +
         ((c.hour * 60 + c.minute - c.offset_minutes) * 60 + c.second) * UnixMillis{1000} +
         c.millis;
}

std::optional<TimestampMatch> Finish(const Cursor& cur, const Civil& c) {
  if (!cur.AtBoundary()) return std::nullopt;
  auto ms = ToMillis(c);
  if (!ms) return std::nullopt;
  return TimestampMatch{*ms, cur.i};
}

// `Z`, `±HH:MM`, `±HHMM` or `±HH` right after the time; also ` ±HHMM` and
// ` ±HH:MM` after a space (four digits needed there, so `10:00:00 - INFO`
// is no zone).
bool OptionalZone(Cursor& cur, int& offset_minutes) {
  offset_minutes = 0;
  if (cur.Eat('Z') || cur.Eat('z')) return true;
  Cursor probe = cur;
  bool spaced = probe.Eat(' ');
  char sign = probe.Peek();
  if (sign != '+' && sign != '-') return true;
  ++probe.i;
  int hh = 0, mm = 0;
  if (!probe.Digits(2, hh)) return true;
  if (probe.Eat(':')) {
    if (!probe.Digits(2, mm)) return true;
  } else if (IsDigit(probe.Peek())) {
    if (!probe.Digits(2, mm)) return true;
  } else if (spaced) {
    return true;
  }
  if (hh > 23 || mm > 59) return false;
  offset_minutes = (sign == '-' ? -1 : 1) * (hh * 60 + mm);
  cur = probe;
  return true;
}

// ISO 8601 / RFC 3339 and its log variants: `2026-11-29T10:05:12.345Z`,
// `2026-11-29 10:05:12,345`, `2017-05-16 00:00:00.008`, and nginx's
// `2026/11/29 10:05:12` (`date_sep` '/').
std::optional<TimestampMatch> IsoLike(std::string_view s, char date_sep) {
  Cursor cur{s};
  Civil c;
  if (!cur.Digits(4, c.year) || !cur.Eat(date_sep) || !cur.Digits(2, c.month) ||
      !cur.Eat(date_sep) || !cur.Digits(2, c.day)) {
    return std::nullopt;
  }
  if (!(cur.Eat('T') || cur.Eat('t') || cur.Eat(' '))) return std::nullopt;
  if (!cur.Time(c.hour, c.minute, c.second) || !cur.OptionalFraction(c.millis)) {
    return std::nullopt;
  }
  if (date_sep == '-' && !OptionalZone(cur, c.offset_minutes)) return std::nullopt;
  return Finish(cur, c);
}

// HealthApp: `20171223-22:15:29:606`, and `20171224-1:1:0:93`: hour, minute,
// second and milliseconds are unpadded integers (93 is 93 ms: the file's
// order shows it, :35:96 comes before :35:104).
std::optional<TimestampMatch> CompactDashColon(std::string_view s) {
  Cursor cur{s};
  Civil c;
  if (!cur.Digits(4, c.year) || !cur.Digits(2, c.month) || !cur.Digits(2, c.day) || !cur.Eat('-') ||
      !cur.Digits(1, 2, c.hour) || !cur.Eat(':') || !cur.Digits(1, 2, c.minute) || !cur.Eat(':') ||
      !cur.Digits(1, 2, c.second) || !cur.Eat(':') || !cur.Digits(1, 3, c.millis)) {
    return std::nullopt;
  }
  return Finish(cur, c);
}

// HDFS: `081109 203615` (yyMMdd HHmmss). Two-digit years are 2000-2099.
std::optional<TimestampMatch> CompactSixSix(std::string_view s) {
  Cursor cur{s};
  Civil c;
  if (!cur.Digits(2, c.year) || !cur.Digits(2, c.month) || !cur.Digits(2, c.day) || !cur.Eat(' ') ||
      !cur.Digits(2, c.hour) || !cur.Digits(2, c.minute) || !cur.Digits(2, c.second)) {
    return std::nullopt;
  }
  c.year += 2000;
  return Finish(cur, c);
}

// Spark / log4j `%d{yy/MM/dd HH:mm:ss}`: `17/06/09 20:10:40`.
std::optional<TimestampMatch> ShortYearSlashes(std::string_view s) {
  Cursor cur{s};
  Civil c;
  if (!cur.Digits(2, c.year) || !cur.Eat('/') || !cur.Digits(2, c.month) || !cur.Eat('/') ||
      !cur.Digits(2, c.day) || !cur.Eat(' ') || !cur.Time(c.hour, c.minute, c.second) ||
      !cur.OptionalFraction(c.millis)) {
    return std::nullopt;
  }
  c.year += 2000;
  return Finish(cur, c);
}

// Tomcat / Java: `29-Nov-2026 10:05:12.345`.
std::optional<TimestampMatch> DayMonthNameYear(std::string_view s) {
  Cursor cur{s};
  Civil c;
  if (!cur.Digits(2, c.day) || !cur.Eat('-') || !cur.Month(c.month) || !cur.Eat('-') ||
      !cur.Digits(4, c.year) || !cur.Eat(' ') || !cur.Time(c.hour, c.minute, c.second) ||
      !cur.OptionalFraction(c.millis)) {
    return std::nullopt;
  }
  return Finish(cur, c);
}

// ctime, as Apache's error log writes it inside brackets:
// `Sun Dec 04 04:47:44 2005` (and `Sun Dec 04 04:47:44.123456 2005`).
std::optional<TimestampMatch> Ctime(std::string_view s) {
  Cursor cur{s};
  Civil c;
  if (!IsAlpha(cur.Peek()) || !IsAlpha(cur.Peek(1)) || !IsAlpha(cur.Peek(2))) return std::nullopt;
  cur.i += 3;
  if (!cur.Eat(' ') || !cur.Month(c.month) || !cur.Eat(' ') || !cur.PaddedDay(c.day) ||
      !cur.Eat(' ') || !cur.Time(c.hour, c.minute, c.second) || !cur.OptionalFraction(c.millis) ||
      !cur.Eat(' ') || !cur.Digits(4, c.year)) {
    return std::nullopt;
  }
  return Finish(cur, c);
}

// syslog (RFC 3164): `Nov 29 10:05:12`, no year: the latest year that puts
// the time at most one day after `reference_ms` (so December lines read in
// January fall in the year before).
std::optional<TimestampMatch> Syslog(std::string_view s, UnixMillis reference_ms) {
  Cursor cur{s};
  Civil c;
  if (!cur.Month(c.month) || !cur.Eat(' ') || !cur.PaddedDay(c.day) || !cur.Eat(' ') ||
      !cur.Time(c.hour, c.minute, c.second) || !cur.OptionalFraction(c.millis)) {
    return std::nullopt;
  }
  using namespace std::chrono;
  auto reference_day = floor<days>(sys_time<milliseconds>(milliseconds(reference_ms)));
  c.year = static_cast<int>(year_month_day(reference_day).year());
  // Eight years back always meet a Feb 29.
  for (int tries = 0; tries < 8; ++tries, --c.year) {
    auto match = Finish(cur, c);
    if (match && match->time_ms <= reference_ms + kMillisPerDay) return match;
  }
  return std::nullopt;
}

std::optional<TimestampMatch> Unbracketed(std::string_view s, UnixMillis reference_ms) {
  if (s.empty()) return std::nullopt;
  if (IsDigit(s[0])) {
    if (s.size() > 4 && (s[4] == '-' || s[4] == '/')) return IsoLike(s, s[4]);
    if (s.size() > 8 && s[8] == '-') return CompactDashColon(s);
    if (s.size() > 6 && s[6] == ' ') return CompactSixSix(s);
    if (s.size() > 2 && s[2] == '/') return ShortYearSlashes(s);
    if (s.size() > 3 && s[2] == '-' && IsAlpha(s[3])) return DayMonthNameYear(s);
    return std::nullopt;
  }
  if (IsAlpha(s[0])) {
    if (s.size() > 4 && s[3] == ' ' && IsAlpha(s[4])) return Ctime(s);
    return Syslog(s, reference_ms);
  }
  return std::nullopt;
}

}  // namespace

std::optional<TimestampMatch> MatchLeadingTimestamp(std::string_view line,
                                                    UnixMillis reference_ms) {
  if (!line.empty() && line[0] == '[') {
    // `[Sun Dec 04 04:47:44 2005]`, `[2026-11-29 10:05:12,345]`: any format
    // inside brackets; the closing bracket is part of the timestamp.
    auto inner = Unbracketed(line.substr(1), reference_ms);
    if (!inner || 1 + inner->length >= line.size() || line[1 + inner->length] != ']') {
      return std::nullopt;
    }
    return TimestampMatch{inner->time_ms, inner->length + 2};
  }
  return Unbracketed(line, reference_ms);
}

std::optional<UnixMillis> ParseIso8601(std::string_view text) {
  auto match = IsoLike(text, '-');
  if (!match || match->length != text.size()) return std::nullopt;
  return match->time_ms;
}

}  // namespace diagd::tools::logs
