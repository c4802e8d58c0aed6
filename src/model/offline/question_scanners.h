// The time words, status codes and service-like names of a question, found
// by small hand-written scanners. Each does what one ECMAScript regular
// expression of the first version did (quoted on each function, with its
// leftmost-first search), in time linear in the text and without recursion:
// libstdc++'s std::regex recursed once per character a match spanned, and a
// long word overflowed a run's fiber stack.
//
// The text is UTF-8, read as bytes. The classes are the regex's in the "C"
// locale: a space is one of " \t\n\v\f\r", a digit 0-9, a word character
// [A-Za-z0-9_], so no byte of a multi-byte character is any of them and
// Chinese words match as byte sequences. "icase" folds ASCII letters only.
//
// Thread safety: pure functions. Returned views point into `text`.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace diagd::model::offline {

enum class TimeUnit { kMinute, kHour, kDay };

struct LookbackMatch {
  std::string_view count;  // as written: "30", "两", "an"; empty when none is
  TimeUnit unit = TimeUnit::kMinute;
};

// (最近|过去|近)\s*(\d+|一|两|二|三|半)?\s*(个)?\s*(小时|分钟|天)
std::optional<LookbackMatch> FindChineseLookback(std::string_view text);

// (last|past)\s+(\d+|an|a|one|two)?\s*(minute|min|hour|hr|day), icase.
// Units carry no right boundary: "hours" and "minimum" count.
std::optional<LookbackMatch> FindEnglishLookback(std::string_view text);

// (\d{1,2})\s*(点|时): the hour's digits.
std::optional<std::string_view> FindChineseHour(std::string_view text);

// \b(\d{1,2}):(\d{2})\b: the hour's digits.
std::optional<std::string_view> FindClockHour(std::string_view text);

struct EnglishHourMatch {
  std::string_view hour;    // one or two digits
  std::string_view suffix;  // "am", "PM", "o'clock" as written; empty when none
};

// \b(around|at|since|after|from)\s+(\d{1,2})\s*(am|pm|o'clock)?, icase.
std::optional<EnglishHourMatch> FindEnglishHour(std::string_view text);

// (\d{1,2})\s*月\s*(\d{1,2})\s*(日|号): the whole date as written.
std::optional<std::string_view> FindChineseDate(std::string_view text);

// (昨天|昨晚|前天|上周|yesterday|last night|last week), icase: the word as
// written.
std::optional<std::string_view> FindPastDayWord(std::string_view text);

// Every \b(5\d\d)\b, left to right.
std::vector<std::string_view> FindServerErrorCodes(std::string_view text);

// Every [A-Za-z][A-Za-z0-9._-]*[A-Za-z0-9], left to right, each search
// starting where the previous match ended (as std::sregex_iterator).
std::vector<std::string_view> FindNameTokens(std::string_view text);

}  // namespace diagd::model::offline
