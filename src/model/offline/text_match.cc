#include "model/offline/text_match.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>

#include "core/text.h"

namespace diagd::model::offline {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsAsciiFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool IsIdeograph(char32_t cp) { return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF); }

bool IsSentenceEnd(std::string_view s, std::size_t i, std::size_t* length) {
  static constexpr std::string_view kMarks[] = {"。", "；", "！", "？", "\n"};
  for (auto mark : kMarks) {
    if (s.substr(i, mark.size()) == mark) {
      *length = mark.size();
      return true;
    }
  }
  if (s.substr(i, 2) == ". " || s.substr(i, 2) == "; ") {
    *length = 1;
    return true;
  }
  return false;
}

std::string_view TrimDecorations(std::string_view s) {
  // Markdown list marks, emphasis and spaces at the edges are not content.
  auto is_edge = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '-' || c == '*' || c == '|' ||
           c == '#' || c == '>';
  };
  while (!s.empty() && is_edge(s.front())) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' ||
                        s.back() == '\n' || s.back() == '|' || s.back() == '*')) {
    s.remove_suffix(1);
  }
  return s;
}

std::chrono::sys_seconds ToTimePoint(const std::string& t) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  std::sscanf(t.c_str(), "%d-%d-%d %d:%d:%d", &y, &mo, &d, &h, &mi, &s);
  auto day =
      std::chrono::sys_days(std::chrono::year{y} / std::chrono::month{static_cast<unsigned>(mo)} /
                            std::chrono::day{static_cast<unsigned>(d)});
  return std::chrono::sys_seconds(day) + std::chrono::hours(h) + std::chrono::minutes(mi) +
         std::chrono::seconds(s);
}

}  // namespace

bool ContainsFold(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  return text::CaseFold(haystack).find(text::CaseFold(needle)) != std::string::npos;
}

bool HasCjk(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    text::CodePoint cp = text::DecodeCodePoint(text, i);
    if (IsIdeograph(cp.value)) return true;
    i += cp.length;
  }
  return false;
}

std::vector<std::string> CjkTrigrams(std::string_view text) {
  std::vector<std::string> out;
  std::vector<std::pair<std::size_t, std::size_t>> run;  // (offset, bytes) of ideographs in a row
  auto emit = [&] {
    for (std::size_t k = 0; k + 3 <= run.size(); ++k) {
      std::size_t begin = run[k].first;
      std::size_t end = run[k + 2].first + run[k + 2].second;
      std::string gram(text.substr(begin, end - begin));
      if (std::find(out.begin(), out.end(), gram) == out.end()) out.push_back(std::move(gram));
    }
    run.clear();
  };
  for (std::size_t i = 0; i < text.size();) {
    text::CodePoint cp = text::DecodeCodePoint(text, i);
    if (IsIdeograph(cp.value)) {
      run.emplace_back(i, cp.length);
    } else {
      emit();
    }
    i += cp.length;
  }
  emit();
  return out;
}

namespace {

constexpr std::size_t kMaxPlaceholderBytes = 48;

// The length of the placeholder starting at `at` in `text`, or 0.
std::size_t PlaceholderAt(std::string_view text, std::size_t at) {
  std::size_t open = at;
  if (text.compare(at, 2, "${") == 0) ++open;
  char close = text[open] == '<' ? '>' : text[open] == '{' ? '}' : '\0';
  if (close == '\0') return 0;
  for (std::size_t end = open + 1; end < text.size() && end - at <= kMaxPlaceholderBytes; ++end) {
    char c = text[end];
    if (c == close) return end > open + 1 ? end - at + 1 : 0;
    if (c == ' ' || c == '\n' || c == '<' || c == '{') return 0;
  }
  return 0;
}

bool IsValueChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '.' || c == '_' || c == '-' || c == ':' || c == '/';
}

// Whether `needle` matches `text` from `at`, placeholders standing for
// values: a value is a run of value characters, the longest that lets the
// rest match (":443" after `<域名>` is text again). `depth` bounds the
// backtracking: a runbook line holds a few placeholders.
bool MatchesAt(std::string_view text, std::size_t at, std::string_view needle, int depth = 0) {
  std::size_t i = at, j = 0;
  while (j < needle.size()) {
    if (i >= text.size()) return false;
    if (std::size_t placeholder = PlaceholderAt(text, i); placeholder > 0 && depth < 4) {
      std::size_t longest = j;
      while (longest < needle.size() && IsValueChar(needle[longest])) ++longest;
      for (std::size_t end = longest; end > j; --end) {
        if (MatchesAt(text.substr(i + placeholder), 0, needle.substr(end), depth + 1)) return true;
      }
      return false;
    }
    if (text[i] != needle[j]) return false;
    ++i;
    ++j;
  }
  return true;
}

}  // namespace

std::size_t FindAllowingPlaceholders(std::string_view text, std::string_view needle) {
  if (needle.empty()) return 0;
  if (text.find_first_of("<{") == std::string_view::npos) return text.find(needle);
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (MatchesAt(text, at, needle)) return at;
  }
  return std::string_view::npos;
}

bool ContainsName(std::string_view text, std::string_view name) {
  if (name.empty() || text.size() < name.size()) return false;
  for (std::size_t i = 0; i + name.size() <= text.size(); ++i) {
    if (!EqualsAsciiFold(text.substr(i, name.size()), name)) continue;
    bool left_ok = i == 0 || !IsNameChar(text[i - 1]);
    std::size_t end = i + name.size();
    bool right_ok = end == text.size() || !IsNameChar(text[end]);
    if (left_ok && right_ok) return true;
  }
  return false;
}

bool ProseNamesTopic(std::string_view text, std::string_view topic) {
  if (ContainsName(text, topic)) return true;
  std::string spaced(topic);
  std::replace_if(spaced.begin(), spaced.end(), [](char c) { return c == '-' || c == '_'; }, ' ');
  return spaced != topic && ContainsName(text, spaced);
}

bool ContainsCamelName(std::string_view text, std::string_view topic) {
  std::string camel;
  std::size_t parts = 0;
  bool start = true;
  for (char c : topic) {
    if (c == '-' || c == '_' || c == '.') {
      start = true;
      continue;
    }
    if (start) {
      ++parts;
      camel.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    } else {
      camel.push_back(c);
    }
    start = false;
  }
  if (parts < 2) return false;
  for (auto at = text.find(camel); at != std::string_view::npos; at = text.find(camel, at + 1)) {
    std::size_t end = at + camel.size();
    bool left_ok = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
    // "BankChannel" and "BankChannelClient", not "BankChannels".
    bool right_ok = end == text.size() || !(text[end] >= 'a' && text[end] <= 'z');
    if (left_ok && right_ok) return true;
  }
  return false;
}

std::vector<std::string> Identifiers(std::string_view text) {
  std::vector<std::string> out;
  auto add = [&](std::string_view token) {
    while (!token.empty() && (token.back() == '.' || token.back() == ':' || token.back() == '-'))
      token.remove_suffix(1);
    std::size_t dots = static_cast<std::size_t>(std::count(token.begin(), token.end(), '.'));
    bool letters = std::any_of(token.begin(), token.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    });
    // "https://api.fastlogi.example.com/v2/waybills": the host of a URL.
    if (token.starts_with("//")) {
      token.remove_prefix(2);
      token = token.substr(0, token.find('/'));
    }
    if (token.empty() || token.find("..") != std::string_view::npos ||
        token.find("//") != std::string_view::npos)
      return;
    bool path = token.size() >= 4 && token.front() == '/';
    // A host ends in a lower-case label (com, internal, local); a Java
    // class name ("java.net.SocketTimeoutException") does not.
    std::string_view last = token.substr(token.rfind('.') + 1);
    bool host = dots >= 2 && letters && token.front() != '/' && !last.empty() &&
                std::all_of(last.begin(), last.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    bool ip = dots == 3 && !letters && std::isdigit(static_cast<unsigned char>(token.front())) &&
              std::isdigit(static_cast<unsigned char>(token.back()));
    if (!(path || host || ip)) return;
    std::string name(token);
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  };
  std::size_t begin = std::string_view::npos;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ' ';
    bool part = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
                (c == '/' && (begin == std::string_view::npos || text[begin] == '/'));
    if (part) {
      if (begin == std::string_view::npos) begin = i;
      continue;
    }
    if (begin != std::string_view::npos) add(text.substr(begin, i - begin));
    begin = std::string_view::npos;
  }
  // A host named by its field: "host=app-node-07", "node=node-12".
  for (std::string_view field : {"host=", "hostname=", "node=", "instance="}) {
    for (std::size_t at = text.find(field); at != std::string_view::npos;
         at = text.find(field, at + 1)) {
      if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_'))
        continue;
      std::size_t start = at + field.size(), end = start;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) ||
                                   text[end] == '-' || text[end] == '.' || text[end] == '_')) {
        ++end;
      }
      std::string value(text.substr(start, end - start));
      if (value.size() >= 4 && std::find(out.begin(), out.end(), value) == out.end())
        out.push_back(std::move(value));
    }
  }
  return out;
}

std::string CutPrefix(std::string_view s, std::size_t max_code_points) {
  std::string cut = text::TruncateCodePoints(s, max_code_points);
  std::string_view view = cut;
  while (!view.empty()) {
    char c = view.back();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' || c == '(' ||
        c == '[' || c == '{' || c == '"' || c == '=') {
      view.remove_suffix(1);
    } else if (view.size() >= 3 &&
               (view.substr(view.size() - 3) == "，" || view.substr(view.size() - 3) == "（" ||
                view.substr(view.size() - 3) == "：")) {
      view.remove_suffix(3);
    } else {
      break;
    }
  }
  return std::string(view);
}

std::string SentenceAround(std::string_view text, std::size_t pos, std::size_t max_code_points) {
  if (pos > text.size()) pos = text.size();
  std::size_t begin = 0;
  for (std::size_t i = 0; i < pos;) {
    std::size_t n = 1;
    if (IsSentenceEnd(text, i, &n)) begin = i + n;
    i = text::NextCodePoint(text, i);
  }
  std::size_t end = text.size();
  for (std::size_t i = pos; i < text.size();) {
    std::size_t n = 1;
    if (IsSentenceEnd(text, i, &n)) {
      // Keep a Chinese full stop: it belongs to the sentence.
      end = text.substr(i, 3) == "。" ? i + 3 : i;
      break;
    }
    i = text::NextCodePoint(text, i);
  }
  std::string_view sentence = text.substr(begin, end - begin);
  // Too long: keep a window that starts a little before `pos`.
  if (text::CodePointCount(sentence) > max_code_points) {
    // Start at the word `pos` is in: back to a space or a CJK/ASCII
    // punctuation mark a few characters before it, never mid-word.
    std::size_t start = pos - begin;
    std::size_t back = 0;
    std::size_t word_start = start;
    while (word_start > 0 && back < max_code_points / 4) {
      std::size_t previous = text::PreviousCodePoint(sentence, word_start);
      char c = sentence[previous];
      if (c == ' ' || c == ',' || c == '(' || c == '`' || (static_cast<unsigned char>(c) >= 0xE0))
        break;
      word_start = previous;
      ++back;
    }
    if (word_start > 0 && back >= max_code_points / 4) word_start = start;
    sentence = sentence.substr(word_start);
    std::string cut = text::TruncateCodePoints(sentence, max_code_points);
    sentence = sentence.substr(0, cut.size());
  }
  return std::string(TrimDecorations(sentence));
}

std::vector<std::string> AsciiWords(std::string_view text, std::size_t min_chars) {
  std::vector<std::string> words;
  std::string current;
  auto flush = [&] {
    if (current.size() >= min_chars &&
        std::find(words.begin(), words.end(), current) == words.end()) {
      words.push_back(current);
    }
    current.clear();
  };
  for (char c : text) {
    bool word =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (word) {
      current.push_back(c);
    } else {
      flush();
    }
  }
  flush();
  return words;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string SortableTime(std::string_view s) {
  if (s.size() < 19) return {};
  auto digit = [&](std::size_t i) { return s[i] >= '0' && s[i] <= '9'; };
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u, 11u, 12u, 14u, 15u, 17u, 18u}) {
    if (!digit(i)) return {};
  }
  if (s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' ||
      s[16] != ':') {
    return {};
  }
  std::string out(s.substr(0, 19));
  out[10] = ' ';
  return out;
}

std::string MinusMinutes(const std::string& t, long minutes) {
  if (t.empty()) return {};
  auto point = ToTimePoint(t) - std::chrono::minutes(minutes);
  auto day = std::chrono::floor<std::chrono::days>(point);
  std::chrono::year_month_day ymd(day);
  std::chrono::hh_mm_ss hms(point - day);
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%04d-%02u-%02u %02d:%02d:%02d",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
                static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()));
  return buffer;
}

std::vector<KeyValueField> KeyValueFields(std::string_view message) {
  struct Key {
    std::size_t start, equals;
  };
  std::vector<Key> keys;
  for (std::size_t i = 1; i < message.size(); ++i) {
    if (message[i] != '=') continue;
    std::size_t start = i;
    while (start > 0 && (std::isalnum(static_cast<unsigned char>(message[start - 1])) ||
                         message[start - 1] == '_' || message[start - 1] == '.')) {
      --start;
    }
    if (start == i || (start > 0 && message[start - 1] != ' ')) continue;
    keys.push_back({start, i});
  }
  std::vector<KeyValueField> fields;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    std::size_t end = k + 1 < keys.size() ? keys[k + 1].start : message.size();
    fields.push_back({message.substr(keys[k].start, keys[k].equals - keys[k].start),
                      Trim(message.substr(keys[k].equals + 1, end - keys[k].equals - 1))});
  }
  return fields;
}

}  // namespace diagd::model::offline
