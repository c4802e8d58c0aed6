#include "model/offline/question_scanners.h"

#include <cstddef>
#include <span>

namespace diagd::model::offline {
namespace {

// Each `...At` function below tries its pattern at one start, the way the
// regex's backtracking would, and the `Find...` function takes the first
// start that matches (leftmost-first). A start costs only the spaces and
// digits after it, and those runs hold no other start of the same pattern
// (or at most two, the digits before them): the search stays linear.
//
// Where the regex had a greedy `\d+`, `\d{1,2}` or `\s*` that could give
// characters back, giving them back never helps: what follows it is never a
// digit or a space, so the greedy choice is the only one that can match.

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

enum class Case { kExact, kFold };

bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
bool IsWordChar(char c) { return IsAlnum(c) || c == '_'; }
char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool DigitAt(std::string_view text, std::size_t at) {
  return at < text.size() && IsDigit(text[at]);
}

// \b before text[at]: one side is a word character and the other is not
// (the start and the end of the text count as not).
bool WordBoundary(std::string_view text, std::size_t at) {
  bool left = at > 0 && IsWordChar(text[at - 1]);
  bool right = at < text.size() && IsWordChar(text[at]);
  return left != right;
}

std::size_t SkipSpaces(std::string_view text, std::size_t at) {
  while (at < text.size() && IsSpace(text[at])) ++at;
  return at;
}

// `\d+` (max_digits 0) or `\d{1,max_digits}`, greedy: where the digits end,
// or kNone when text[at] is no digit.
std::size_t SkipDigits(std::string_view text, std::size_t at, std::size_t max_digits = 0) {
  if (!DigitAt(text, at)) return kNone;
  std::size_t end = at + 1;
  while (DigitAt(text, end) && (max_digits == 0 || end - at < max_digits)) ++end;
  return end;
}

bool LiteralAt(std::string_view text, std::size_t at, std::string_view word, Case match) {
  if (at > text.size() || text.size() - at < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    char c = text[at + i];
    if (match == Case::kFold ? AsciiLower(c) != word[i] : c != word[i]) return false;
  }
  return true;
}

// An alternation of literals (lower case when folded): the index of the
// first one written at `at`, tried in order as the regex tries them, or -1.
int AlternativeAt(std::string_view text, std::size_t at, std::span<const std::string_view> words,
                  Case match = Case::kExact) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (LiteralAt(text, at, words[i], match)) return static_cast<int>(i);
  }
  return -1;
}

template <typename Match, typename MatchAt>
std::optional<Match> Leftmost(std::string_view text, MatchAt match_at) {
  for (std::size_t start = 0; start < text.size(); ++start) {
    if (std::optional<Match> found = match_at(text, start)) return found;
  }
  return std::nullopt;
}

constexpr std::string_view kZhLookbackWords[] = {"最近", "过去", "近"};
constexpr std::string_view kZhCounts[] = {"一", "两", "二", "三", "半"};
constexpr std::string_view kZhUnits[] = {"小时", "分钟", "天"};
constexpr TimeUnit kZhUnitValues[] = {TimeUnit::kHour, TimeUnit::kMinute, TimeUnit::kDay};

std::optional<LookbackMatch> ChineseLookbackAt(std::string_view text, std::size_t at) {
  int word = AlternativeAt(text, at, kZhLookbackWords);
  if (word < 0) return std::nullopt;
  LookbackMatch match;
  std::size_t pos = SkipSpaces(text, at + kZhLookbackWords[word].size());
  if (std::size_t end = SkipDigits(text, pos); end != kNone) {
    match.count = text.substr(pos, end - pos);
    pos = end;
  } else if (int count = AlternativeAt(text, pos, kZhCounts); count >= 0) {
    match.count = text.substr(pos, kZhCounts[count].size());
    pos += match.count.size();
  }
  pos = SkipSpaces(text, pos);
  if (LiteralAt(text, pos, "个", Case::kExact)) pos = SkipSpaces(text, pos + 3);
  int unit = AlternativeAt(text, pos, kZhUnits);
  if (unit < 0) return std::nullopt;
  match.unit = kZhUnitValues[unit];
  return match;
}

constexpr std::string_view kEnLookbackWords[] = {"last", "past"};
constexpr std::string_view kEnCounts[] = {"an", "a", "one", "two"};
constexpr std::string_view kEnUnits[] = {"minute", "min", "hour", "hr", "day"};
constexpr TimeUnit kEnUnitValues[] = {TimeUnit::kMinute, TimeUnit::kMinute, TimeUnit::kHour,
                                      TimeUnit::kHour, TimeUnit::kDay};

// \s*(minute|min|hour|hr|day) at `at`.
std::optional<TimeUnit> EnglishUnitAt(std::string_view text, std::size_t at) {
  int unit = AlternativeAt(text, SkipSpaces(text, at), kEnUnits, Case::kFold);
  if (unit < 0) return std::nullopt;
  return kEnUnitValues[unit];
}

std::optional<LookbackMatch> EnglishLookbackAt(std::string_view text, std::size_t at) {
  if (AlternativeAt(text, at, kEnLookbackWords, Case::kFold) < 0) return std::nullopt;
  std::size_t pos = at + 4;  // both words have four letters
  if (pos >= text.size() || !IsSpace(text[pos])) return std::nullopt;
  pos = SkipSpaces(text, pos);
  // The optional count's alternatives, in order, then none: the first that
  // a unit follows. A digit run rules out every other choice.
  if (std::size_t end = SkipDigits(text, pos); end != kNone) {
    std::optional<TimeUnit> unit = EnglishUnitAt(text, end);
    if (!unit) return std::nullopt;
    return LookbackMatch{text.substr(pos, end - pos), *unit};
  }
  for (std::string_view count : kEnCounts) {
    if (!LiteralAt(text, pos, count, Case::kFold)) continue;
    if (std::optional<TimeUnit> unit = EnglishUnitAt(text, pos + count.size())) {
      return LookbackMatch{text.substr(pos, count.size()), *unit};
    }
  }
  std::optional<TimeUnit> unit = EnglishUnitAt(text, pos);
  if (!unit) return std::nullopt;
  return LookbackMatch{{}, *unit};
}

constexpr std::string_view kZhHourMarks[] = {"点", "时"};

std::optional<std::string_view> ChineseHourAt(std::string_view text, std::size_t at) {
  std::size_t end = SkipDigits(text, at, 2);
  if (end == kNone) return std::nullopt;
  if (AlternativeAt(text, SkipSpaces(text, end), kZhHourMarks) < 0) return std::nullopt;
  return text.substr(at, end - at);
}

std::optional<std::string_view> ClockHourAt(std::string_view text, std::size_t at) {
  if (!WordBoundary(text, at)) return std::nullopt;
  std::size_t end = SkipDigits(text, at, 2);
  if (end == kNone || end >= text.size() || text[end] != ':') return std::nullopt;
  if (!DigitAt(text, end + 1) || !DigitAt(text, end + 2)) return std::nullopt;
  if (!WordBoundary(text, end + 3)) return std::nullopt;
  return text.substr(at, end - at);
}

constexpr std::string_view kEnHourWords[] = {"around", "at", "since", "after", "from"};
constexpr std::string_view kEnHourSuffixes[] = {"am", "pm", "o'clock"};

std::optional<EnglishHourMatch> EnglishHourAt(std::string_view text, std::size_t at) {
  if (!WordBoundary(text, at)) return std::nullopt;
  int word = AlternativeAt(text, at, kEnHourWords, Case::kFold);
  if (word < 0) return std::nullopt;
  std::size_t pos = at + kEnHourWords[word].size();
  if (pos >= text.size() || !IsSpace(text[pos])) return std::nullopt;
  pos = SkipSpaces(text, pos);
  std::size_t end = SkipDigits(text, pos, 2);
  if (end == kNone) return std::nullopt;
  EnglishHourMatch match{text.substr(pos, end - pos), {}};
  std::size_t suffix_at = SkipSpaces(text, end);
  if (int suffix = AlternativeAt(text, suffix_at, kEnHourSuffixes, Case::kFold); suffix >= 0) {
    match.suffix = text.substr(suffix_at, kEnHourSuffixes[suffix].size());
  }
  return match;
}

constexpr std::string_view kDayMarks[] = {"日", "号"};

std::optional<std::string_view> ChineseDateAt(std::string_view text, std::size_t at) {
  std::size_t month_end = SkipDigits(text, at, 2);
  if (month_end == kNone) return std::nullopt;
  std::size_t pos = SkipSpaces(text, month_end);
  if (!LiteralAt(text, pos, "月", Case::kExact)) return std::nullopt;
  pos = SkipSpaces(text, pos + 3);
  std::size_t day_end = SkipDigits(text, pos, 2);
  if (day_end == kNone) return std::nullopt;
  pos = SkipSpaces(text, day_end);
  if (AlternativeAt(text, pos, kDayMarks) < 0) return std::nullopt;
  return text.substr(at, pos + 3 - at);  // both marks are three bytes
}

constexpr std::string_view kPastDayWords[] = {"昨天",      "昨晚",       "前天",     "上周",
                                              "yesterday", "last night", "last week"};

std::optional<std::string_view> PastDayWordAt(std::string_view text, std::size_t at) {
  int word = AlternativeAt(text, at, kPastDayWords, Case::kFold);
  if (word < 0) return std::nullopt;
  return text.substr(at, kPastDayWords[word].size());
}

bool IsNameChar(char c) { return IsAlnum(c) || c == '.' || c == '_' || c == '-'; }

}  // namespace

std::optional<LookbackMatch> FindChineseLookback(std::string_view text) {
  return Leftmost<LookbackMatch>(text, ChineseLookbackAt);
}

std::optional<LookbackMatch> FindEnglishLookback(std::string_view text) {
  return Leftmost<LookbackMatch>(text, EnglishLookbackAt);
}

std::optional<std::string_view> FindChineseHour(std::string_view text) {
  return Leftmost<std::string_view>(text, ChineseHourAt);
}

std::optional<std::string_view> FindClockHour(std::string_view text) {
  return Leftmost<std::string_view>(text, ClockHourAt);
}

std::optional<EnglishHourMatch> FindEnglishHour(std::string_view text) {
  return Leftmost<EnglishHourMatch>(text, EnglishHourAt);
}

std::optional<std::string_view> FindChineseDate(std::string_view text) {
  return Leftmost<std::string_view>(text, ChineseDateAt);
}

std::optional<std::string_view> FindPastDayWord(std::string_view text) {
  return Leftmost<std::string_view>(text, PastDayWordAt);
}

std::vector<std::string_view> FindServerErrorCodes(std::string_view text) {
  std::vector<std::string_view> codes;
  for (std::size_t at = 0; at + 3 <= text.size(); ++at) {
    if (text[at] == '5' && WordBoundary(text, at) && DigitAt(text, at + 1) &&
        DigitAt(text, at + 2) && WordBoundary(text, at + 3)) {
      codes.push_back(text.substr(at, 3));
      at += 2;
    }
  }
  return codes;
}

std::vector<std::string_view> FindNameTokens(std::string_view text) {
  std::vector<std::string_view> names;
  std::size_t at = 0;
  while (at < text.size()) {
    if (!IsAlpha(text[at])) {
      ++at;
      continue;
    }
    // The greedy star takes the whole run of name characters, then gives
    // back until the match ends on a letter or digit.
    std::size_t run_end = at + 1;
    std::size_t last_alnum = kNone;
    for (; run_end < text.size() && IsNameChar(text[run_end]); ++run_end) {
      if (IsAlnum(text[run_end])) last_alnum = run_end;
    }
    if (last_alnum == kNone) {
      // The run holds only '.', '_' and '-': no letter in it starts a match.
      at = run_end;
      continue;
    }
    names.push_back(text.substr(at, last_alnum + 1 - at));
    at = last_alnum + 1;
  }
  return names;
}

}  // namespace diagd::model::offline
