#include "tools/metrics/promql_text.h"

#include <algorithm>
#include <vector>

namespace diagd::tools::metrics {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Characters that end a word: operators, brackets, quotes, comments.
bool IsPunct(char c) {
  static constexpr std::string_view kPunct = "(){}[],=!~<>+-*/%^@\"'`#";
  return kPunct.find(c) != std::string_view::npos;
}

// One token: a word (identifier, number, duration, keyword), a string
// literal as written, or one punctuation character.
struct Token {
  std::string_view text;
  bool word = false;
};

// The end of the string literal that opens at `s[i]`; the end of `s` when
// it is not closed.
std::size_t StringEnd(std::string_view s, std::size_t i) {
  const char quote = s[i];
  for (std::size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] == '\\' && quote != '`') {
      ++j;  // the escaped character, whatever it is
    } else if (s[j] == quote) {
      return j + 1;
    }
  }
  return s.size();
}

std::vector<Token> Tokenize(std::string_view s) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (IsSpace(c)) {
      ++i;
    } else if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '"' || c == '\'' || c == '`') {
      std::size_t end = StringEnd(s, i);
      tokens.push_back({s.substr(i, end - i), false});
      i = end;
    } else if (IsPunct(c)) {
      tokens.push_back({s.substr(i, 1), false});
      ++i;
    } else {
      std::size_t end = i;
      while (end < s.size() && !IsSpace(s[end]) && !IsPunct(s[end])) ++end;
      tokens.push_back({s.substr(i, end - i), true});
      i = end;
    }
  }
  return tokens;
}

// Tokens [begin, end) joined: a space only where two words meet.
std::string Join(const std::vector<Token>& tokens, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t i = begin; i < end; ++i) {
    if (i > begin && tokens[i].word && tokens[i - 1].word) out += ' ';
    out += tokens[i].text;
  }
  return out;
}

}  // namespace

std::string NormalizePromql(std::string_view query) {
  std::vector<Token> tokens = Tokenize(query);
  std::string out;
  std::size_t i = 0;
  while (i < tokens.size()) {
    if (tokens[i].text != "{") {
      if (i > 0 && tokens[i].word && tokens[i - 1].word) out += ' ';
      out += tokens[i].text;
      ++i;
      continue;
    }
    // A selector: its matchers, each between top-level commas, sorted.
    std::vector<std::string> matchers;
    std::size_t start = i + 1;
    std::size_t j = start;
    for (; j < tokens.size() && tokens[j].text != "}"; ++j) {
      if (tokens[j].text == ",") {
        if (j > start) matchers.push_back(Join(tokens, start, j));
        start = j + 1;
      }
    }
    if (j > start) matchers.push_back(Join(tokens, start, j));
    std::sort(matchers.begin(), matchers.end());
    out += '{';
    for (std::size_t m = 0; m < matchers.size(); ++m) out += (m ? "," : "") + matchers[m];
    if (j < tokens.size()) out += '}';
    i = j + 1;
  }
  return out;
}

}  // namespace diagd::tools::metrics
