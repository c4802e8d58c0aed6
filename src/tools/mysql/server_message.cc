#include "tools/mysql/server_message.h"

#include "core/text.h"

namespace diagd::tools::mysql {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsQuote(char c) { return c == '\'' || c == '"' || c == '`'; }

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && text::AsciiLower(s.substr(0, prefix.size())) == prefix;
}

bool IsPathByte(char c) {
  return c != ' ' && c != '\t' && !IsQuote(c) && c != ',' && c != ';' && c != ')';
}

// Where a file path starts as servers print them: absolute, home-relative or
// a Windows drive path, after a space, a quote, '(' or ':'. A lone "/" (a
// division in a syntax error) is not one.
bool PathStartsAt(std::string_view s, std::size_t i) {
  if (i > 0 && s[i - 1] != ' ' && !IsQuote(s[i - 1]) && s[i - 1] != '(' && s[i - 1] != ':' &&
      s[i - 1] != '=') {
    return false;
  }
  std::string_view rest = s.substr(i);
  if (rest.size() >= 2 && (rest[0] == '/' || rest[0] == '\\')) return IsPathByte(rest[1]);
  if (rest.size() >= 3 && rest[0] == '~' && rest[1] == '/') return IsPathByte(rest[2]);
  bool drive = rest.size() >= 4 &&
               ((rest[0] >= 'A' && rest[0] <= 'Z') || (rest[0] >= 'a' && rest[0] <= 'z'));
  return drive && rest[1] == ':' && (rest[2] == '\\' || rest[2] == '/') && IsPathByte(rest[3]);
}

// Removes every quoted account ('app'@'10.0.0.3', `app`@`%`) together with
// the "for user" / "to user" before it.
std::string DropAccounts(std::string s) {
  for (;;) {
    std::size_t at = std::string::npos;
    for (std::size_t i = 1; i + 1 < s.size(); ++i) {
      if (s[i] == '@' && IsQuote(s[i - 1]) && IsQuote(s[i + 1])) {
        at = i;
        break;
      }
    }
    if (at == std::string::npos) return s;
    std::size_t begin = at >= 2 ? s.rfind(s[at - 1], at - 2) : std::string::npos;
    std::size_t end = s.find(s[at + 1], at + 2);
    if (begin == std::string::npos) begin = 0;
    end = end == std::string::npos ? s.size() : end + 1;
    for (std::string_view lead : {" for user ", " to user ", " user "}) {
      if (begin >= lead.size() && s.compare(begin - lead.size(), lead.size(), lead) == 0) {
        begin -= lead.size() - 1;  // keep one space
        break;
      }
    }
    s.erase(begin, end - begin);
  }
}

// Masks file paths ('/var/lib/mysql/x.txt' -> '<path>').
std::string MaskPaths(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (PathStartsAt(s, i)) {
      out += "<path>";
      while (i < s.size() && IsPathByte(s[i])) ++i;
      continue;
    }
    out += s[i++];
  }
  return out;
}

// Masks dotted IPv4 addresses: a host a message should not name.
std::string MaskIpv4(std::string_view s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (IsDigit(s[i]) && (i == 0 || (!IsDigit(s[i - 1]) && s[i - 1] != '.'))) {
      std::size_t j = i;
      int groups = 0;
      for (;;) {
        std::size_t start = j;
        while (j < s.size() && IsDigit(s[j]) && j - start < 3) ++j;
        if (j == start) break;
        ++groups;
        if (groups == 4 || j >= s.size() || s[j] != '.') break;
        ++j;
      }
      bool ends_clean = j >= s.size() || (!IsDigit(s[j]) && s[j] != '.');
      if (groups == 4 && ends_clean) {
        out += "<host>";
        i = j;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

void EraseAll(std::string& s, std::string_view what) {
  for (std::size_t pos; (pos = s.find(what)) != std::string::npos;) s.erase(pos, what.size());
}

}  // namespace

std::string SafeServerMessage(std::string_view message) {
  std::string line = text::SanitizeUtf8(message);
  if (std::size_t eol = line.find_first_of("\r\n"); eol != std::string::npos) line.resize(eol);
  line = text::CollapseWhitespace(line);
  // Which account, from where, with or without a password: none of it helps
  // a query and all of it helps an attacker.
  if (StartsWithNoCase(line, "access denied")) return "access denied";
  line = DropAccounts(std::move(line));
  for (std::string_view noise : {" (using password: YES)", " (using password: NO)"}) {
    EraseAll(line, noise);
  }
  line = text::CollapseWhitespace(MaskIpv4(MaskPaths(line)));
  if (line.empty()) return "query failed";
  return text::TruncateCodePoints(line, kMaxServerMessageChars);
}

}  // namespace diagd::tools::mysql
