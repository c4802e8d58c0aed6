// A thin layer over one SQLite connection for the run store: prepared
// statements cached per SQL text, parameters always bound (never spliced into
// SQL), a transaction guard that rolls back unless committed, and SQLite
// result codes turned into `Error` values whose message names the operation
// and the SQLite condition but never SQL text or data.
//
// Thread safety: none. A `SqliteDb` and the statements it hands out are used
// by one thread at a time; `SqliteRunStore` serializes all use with a mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace diagd::store {

// "run store: <operation>: <SQLite's text for the code>", UNAVAILABLE: the
// SQLite condition (locked, I/O error, full disk...) is the caller's to
// report or retry.
Error SqliteError(int code, std::string_view operation);

// A cached statement in use. Resets itself and clears its bindings when it
// goes out of scope, so the cache can hand it out again. Bind indexes are
// 1-based, as in SQLite; a failed bind is reported by the next Step().
class Statement {
 public:
  Statement(sqlite3_stmt* stmt, std::string_view operation) : stmt_(stmt), operation_(operation) {}
  ~Statement();
  Statement(Statement&& other) noexcept
      : stmt_(std::exchange(other.stmt_, nullptr)),
        operation_(other.operation_),
        bind_error_(other.bind_error_) {}
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // A string the caller holds is bound as it is, not copied: it must stay
  // as it is until this statement is done with (its Step or Run), as the
  // record being written does. A temporary or a view is copied. (Debian's
  // SQLite is built without lookaside memory, so each copy was a malloc:
  // a fifth of the run store's allocations.)
  Statement& Bind(int index, const std::string& text);
  Statement& Bind(int index, std::string&& text);
  Statement& Bind(int index, std::string_view text);
  Statement& Bind(int index, std::int64_t value);
  // NULL when absent; held or copied as Bind is.
  Statement& BindOptional(int index, const std::optional<std::string>& text);
  Statement& BindOptional(int index, std::optional<std::string>&& text);
  Statement& BindNull(int index);

  // True when a row is ready, false when the statement is done.
  Result<bool> Step();
  // Steps to the end (for statements that return no rows).
  Status Run();

  bool IsNull(int column) const;
  std::int64_t Int(int column) const;
  std::string Text(int column) const;  // "" for NULL
  std::optional<std::string> OptionalText(int column) const;

 private:
  Statement& BindText(int index, std::string_view text, bool copy);

  sqlite3_stmt* stmt_;
  std::string_view operation_;
  int bind_error_ = 0;
};

class SqliteDb {
 public:
  enum class OpenMode {
    kCreate,    // the file is created when missing
    kExisting,  // a missing file is an error (a reader never makes one)
  };

  // Opens the database file at `path`, or a private in-memory database for
  // ":memory:". Nothing is read from the file yet: SQLite notices a file
  // that is no database at the first statement.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path,
                                                OpenMode mode = OpenMode::kCreate);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs constant SQL (one or more statements; results are discarded).
  // Never pass text built from data: use Prepare and Bind for that.
  Status Exec(const char* sql, std::string_view operation);

  // A statement for the constant `sql`, prepared once and cached by its
  // address: `sql` must live as long as this connection (a literal, or a
  // static), never a text built per call. At most one Statement per SQL
  // text may be alive at a time.
  Result<Statement> Prepare(const char* sql, std::string_view operation);

  // The primary result code of the last failure on this connection.
  int LastErrorCode() const;
  // Rows changed by the last INSERT, UPDATE or DELETE.
  std::int64_t Changes() const;

 private:
  explicit SqliteDb(sqlite3* db) : db_(db) {}

  sqlite3* db_;
  // Keyed by the SQL literal's address: every caller passes a constant.
  std::unordered_map<const char*, sqlite3_stmt*> cache_;
};

// BEGIN IMMEDIATE (writers) or BEGIN (readers) ... COMMIT; rolls back in the
// destructor unless Commit() succeeded. IMMEDIATE takes the write lock up
// front so that two processes sharing the file wait on busy_timeout instead
// of failing on a read-to-write upgrade.
class Transaction {
 public:
  enum class Kind { kRead, kWrite };

  explicit Transaction(SqliteDb& db) : db_(db) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status Begin(Kind kind, std::string_view operation);
  Status Commit();

 private:
  SqliteDb& db_;
  std::string_view operation_;
  bool open_ = false;
};

}  // namespace diagd::store
