// A lexer for the SQL that diagd sends to MySQL, MariaDB and SQLite.
//
// It does not parse: it cuts text into tokens so that the classifier can tell
// code from literals, quoted identifiers and comments. The databases do not
// agree on where a literal or a comment ends (backslash escapes, `#`, `--x`,
// `"x"`, `[x]`; MySQL's SQL modes change some), so the rules are options
// and the classifier lexes a statement once per possible reading; anything
// one reading finds unsafe is refused.
//
// Tokens are views into the lexed text: the caller keeps that text alive.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace diagd::tools::sql {

enum class TokenKind {
  kWord,               // keyword or unquoted identifier: [A-Za-z0-9_$] and bytes >= 0x80
  kQuotedIdentifier,   // `x`, and "x" / [x] when the options say so
  kString,             // '...', and "..." when double quotes delimit strings
  kBinaryLiteral,      // X'0F' and B'01'
  kNumber,             // 12, 1.5, .5, 1e-3, 0x1F, 0b01
  kPlaceholder,        // ?
  kOperator,           // punctuation and operators: ( ) , . = := <= <=> -> ...
  kSemicolon,          // ;
  kComment,            // -- ..., # ..., /* ... */: ignored by the databases
  kExecutableComment,  // /*! ... */ and /*M! ... */: MySQL and MariaDB run their content
  kOptimizerHint,      // /*+ ... */: MySQL acts on its content
};

struct Token {
  TokenKind kind = TokenKind::kOperator;
  std::string_view text;  // the token's bytes, quotes and comment markers included
  std::size_t offset = 0;
};

// The lexical rules that differ between the databases.
struct LexOptions {
  bool backslash_escapes = true;          // a backslash escapes the next byte of a string
  bool double_quotes_are_strings = true;  // "x" is a string (else a quoted identifier)
  bool bracket_identifiers = false;       // [x] is a quoted identifier
  bool hash_comments = true;              // # starts a line comment
  bool dash_comment_needs_space = true;   // -- is a comment only before a space or control byte

  // MySQL and MariaDB; the flags are the SQL modes that change lexing.
  static constexpr LexOptions MySql(bool ansi_quotes = false, bool no_backslash_escapes = false) {
    return {!no_backslash_escapes, !ansi_quotes, false, true, true};
  }
  static constexpr LexOptions Sqlite() { return {false, false, true, false, false}; }
};

struct LexResult {
  std::vector<Token> tokens;
  // The last token is a literal, quoted identifier or comment that the text
  // ends inside of; nothing after it was lexed.
  bool unterminated = false;
};

LexResult Lex(std::string_view sql, const LexOptions& options);

// True for tokens that a database reads as code (everything but kComment).
// Executable comments and hints count as code.
bool IsCode(const Token& token);

// The name a kWord or kQuotedIdentifier token stands for: the word itself, or
// the quoted text with its doubled quotes undone.
std::string IdentifierName(const Token& token);

}  // namespace diagd::tools::sql
