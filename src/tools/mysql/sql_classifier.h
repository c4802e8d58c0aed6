// The read-only gate in front of every `query_mysql` call.
//
// `ClassifyStatement` decides from the text alone whether a statement is one
// read-only query that diagd may send to MySQL, MariaDB or SQLite. It is a
// security boundary and errs towards refusing: a read-only statement it does
// not understand is refused, never guessed at. The rules and their reasons are
// in `docs/sql-safety.md`. It is one layer: datasources must still connect
// with a read-only account.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string_view>

namespace diagd::tools::sql {

// Why a statement is refused. The names are stable: they reach the model as
// the `reason` of an INVALID_TOOL_INPUT observation.
enum class Rejection {
  kNone,
  kEmpty,               // nothing but whitespace, comments and `;`
  kMultipleStatements,  // code after the first `;`
  kNotReadOnly,         // not a SELECT/WITH/SHOW/DESCRIBE/EXPLAIN, or writes somewhere inside
  kForbiddenFunction,   // SLEEP, BENCHMARK, LOAD_FILE, GET_LOCK, load_extension, ...
  kLockingRead,         // FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE
  kIntoOutfile,         // INTO OUTFILE / DUMPFILE / @var
  kExecutableComment,   // /*! */, /*M! */ and optimizer hints /*+ */
  kUnterminated,        // a literal, quoted identifier or comment left open
  kTooLong,             // longer than the byte limit
};

// "EMPTY", "MULTIPLE_STATEMENTS", "NOT_READ_ONLY", "FORBIDDEN_FUNCTION",
// "LOCKING_READ", "INTO_OUTFILE", "EXECUTABLE_COMMENT", "UNTERMINATED",
// "TOO_LONG"; "NONE" for kNone.
const char* RejectionName(Rejection rejection);

struct Classification {
  Rejection rejection = Rejection::kNone;
  // Number of `?` placeholders, outside literals and comments. Meaningful
  // only when ok(); counted by MySQL's lexical rules.
  int placeholder_count = 0;

  bool ok() const { return rejection == Rejection::kNone; }
};

// Accepts one SELECT, WITH ... SELECT, `(` SELECT, SHOW, DESCRIBE/DESC or
// EXPLAIN (of a SELECT or a table) with at most one trailing `;`. Statements
// longer than `max_bytes`, with a NUL byte or with invalid UTF-8 are refused
// (the last two as kNotReadOnly: drivers and charsets could read them
// differently from this lexer).
Classification ClassifyStatement(std::string_view sql, std::size_t max_bytes = 10000);

}  // namespace diagd::tools::sql
