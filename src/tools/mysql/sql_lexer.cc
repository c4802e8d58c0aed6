#include "tools/mysql/sql_lexer.h"

#include <array>

namespace diagd::tools::sql {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

bool IsSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

bool IsHexDigit(unsigned char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Non-ASCII bytes are identifier characters in both MySQL and SQLite; the
// classifier requires valid UTF-8, so they never hide an ASCII quote.
bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_' || c == '$' ||
         c >= 0x80;
}

// Multi-byte operators, longest first. Only `:=` matters to the classifier;
// the others are kept whole so that normalized text reads naturally.
constexpr std::array<std::string_view, 13> kOperators = {
    "<=>", "->>", ":=", "<=", ">=", "<>", "!=", "||", "&&", "<<", ">>", "->", "=="};

class Lexer {
 public:
  Lexer(std::string_view sql, const LexOptions& options) : sql_(sql), options_(options) {}

  LexResult Run() {
    while (pos_ < sql_.size() && !result_.unterminated) {
      if (IsSpace(At(pos_))) {
        ++pos_;
        continue;
      }
      LexOne();
    }
    return std::move(result_);
  }

 private:
  unsigned char At(std::size_t i) const {
    return i < sql_.size() ? static_cast<unsigned char>(sql_[i]) : 0;
  }

  // Emits [pos_, end) as a token; `end == kNone` means the text ended inside it.
  void Emit(TokenKind kind, std::size_t end) {
    if (end == kNone) {
      end = sql_.size();
      result_.unterminated = true;
    }
    result_.tokens.push_back({kind, sql_.substr(pos_, end - pos_), pos_});
    pos_ = end;
  }

  // The end of a literal or quoted identifier opened by `quote` at pos_:
  // a doubled quote stands for itself; with `escapes` a backslash takes the
  // next byte literally.
  std::size_t QuotedEnd(char quote, bool escapes) const {
    for (std::size_t i = pos_ + 1; i < sql_.size(); ++i) {
      if (escapes && sql_[i] == '\\') {
        ++i;
      } else if (sql_[i] == quote) {
        if (i + 1 < sql_.size() && sql_[i + 1] == quote) {
          ++i;
        } else {
          return i + 1;
        }
      }
    }
    return kNone;
  }

  std::size_t LineEnd() const {
    std::size_t nl = sql_.find('\n', pos_);
    return nl == kNone ? sql_.size() : nl;
  }

  bool IsDashComment() const {
    if (At(pos_) != '-' || At(pos_ + 1) != '-') return false;
    if (!options_.dash_comment_needs_space) return true;
    // MySQL: the second dash must be followed by a space or control byte, or
    // end the text; `1--1` is one minus minus one.
    unsigned char next = At(pos_ + 2);
    return pos_ + 2 >= sql_.size() || next <= 0x20 || next == 0x7f;
  }

  void LexBlockComment() {
    std::string_view rest = sql_.substr(pos_ + 2);
    TokenKind kind = TokenKind::kComment;
    if (rest.starts_with("!") || rest.starts_with("M!")) {
      kind = TokenKind::kExecutableComment;
    } else if (rest.starts_with("+")) {
      kind = TokenKind::kOptimizerHint;
    }
    std::size_t close = sql_.find("*/", pos_ + 2);
    Emit(kind, close == kNone ? kNone : close + 2);
  }

  std::size_t NumberEnd() const {
    std::size_t i = pos_;
    if (At(i) == '0' && (At(i + 1) == 'x' || At(i + 1) == 'X') && IsHexDigit(At(i + 2))) {
      for (i += 2; IsHexDigit(At(i)); ++i) {
      }
      return i;
    }
    if (At(i) == '0' && (At(i + 1) == 'b' || At(i + 1) == 'B') &&
        (At(i + 2) == '0' || At(i + 2) == '1')) {
      for (i += 2; At(i) == '0' || At(i) == '1'; ++i) {
      }
      return i;
    }
    while (IsDigit(At(i))) ++i;
    if (At(i) == '.') {
      for (++i; IsDigit(At(i)); ++i) {
      }
    }
    if (At(i) == 'e' || At(i) == 'E') {
      std::size_t exponent = i + 1;
      if (At(exponent) == '+' || At(exponent) == '-') ++exponent;
      if (IsDigit(At(exponent))) {
        for (i = exponent; IsDigit(At(i)); ++i) {
        }
      }
    }
    // Letters straight after a number (`1abc`, `0xZZ`) start a separate word
    // token: seeing one word too many can only make the classifier stricter.
    return i;
  }

  void LexOne() {
    unsigned char c = At(pos_);
    unsigned char next = At(pos_ + 1);
    if (IsDashComment() || (c == '#' && options_.hash_comments)) {
      Emit(TokenKind::kComment, LineEnd());
    } else if (c == '/' && next == '*') {
      LexBlockComment();
    } else if (c == '\'') {
      Emit(TokenKind::kString, QuotedEnd('\'', options_.backslash_escapes));
    } else if (c == '"' && options_.double_quotes_are_strings) {
      Emit(TokenKind::kString, QuotedEnd('"', options_.backslash_escapes));
    } else if (c == '"' || c == '`') {
      Emit(TokenKind::kQuotedIdentifier, QuotedEnd(static_cast<char>(c), false));
    } else if (c == '[' && options_.bracket_identifiers) {
      std::size_t close = sql_.find(']', pos_ + 1);
      Emit(TokenKind::kQuotedIdentifier, close == kNone ? kNone : close + 1);
    } else if ((c == 'x' || c == 'X' || c == 'b' || c == 'B') && next == '\'') {
      // Hex and bit literals take no escapes in either database.
      std::size_t close = sql_.find('\'', pos_ + 2);
      Emit(TokenKind::kBinaryLiteral, close == kNone ? kNone : close + 1);
    } else if (IsDigit(c) || (c == '.' && IsDigit(next))) {
      Emit(TokenKind::kNumber, NumberEnd());
    } else if (IsWordByte(c)) {
      std::size_t end = pos_;
      while (end < sql_.size() && IsWordByte(At(end))) ++end;
      Emit(TokenKind::kWord, end);
    } else if (c == '?') {
      Emit(TokenKind::kPlaceholder, pos_ + 1);
    } else if (c == ';') {
      Emit(TokenKind::kSemicolon, pos_ + 1);
    } else {
      std::string_view rest = sql_.substr(pos_);
      std::size_t length = 1;
      for (std::string_view op : kOperators) {
        if (rest.starts_with(op)) {
          length = op.size();
          break;
        }
      }
      Emit(TokenKind::kOperator, pos_ + length);
    }
  }

  std::string_view sql_;
  LexOptions options_;
  std::size_t pos_ = 0;
  LexResult result_;
};

}  // namespace

LexResult Lex(std::string_view sql, const LexOptions& options) { return Lexer(sql, options).Run(); }

bool IsCode(const Token& token) { return token.kind != TokenKind::kComment; }

std::string IdentifierName(const Token& token) {
  std::string_view text = token.text;
  if (token.kind != TokenKind::kQuotedIdentifier || text.size() < 2) return std::string(text);
  char open = text.front();
  char close = open == '[' ? ']' : open;
  std::string_view inner = text.substr(1, text.size() - 2);
  if (text.back() != close) inner = text.substr(1);  // unterminated: keep what is there
  std::string name;
  for (std::size_t i = 0; i < inner.size(); ++i) {
    name.push_back(inner[i]);
    if (open != '[' && inner[i] == close && i + 1 < inner.size() && inner[i + 1] == close) ++i;
  }
  return name;
}

}  // namespace diagd::tools::sql
