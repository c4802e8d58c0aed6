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

  std::string out;
  out.reserve(sql.size());
  std::size_t previous_end = 0;
  for (const Token* token : codes) {
    // Whatever separated two tokens (spaces, newlines, a comment) becomes one
    // space; tokens that touched still touch, so `a/**/b` stays two words.
    if (!out.empty() && token->offset > previous_end) out.push_back(' ');
    previous_end = token->offset + token->text.size();
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
