#include "tools/mysql/sql_classifier.h"

#include <array>
#include <span>
#include <string>
#include <vector>

#include "core/text.h"
#include "tools/mysql/sql_keywords.h"
#include "tools/mysql/sql_lexer.h"

namespace diagd::tools::sql {
namespace {

constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);

// Every way MySQL, MariaDB and SQLite may cut the same text into tokens. A
// statement passes only if it passes under each: a literal that one reading
// closes early would otherwise hide code from the others
// (`'a\' --x, SLEEP(9) -- '` is one string to default MySQL, one string and a
// comment to SQLite, and a SLEEP call to MySQL with NO_BACKSLASH_ESCAPES).
constexpr std::array<LexOptions, 5> kReadings = {
    LexOptions::MySql(),
    LexOptions::MySql(/*ansi_quotes=*/true),
    LexOptions::MySql(/*ansi_quotes=*/false, /*no_backslash_escapes=*/true),
    LexOptions::MySql(/*ansi_quotes=*/true, /*no_backslash_escapes=*/true),
    LexOptions::Sqlite(),
};

// A token a database reads as code, with its name upper-cased once.
struct Code {
  TokenKind kind;
  std::string_view text;
  std::string upper;  // kWord and kQuotedIdentifier: the name in ASCII upper case
};

using Codes = std::span<const Code>;

bool IsKw(const Code& code, std::string_view upper_word) {
  return code.kind == TokenKind::kWord && code.upper == upper_word;
}

bool IsOp(const Code& code, std::string_view op) {
  return code.kind == TokenKind::kOperator && code.text == op;
}

bool IsKwAt(Codes codes, std::size_t i, std::string_view upper_word) {
  return i < codes.size() && IsKw(codes[i], upper_word);
}

bool IsOpAt(Codes codes, std::size_t i, std::string_view op) {
  return i < codes.size() && IsOp(codes[i], op);
}

// A table, column or CTE name: quoted, or a word that is not reserved.
bool IsNameAt(Codes codes, std::size_t i) {
  if (i >= codes.size()) return false;
  const Code& code = codes[i];
  return code.kind == TokenKind::kQuotedIdentifier ||
         (code.kind == TokenKind::kWord && !IsReservedWord(code.upper));
}

// The index after the `)` that closes the `(` at `open`, or kNoIndex.
std::size_t AfterParens(Codes codes, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < codes.size(); ++i) {
    if (IsOp(codes[i], "(")) ++depth;
    if (IsOp(codes[i], ")") && --depth == 0) return i + 1;
  }
  return kNoIndex;
}

Rejection CheckWith(Codes codes, std::size_t pos);

// A query expression must start at `pos`: SELECT, WITH ..., or either in
// parentheses.
Rejection CheckQuery(Codes codes, std::size_t pos) {
  while (IsOpAt(codes, pos, "(")) ++pos;
  if (IsKwAt(codes, pos, "SELECT")) return Rejection::kNone;
  if (IsKwAt(codes, pos, "WITH")) return CheckWith(codes, pos + 1);
  return Rejection::kNotReadOnly;
}

// `pos` is just after WITH. Each CTE body and the main statement must be
// queries: MySQL and SQLite already insist, PostgreSQL-style
// `WITH x AS (DELETE ... RETURNING *)` is refused here whatever the server.
Rejection CheckWith(Codes codes, std::size_t pos) {
  if (IsKwAt(codes, pos, "RECURSIVE")) ++pos;
  while (true) {
    if (!IsNameAt(codes, pos)) return Rejection::kNotReadOnly;
    ++pos;
    if (IsOpAt(codes, pos, "(")) {  // column list
      pos = AfterParens(codes, pos);
      if (pos == kNoIndex) return Rejection::kNotReadOnly;
    }
    if (!IsKwAt(codes, pos, "AS")) return Rejection::kNotReadOnly;
    ++pos;
    if (IsKwAt(codes, pos, "NOT")) ++pos;
    if (IsKwAt(codes, pos, "MATERIALIZED")) ++pos;
    if (!IsOpAt(codes, pos, "(")) return Rejection::kNotReadOnly;
    std::size_t end = AfterParens(codes, pos);
    if (end == kNoIndex) return Rejection::kNotReadOnly;
    Rejection body = CheckQuery(codes.subspan(pos + 1, end - pos - 2), 0);
    if (body != Rejection::kNone) return body;
    pos = end;
    if (!IsOpAt(codes, pos, ",")) return CheckQuery(codes, pos);
    ++pos;
  }
}

// `pos` is just after EXPLAIN, DESCRIBE or DESC (synonyms in MySQL). Accepts
// the plan of a query, or the table form `EXPLAIN tbl [column | 'pattern']`.
// EXPLAIN ANALYZE runs the statement; EXPLAIN of DML, FOR CONNECTION and
// anything else is refused.
Rejection CheckExplain(Codes codes, std::size_t pos) {
  while (true) {
    if (IsKwAt(codes, pos, "QUERY") && IsKwAt(codes, pos + 1, "PLAN")) {  // SQLite
      pos += 2;
    } else if (IsKwAt(codes, pos, "EXTENDED") || IsKwAt(codes, pos, "PARTITIONS")) {
      ++pos;
    } else if (IsKwAt(codes, pos, "FORMAT") && IsOpAt(codes, pos + 1, "=") &&
               pos + 2 < codes.size() && codes[pos + 2].kind == TokenKind::kWord) {
      pos += 3;
    } else {
      break;
    }
  }
  if (IsOpAt(codes, pos, "(") || IsKwAt(codes, pos, "SELECT") || IsKwAt(codes, pos, "WITH")) {
    return CheckQuery(codes, pos);
  }
  if (!IsNameAt(codes, pos)) return Rejection::kNotReadOnly;
  ++pos;
  if (IsOpAt(codes, pos, ".") && IsNameAt(codes, pos + 1)) pos += 2;  // db.tbl
  if (IsNameAt(codes, pos) || (pos < codes.size() && codes[pos].kind == TokenKind::kString)) {
    ++pos;
  }
  return pos == codes.size() ? Rejection::kNone : Rejection::kNotReadOnly;
}

// The statement as a whole: what it starts with decides what it is.
Rejection CheckShape(Codes codes) {
  const Code& first = codes.front();
  if (IsOp(first, "(") || IsKw(first, "SELECT") || IsKw(first, "WITH")) {
    return CheckQuery(codes, 0);
  }
  if (IsKw(first, "SHOW")) {
    // Every SHOW statement of MySQL and MariaDB reads; SQLite has none.
    return codes.size() > 1 ? Rejection::kNone : Rejection::kNotReadOnly;
  }
  if (IsKw(first, "EXPLAIN") || IsKw(first, "DESCRIBE") || IsKw(first, "DESC")) {
    return CheckExplain(codes, 1);
  }
  return Rejection::kNotReadOnly;
}

// The read-only uses of writing words.
bool IsReadOnlyUse(Codes codes, std::size_t i) {
  const std::string& word = codes[i].upper;
  if ((word == "REPLACE" || word == "INSERT" || word == "TRUNCATE") && IsOpAt(codes, i + 1, "(")) {
    return true;  // MySQL string and number functions of the same name
  }
  if (word == "SET" && i > 0 && IsKw(codes[i - 1], "CHARACTER")) return true;
  return word == "CREATE" && i == 1 && IsKw(codes[0], "SHOW");
}

// Rules that hold anywhere in the statement, subqueries included. The first
// offending token, in text order, names the rejection.
Rejection ScanCode(Codes codes) {
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const Code& code = codes[i];
    if (code.kind == TokenKind::kOperator) {
      // `@v := expr` assigns; MySQL lexes `:=` as one token, `: =` is refused
      // too rather than trusted to be a syntax error.
      if (code.text == ":=" || (code.text == ":" && IsOpAt(codes, i + 1, "="))) {
        return Rejection::kNotReadOnly;
      }
      continue;
    }
    // A quoted name can call a built-in too (`sleep`(1), "load_extension"(...)).
    bool is_name = code.kind == TokenKind::kWord || code.kind == TokenKind::kQuotedIdentifier;
    if (is_name && IsOpAt(codes, i + 1, "(") && IsForbiddenFunction(code.upper)) {
      return Rejection::kForbiddenFunction;
    }
    if (code.kind != TokenKind::kWord) continue;
    const std::string& word = code.upper;
    if (word == "FOR" && (IsKwAt(codes, i + 1, "UPDATE") || IsKwAt(codes, i + 1, "SHARE") ||
                          IsKwAt(codes, i + 1, "NO") || IsKwAt(codes, i + 1, "KEY"))) {
      return Rejection::kLockingRead;
    }
    // LOCK IN SHARE MODE; LOCK TABLES is refused earlier as a statement.
    if (word == "LOCK") return Rejection::kLockingRead;
    if (word == "INTO" || word == "OUTFILE" || word == "DUMPFILE") return Rejection::kIntoOutfile;
    // MariaDB's NEXT VALUE FOR seq advances the sequence.
    if (word == "NEXT" && IsKwAt(codes, i + 1, "VALUE")) return Rejection::kForbiddenFunction;
    if (IsWritingWord(word) && !IsReadOnlyUse(codes, i)) return Rejection::kNotReadOnly;
  }
  return Rejection::kNone;
}

Classification ClassifyReading(std::string_view sql, const LexOptions& options) {
  LexResult lexed = Lex(sql, options);
  for (const Token& token : lexed.tokens) {
    if (token.kind == TokenKind::kExecutableComment || token.kind == TokenKind::kOptimizerHint) {
      return {Rejection::kExecutableComment};
    }
  }
  if (lexed.unterminated) return {Rejection::kUnterminated};

  std::vector<Code> codes;
  for (const Token& token : lexed.tokens) {
    if (!IsCode(token)) continue;
    std::string upper;
    if (token.kind == TokenKind::kWord || token.kind == TokenKind::kQuotedIdentifier) {
      upper = text::AsciiUpper(IdentifierName(token));
    }
    codes.push_back({token.kind, token.text, std::move(upper)});
  }
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if (codes[i].kind != TokenKind::kSemicolon) continue;
    if (i + 1 < codes.size()) return {Rejection::kMultipleStatements};
    codes.pop_back();
  }
  if (codes.empty()) return {Rejection::kEmpty};

  Rejection rejection = CheckShape(codes);
  if (rejection == Rejection::kNone) rejection = ScanCode(codes);
  if (rejection != Rejection::kNone) return {rejection};

  Classification result;
  for (const Code& code : codes) {
    if (code.kind == TokenKind::kPlaceholder) ++result.placeholder_count;
  }
  return result;
}

}  // namespace

const char* RejectionName(Rejection rejection) {
  switch (rejection) {
    case Rejection::kNone:
      return "NONE";
    case Rejection::kEmpty:
      return "EMPTY";
    case Rejection::kMultipleStatements:
      return "MULTIPLE_STATEMENTS";
    case Rejection::kNotReadOnly:
      return "NOT_READ_ONLY";
    case Rejection::kForbiddenFunction:
      return "FORBIDDEN_FUNCTION";
    case Rejection::kLockingRead:
      return "LOCKING_READ";
    case Rejection::kIntoOutfile:
      return "INTO_OUTFILE";
    case Rejection::kExecutableComment:
      return "EXECUTABLE_COMMENT";
    case Rejection::kUnterminated:
      return "UNTERMINATED";
    case Rejection::kTooLong:
      return "TOO_LONG";
  }
  return "NOT_READ_ONLY";
}

Classification ClassifyStatement(std::string_view sql, std::size_t max_bytes) {
  if (sql.size() > max_bytes) return {Rejection::kTooLong};
  // Drivers and the servers' own lexers may stop at a NUL; text that is not
  // UTF-8 is not what a utf8mb4 connection (the executor's charset) reads.
  // Either way this lexer could not see what the server sees.
  if (sql.find('\0') != std::string_view::npos || !text::IsValidUtf8(sql)) {
    return {Rejection::kNotReadOnly};
  }
  Classification first;
  for (std::size_t i = 0; i < kReadings.size(); ++i) {
    Classification reading = ClassifyReading(sql, kReadings[i]);
    if (!reading.ok()) return reading;
    if (i == 0) first = reading;  // placeholders are counted by MySQL's default rules
  }
  return first;
}

}  // namespace diagd::tools::sql
