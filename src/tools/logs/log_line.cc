#include "tools/logs/log_line.h"

#include <array>
#include <utility>

namespace diagd::tools::logs {
namespace {

// A source-file token longer than this is not one (OpenStack's are ~35).
constexpr std::size_t kMaxSourceTokenBytes = 256;
// A `[service]` or pipe-delimited header field longer than this is text.
constexpr std::size_t kMaxNameBytes = 128;
// The level must be among the first tokens after the timestamp.
constexpr int kLevelTokenWindow = 3;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char Upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '.' || c == '_' ||
         c == '-';
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

std::size_t SkipBlanks(std::string_view line, std::size_t i) {
  while (i < line.size() && IsBlank(line[i])) ++i;
  return i;
}

std::size_t TokenEnd(std::string_view line, std::size_t i) {
  while (i < line.size() && !IsBlank(line[i])) ++i;
  return i;
}

// A lone `-`, `:` or `|` between fields (`... - INFO`, `ERROR - msg`) is
// layout, not message.
std::size_t SkipSeparator(std::string_view line, std::size_t i) {
  if (i < line.size() && (line[i] == '-' || line[i] == ':' || line[i] == '|') &&
      (i + 1 == line.size() || IsBlank(line[i + 1]))) {
    return SkipBlanks(line, i + 1);
  }
  return i;
}

// `ERROR`, `[error]`, `<ERROR>` or `ERROR:` as a level; empty otherwise.
std::string_view LevelOfToken(std::string_view token) {
  if (!token.empty() && token.back() == ':') token.remove_suffix(1);
  if (token.size() >= 2 && ((token.front() == '[' && token.back() == ']') ||
                            (token.front() == '<' && token.back() == '>'))) {
    token = token.substr(1, token.size() - 2);
  }
  return NormalizeLevelWord(token);
}

// Tokens that may stand between the timestamp and the level without being
// message: a process id (HDFS, OpenStack), a separator (Zookeeper's `-`),
// or a bracketed thread (logback's `[main] ERROR`).
bool MayPrecedeLevel(std::string_view token) {
  if (AllDigits(token)) return true;
  if (token == "-" || token == "|" || token == ":") return true;
  return token.size() >= 2 && token.front() == '[' && token.back() == ']';
}

// diagd's `[<service>]` right after the level: a plain name
// (`[A-Za-z0-9._-]`) followed by a blank or the end of the line.
std::string_view BracketedName(std::string_view line, std::size_t i) {
  if (i >= line.size() || line[i] != '[') return {};
  std::size_t j = i + 1;
  while (j < line.size() && j - i <= kMaxNameBytes && IsNameChar(line[j])) ++j;
  std::size_t length = j - i - 1;
  if (length == 0 || j >= line.size() || line[j] != ']') return {};
  if (j + 1 < line.size() && !IsBlank(line[j + 1])) return {};
  return line.substr(i + 1, j - i - 1);
}

// `<ts> [pid|-|[thread]]* LEVEL [service] message`, with everything after
// the timestamp optional.
void ReadSpacedFields(std::string_view line, std::size_t pos, LineHead& head) {
  std::size_t start = SkipBlanks(line, pos);
  head.message_offset = SkipSeparator(line, start);
  std::size_t i = start;
  for (int k = 0; k < kLevelTokenWindow && i < line.size(); ++k) {
    std::size_t end = TokenEnd(line, i);
    std::string_view token = line.substr(i, end - i);
    if (auto level = LevelOfToken(token); !level.empty()) {
      head.level = level;
      std::size_t after = SkipBlanks(line, end);
      if (auto service = BracketedName(line, after); !service.empty()) {
        head.service = service;
        after = SkipBlanks(line, after + service.size() + 2);
      }
      head.message_offset = SkipSeparator(line, after);
      return;
    }
    if (!MayPrecedeLevel(token)) return;
    i = SkipBlanks(line, end);
  }
}

// HealthApp's `<ts>|<component>|<pid>|<message>`: up to three short header
// fields without blanks, each followed by `|`: a level word is the level, a
// number is a process id, the first other one is the service.
void ReadPipeFields(std::string_view line, std::size_t pos, LineHead& head) {
  std::size_t bar = pos;  // at a '|'
  for (int k = 0; k < kLevelTokenWindow; ++k) {
    std::size_t start = bar + 1;
    std::size_t next = line.find('|', start);
    if (next == std::string_view::npos || next == start || next - start > kMaxNameBytes) break;
    std::string_view field = line.substr(start, next - start);
    if (field.find_first_of(" \t") != std::string_view::npos) break;
    if (auto level = NormalizeLevelWord(field); !level.empty() && head.level.empty()) {
      head.level = level;
    } else if (AllDigits(field)) {
      // a process id: layout
    } else if (head.service.empty()) {
      head.service = field;
    } else {
      break;
    }
    bar = next;
  }
  head.message_offset = bar + 1;
}

}  // namespace

std::string_view NormalizeLevelWord(std::string_view word) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kLevels = {{
      {"TRACE", "TRACE"},
      {"DEBUG", "DEBUG"},
      {"INFO", "INFO"},
      {"WARN", "WARN"},
      {"WARNING", "WARN"},
      {"ERROR", "ERROR"},
      {"FATAL", "FATAL"},
      {"CRITICAL", "CRITICAL"},
      {"SEVERE", "SEVERE"},
  }};
  if (word.size() < 4 || word.size() > 8) return {};
  char upper[8];
  for (std::size_t i = 0; i < word.size(); ++i) upper[i] = Upper(word[i]);
  std::string_view key(upper, word.size());
  for (const auto& [name, normalized] : kLevels) {
    if (key == name) return normalized;
  }
  return {};
}

std::string NormalizeLevelText(std::string_view text) {
  if (auto level = NormalizeLevelWord(text); !level.empty()) return std::string(level);
  std::string out(text);
  for (char& c : out) c = Upper(c);
  return out;
}

std::optional<LineHead> ParseLineHead(std::string_view line, UnixMillis reference_ms) {
  std::size_t pos = 0;
  std::string_view source_service;
  auto stamp = MatchLeadingTimestamp(line, reference_ms);
  if (!stamp) {
    // `nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 ...`: one
    // token naming a log file, then the timestamp. The file's base name is
    // the service.
    std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space > kMaxSourceTokenBytes) return std::nullopt;
    std::size_t dot_log = line.substr(0, space).find(".log");
    if (dot_log == std::string_view::npos || dot_log == 0) return std::nullopt;
    stamp = MatchLeadingTimestamp(line.substr(space + 1), reference_ms);
    if (!stamp) return std::nullopt;
    source_service = line.substr(0, dot_log);
    pos = space + 1;
  }
  pos += stamp->length;
  LineHead head{stamp->time_ms, {}, source_service, pos};
  if (pos < line.size() && line[pos] == '|') {
    ReadPipeFields(line, pos, head);
  } else {
    ReadSpacedFields(line, pos, head);
  }
  return head;
}

}  // namespace diagd::tools::logs
