// tools::sql: the statement of every query_mysql call, written by the model.
// ClassifyStatement is the read-only gate; Lex is what it (and the scope
// normalizer) reads the text with.
//
// Checks: under every reading the tokens are the text's own bytes, in order,
// non-empty and apart only by white space, and only the last may be
// unterminated; an accepted statement is within the byte limit, valid UTF-8
// without NUL, and has no more placeholders than `?` bytes; the scope
// normalizer's output is a fixed point (normalizing it again changes nothing).
#include <algorithm>

#include "core/text.h"
#include "fuzz/fuzz_check.h"
#include "tools/mysql/sql_classifier.h"
#include "tools/mysql/sql_lexer.h"
#include "tools/mysql/sql_normalize.h"

namespace {

namespace sql = diagd::tools::sql;

constexpr std::size_t kMaxBytes = 10000;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

void CheckTokens(std::string_view text, const sql::LexOptions& options) {
  sql::LexResult lexed = sql::Lex(text, options);
  std::size_t end = 0;
  for (const sql::Token& token : lexed.tokens) {
    FUZZ_CHECK(!token.text.empty());
    FUZZ_CHECK(token.offset >= end && token.offset + token.text.size() <= text.size());
    FUZZ_CHECK(token.text.data() == text.data() + token.offset);
    for (std::size_t i = end; i < token.offset; ++i) FUZZ_CHECK(IsSpace(text[i]));
    end = token.offset + token.text.size();
  }
  if (lexed.unterminated) {
    FUZZ_CHECK(!lexed.tokens.empty() && end == text.size());
  } else {
    for (std::size_t i = end; i < text.size(); ++i) FUZZ_CHECK(IsSpace(text[i]));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = diagd::fuzz::Bytes(data, size);
  for (const sql::LexOptions& options :
       {sql::LexOptions::MySql(), sql::LexOptions::MySql(true, false),
        sql::LexOptions::MySql(false, true), sql::LexOptions::MySql(true, true),
        sql::LexOptions::Sqlite()}) {
    CheckTokens(text, options);
  }

  sql::Classification verdict = sql::ClassifyStatement(text, kMaxBytes);
  if (verdict.ok()) {
    FUZZ_CHECK(size <= kMaxBytes);
    FUZZ_CHECK(diagd::text::IsValidUtf8(text));
    FUZZ_CHECK(text.find('\0') == std::string_view::npos);
    FUZZ_CHECK(verdict.placeholder_count >= 0);
    FUZZ_CHECK(verdict.placeholder_count <= std::count(text.begin(), text.end(), '?'));
  } else {
    FUZZ_CHECK(std::string_view(sql::RejectionName(verdict.rejection)) != "NONE");
  }

  std::string normalized = sql::NormalizeForScope(text);
  FUZZ_CHECK(sql::NormalizeForScope(normalized) == normalized);
  return 0;
}
