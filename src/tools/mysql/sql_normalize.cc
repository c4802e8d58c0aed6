#include "tools/mysql/sql_normalize.h"

#include <vector>

#include "core/text.h"
#include "tools/mysql/sql_keywords.h"
#include "tools/mysql/sql_lexer.h"

namespace diagd::tools::sql {

std::string NormalizeForScope(std::string_view sql) {
  LexOptions options = LexOptions::MySql();
  options.bracket_identifiers = true;  // SQLite's [x]; never valid MySQL, so no ambiguity
  LexResult lexed = Lex(sql, options);

  std::vector<const Token*> codes;
  for (const Token& token : lexed.tokens) {
    if (IsCode(token)) codes.push_back(&token);
  }
  while (!codes.empty() && codes.back()->kind == TokenKind::kSemicolon) codes.pop_back();

  auto is_dash = [](const Token* token) {
    return token != nullptr && token->kind == TokenKind::kOperator && token->text == "-";
  };
  std::string out;
  out.reserve(sql.size());
  std::size_t previous_end = 0;
  const Token* previous = nullptr;
  for (const Token* token : codes) {
    // Whatever separated two tokens (spaces, newlines, a comment) becomes one
    // space; tokens that touched still touch, so `a/**/b` stays two words.
    // Except two touching `-` (MySQL's `1--1`, minus minus one): a space or
    // the end of the text after them would make them a comment, and that is
    // what the output can put there (`a--/**/b` -> `a-- b`, `1--;` -> `1--`),
    // so the output would no longer read as the input did. `- -` always
    // reads as two minus signs. (Found by fuzz/sql_classifier_fuzz.cc.)
    bool touching = token->offset == previous_end;
    if (!out.empty() && (!touching || (is_dash(previous) && is_dash(token)))) out.push_back(' ');
    previous_end = token->offset + token->text.size();
    previous = token;
    if (token->kind == TokenKind::kWord) {
      std::string upper = text::AsciiUpper(token->text);
      if (IsKeyword(upper)) {
        out += upper;
        continue;
      }
    }
    out += token->text;
  }
  return out;
}

}  // namespace diagd::tools::sql
