#include "model/offline/log_templates.h"

#include <algorithm>
#include <map>

#include "core/text.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

constexpr std::size_t kMaxTemplateBytes = 240;
constexpr std::size_t kMaxLeadCodePoints = 120;

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsAlnum(c) || c == '_' || c == '.' || c == '`' || c == '$'; }

std::string_view FirstLine(std::string_view message) {
  std::size_t end = message.find('\n');
  return end == std::string_view::npos ? message : message.substr(0, end);
}

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// ASCII case-insensitive find.
std::size_t FindFold(std::string_view text, std::string_view needle, std::size_t from = 0) {
  if (needle.size() > text.size()) return std::string_view::npos;
  for (std::size_t i = from; i + needle.size() <= text.size(); ++i) {
    bool match = true;
    for (std::size_t k = 0; k < needle.size() && match; ++k) {
      match = Lower(text[i + k]) == Lower(needle[k]);
    }
    if (match) return i;
  }
  return std::string_view::npos;
}

bool HasAny(std::string_view text, std::initializer_list<std::string_view> needles) {
  for (auto needle : needles) {
    if (FindFold(text, needle) != std::string_view::npos) return true;
  }
  return false;
}

// The message body: the first line after a logger prefix "... Class - ".
std::string_view Body(std::string_view line) {
  std::size_t dash = line.find(" - ");
  if (dash != std::string_view::npos && dash < 200) {
    std::string_view prefix = line.substr(0, dash);
    if (prefix.find('[') != std::string_view::npos || prefix.find('.') != std::string_view::npos) {
      return line.substr(dash + 3);
    }
  }
  return line;
}

// Where an exception class ends with ": " in `line` (positions of the text
// after it), e.g. "java.sql.SQLTransientConnectionException: HikariPool-1 ...".
std::vector<std::size_t> ExceptionTextStarts(std::string_view line) {
  std::vector<std::size_t> starts;
  for (std::size_t colon = line.find(": "); colon != std::string_view::npos;
       colon = line.find(": ", colon + 1)) {
    std::size_t begin = colon;
    while (begin > 0 && IsIdentChar(line[begin - 1])) --begin;
    std::string_view token = line.substr(begin, colon - begin);
    bool exception = token.find("Exception") != std::string_view::npos ||
                     (token.size() > 5 && token.substr(token.size() - 5) == "Error");
    if (exception && token.size() > 5) starts.push_back(colon + 2);
  }
  return starts;
}

std::optional<std::int64_t> NumberAfter(std::string_view text, std::string_view label,
                                        std::string* phrase = nullptr) {
  std::size_t at = FindFold(text, label);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t i = at + label.size();
  std::size_t digits = i;
  while (digits < text.size() && IsDigit(text[digits])) ++digits;
  if (digits == i) return std::nullopt;
  if (phrase != nullptr) *phrase = std::string(text.substr(at, digits - at));
  std::int64_t value = 0;
  for (std::size_t k = i; k < digits && k < i + 17; ++k) value = value * 10 + (text[k] - '0');
  return value;
}

std::string IdentifierAt(std::string_view text, std::size_t at, std::size_t* end) {
  std::size_t i = at;
  while (i < text.size() && IsIdentChar(text[i])) ++i;
  *end = i;
  std::string ident(text.substr(at, i - at));
  ident.erase(std::remove(ident.begin(), ident.end(), '`'), ident.end());
  if (auto dot = ident.rfind('.'); dot != std::string::npos) ident = ident.substr(dot + 1);
  return ident;
}

void ReadSql(std::string_view text, MessageReading& reading) {
  for (std::size_t from = FindFold(text, "FROM "); from != std::string_view::npos;
       from = FindFold(text, "FROM ", from + 5)) {
    std::size_t table_end = 0;
    std::string table = IdentifierAt(text, from + 5, &table_end);
    if (table.empty()) continue;
    std::size_t where = table_end;
    while (where < text.size() && text[where] == ' ') ++where;
    if (FindFold(text.substr(where, 6), "WHERE ") != 0) continue;
    std::size_t column_end = 0;
    std::string column = IdentifierAt(text, where + 6, &column_end);
    if (column.empty()) continue;
    reading.sql_fragment = std::string(text.substr(from, column_end - from));
    reading.table = table;
    reading.column = column;
    std::size_t and_at = FindFold(text, " AND ", column_end);
    if (and_at != std::string_view::npos && and_at < column_end + 60) {
      std::size_t second_end = 0;
      reading.second_column = IdentifierAt(text, and_at + 5, &second_end);
    }
    return;
  }
}

bool NamesServerError(std::string_view text) {
  for (std::size_t i = 0; i + 3 <= text.size(); ++i) {
    if (text[i] != '5' || !IsDigit(text[i + 1]) || !IsDigit(text[i + 2])) continue;
    if (text[i + 1] != '0') continue;
    bool left = i == 0 || !IsAlnum(text[i - 1]);
    bool right = i + 3 == text.size() || !IsAlnum(text[i + 3]);
    if (left && right) return true;
  }
  return false;
}

std::string Lead(std::string_view line) {
  std::string_view body = Body(line);
  // Leading tokens without letters (client IPs, connection numbers) are not words.
  while (!body.empty()) {
    std::size_t space = body.find(' ');
    std::string_view token = body.substr(0, space);
    bool letters = std::any_of(token.begin(), token.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
             (static_cast<unsigned char>(c) >= 0x80);
    });
    if (letters || space == std::string_view::npos) break;
    body.remove_prefix(space + 1);
  }
  std::size_t end = body.size();
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '=') {
      std::size_t token_start = body.rfind(' ', i);
      end = token_start == std::string_view::npos ? 0 : token_start;
      break;
    }
  }
  auto starts = ExceptionTextStarts(body);
  if (!starts.empty()) {
    std::size_t class_start = starts.front() - 2;
    while (class_start > 0 && IsIdentChar(body[class_start - 1])) --class_start;
    end = std::min(end, class_start);
  }
  return CutPrefix(body.substr(0, end), kMaxLeadCodePoints);
}

}  // namespace

// An HTTP status where access logs and clients write one: `"GET / HTTP/1.1"
// 504`, `[500]`, `status=502`. It is what tells two lines apart, not an id.
bool IsStatusCode(std::string_view line, std::size_t begin, std::size_t end) {
  if (end - begin != 3 || line[begin] < '1' || line[begin] > '5') return false;
  for (std::size_t i = begin; i < end; ++i) {
    if (!IsDigit(line[i])) return false;
  }
  std::size_t before = begin;
  while (before > 0 && line[before - 1] == ' ') --before;
  if (before == 0) return false;
  char previous = line[before - 1];
  if (previous == '"' || (previous == '[' && end < line.size() && line[end] == ']')) return true;
  std::string_view head = line.substr(0, before);
  return head.ends_with("status=") || head.ends_with("status:") || head.ends_with("code=");
}

std::string TemplateOf(std::string_view message) {
  std::string_view line = FirstLine(message);
  std::string masked;
  masked.reserve(line.size());
  for (std::size_t i = 0; i < line.size();) {
    if (IsAlnum(line[i])) {
      std::size_t j = i;
      bool digit = false;
      while (j < line.size() && IsAlnum(line[j])) digit |= IsDigit(line[j++]);
      if (digit && !IsStatusCode(line, i, j)) {
        masked += '#';
      } else {
        masked.append(line.substr(i, j - i));
      }
      i = j;
    } else {
      masked += line[i++];
    }
  }
  return text::TruncateBytes(text::CollapseWhitespace(masked), kMaxTemplateBytes);
}

std::vector<TemplateGroup> GroupByTemplate(const std::vector<std::string>& messages,
                                           const std::vector<std::string>& levels) {
  std::vector<TemplateGroup> groups;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    std::string key = TemplateOf(messages[i]);
    auto [it, added] = index.emplace(key, groups.size());
    if (added) groups.push_back({key, {}, i < levels.size() ? levels[i] : std::string()});
    groups[it->second].members.push_back(i);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const TemplateGroup& a, const TemplateGroup& b) {
                     if (a.members.size() != b.members.size())
                       return a.members.size() > b.members.size();
                     bool a_error = a.level == "ERROR" || a.level == "FATAL";
                     bool b_error = b.level == "ERROR" || b.level == "FATAL";
                     if (a_error != b_error) return a_error;
                     return a.members.front() < b.members.front();
                   });
  return groups;
}

MessageReading ReadMessage(std::string_view message) {
  MessageReading reading;
  std::string_view first = FirstLine(message);
  reading.lead = Lead(first);
  std::size_t begin = 0;
  while (begin <= message.size()) {
    std::size_t end = message.find('\n', begin);
    std::string_view line =
        message.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    auto starts = ExceptionTextStarts(line);
    if (!starts.empty() && line.substr(0, 4) != "\tat ") {
      std::string exception = CutPrefix(line.substr(starts.back()), kMaxLeadCodePoints);
      if (text::CodePointCount(exception) >= 4 &&
          std::find(reading.exceptions.begin(), reading.exceptions.end(), exception) ==
              reading.exceptions.end()) {
        reading.exceptions.push_back(exception);
      }
    }
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  ReadSql(first, reading);
  reading.rows_examined = NumberAfter(first, "Rows_examined: ", &reading.rows_examined_phrase);
  if (!reading.rows_examined) {
    reading.rows_examined = NumberAfter(first, "Rows_examined=", &reading.rows_examined_phrase);
  }
  reading.rows_sent = NumberAfter(first, "Rows_sent: ");
  if (!reading.rows_sent) reading.rows_sent = NumberAfter(first, "Rows_sent=");
  if (std::size_t at = FindFold(first, "Query_time: "); at != std::string_view::npos) {
    std::size_t i = at + 12, j = i;
    while (j < first.size() && (IsDigit(first[j]) || first[j] == '.')) ++j;
    reading.query_time = std::string(first.substr(i, j - i));
  }
  if (reading.rows_examined) {
    std::int64_t sent = std::max<std::int64_t>(reading.rows_sent.value_or(0), 1);
    reading.full_scan = *reading.rows_examined >= 100000 && *reading.rows_examined >= 1000 * sent;
  }
  reading.slow = HasAny(message, {"slow query", "slow sql", "slow request", "慢查询", "慢 SQL"});
  reading.pool_exhausted =
      HasAny(message, {"Connection is not available", "pool exhausted", "Too many connections",
                       "Cannot get a connection", "Timeout waiting for idle object", "连接池耗尽",
                       "Failed to obtain JDBC Connection"});
  reading.timeout = HasAny(message, {"timed out", "timeout", "超时", "deadline exceeded"});
  reading.server_error = NamesServerError(first);
  reading.out_of_memory = HasAny(
      message, {"OutOfMemoryError", "OOM ", "OOM:", "maxmemory", "out of memory", "内存溢出"});
  reading.refused = HasAny(message, {"Connection refused", "ECONNREFUSED"});
  reading.certificate = HasAny(message, {"certificate", "PKIX", "SSLHandshake", "证书", "x509"});
  reading.rate_limited = HasAny(message, {"limiting requests", "rate limit", "rate-limit",
                                          "Too Many Requests", "throttl", "限流"});
  reading.backlog = HasAny(message, {" lag=", "consumer lag", "积压", "backlog"});
  reading.space_exhausted = HasAny(message, {"No space left", "disk full", "filesystem full",
                                             "used=100%", "used=100.0%", "磁盘已满", "磁盘满"});
  return reading;
}

std::string BestPhrase(std::string_view message, std::size_t max_code_points) {
  MessageReading reading = ReadMessage(message);
  for (const auto& exception : reading.exceptions) {
    if (text::CodePointCount(exception) >= 12) return CutPrefix(exception, max_code_points);
  }
  if (!reading.exceptions.empty()) return CutPrefix(reading.exceptions.front(), max_code_points);
  if (text::CodePointCount(reading.lead) >= 4) return CutPrefix(reading.lead, max_code_points);
  return CutPrefix(Trim(FirstLine(message)), max_code_points);
}

bool NamesFailure(const MessageReading& r) {
  return r.pool_exhausted || r.timeout || r.server_error || r.out_of_memory || r.refused ||
         r.certificate || r.full_scan || r.slow || r.rate_limited || r.backlog ||
         r.space_exhausted;
}

}  // namespace diagd::model::offline
