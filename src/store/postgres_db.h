// A thin layer over libpq connections for the PostgreSQL run store:
// parameters always sent out of line (never spliced into SQL; text, bytes or
// NULL), results read by row and column, a transaction guard that rolls back
// unless committed, a small connection pool, and server conditions turned
// into `Error` values that name the operation and the SQLSTATE but never SQL
// text or data (the server's messages can quote both).
//
// Thread safety: a `PgConn` is used by one thread at a time (libpq
// connections are not thread-safe); `PgPool` is safe for concurrent use and
// hands each connection to one caller at a time.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/fiber.h"
#include "core/result.h"

namespace diagd::store {

// The parameters of one statement, $1, $2... in the order they are added.
class PgParams {
 public:
  PgParams& Text(std::string_view text);
  // Sent in binary: for bytea columns, whose bytes need not be UTF-8.
  PgParams& Bytes(std::string_view bytes);
  PgParams& Int(std::int64_t value);
  PgParams& Null();
  PgParams& OptionalText(const std::optional<std::string>& text);  // NULL when absent
  int size() const { return static_cast<int>(values_.size()); }

 private:
  friend class PgConn;
  std::vector<std::string> values_;
  std::vector<bool> null_;
  std::vector<int> formats_;  // 0 text, 1 binary
};

// The rows of one statement, every cell in text format (bytea in hex).
class PgRows {
 public:
  explicit PgRows(PGresult* result) : result_(result, &PQclear) {}
  int size() const { return PQntuples(result_.get()); }
  bool IsNull(int row, int column) const { return PQgetisnull(result_.get(), row, column) != 0; }
  std::string Text(int row, int column) const;  // "" for NULL
  std::optional<std::string> OptionalText(int row, int column) const;
  std::int64_t Int(int row, int column) const;
  // A bytea cell's bytes ("" for NULL).
  std::string Bytes(int row, int column) const;
  // Rows an INSERT, UPDATE or DELETE touched.
  std::int64_t Affected() const;

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> result_;
};

// One connection to the server.
class PgConn {
 public:
  // `url`: postgresql://... or postgres://... (libpq's URI syntax, any of
  // its parameters). UNAVAILABLE when the server cannot be reached or
  // refuses the login; the message is libpq's, which never holds the
  // password.
  static Result<std::unique_ptr<PgConn>> Connect(const std::string& url);
  ~PgConn();
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  // One statement with bound parameters. `what` names the operation in
  // errors: "run store: <what>: <condition> (SQLSTATE xxxxx)".
  Result<PgRows> Query(const char* sql, const PgParams& params, const char* what);
  Result<PgRows> Query(const char* sql, const char* what) { return Query(sql, PgParams(), what); }
  // Constant SQL, several statements allowed (migrations), no parameters.
  Status Exec(const char* sql, const char* what);
  // The SQLSTATE of the last failed statement ("" after a success).
  const std::string& last_sqlstate() const { return last_sqlstate_; }
  // Whether the connection is gone (the server closed it, or it broke):
  // the pool drops it instead of handing it out again.
  bool Broken() const { return PQstatus(conn_) != CONNECTION_OK; }

 private:
  explicit PgConn(PGconn* conn) : conn_(conn) {}
  Error Failure(const PGresult* result, const char* what);

  PGconn* conn_;
  std::string last_sqlstate_;
};

// BEGIN ... COMMIT on one connection; rolls back unless committed.
class PgTransaction {
 public:
  explicit PgTransaction(PgConn& conn) : conn_(conn) {}
  ~PgTransaction();
  PgTransaction(const PgTransaction&) = delete;
  PgTransaction& operator=(const PgTransaction&) = delete;

  // `begin`: "BEGIN" or e.g. "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY".
  Status Begin(const char* begin, const char* what);
  Status Commit();

 private:
  PgConn& conn_;
  const char* what_ = "";
  bool open_ = false;
};

// Up to `size` connections to one server, opened on demand; a broken one is
// dropped when it comes back, so the next caller gets a fresh connection.
// Waiting for a connection parks a run's fiber instead of holding its worker.
class PgPool {
 public:
  PgPool(std::string url, int size) : url_(std::move(url)), size_(size) {}
  ~PgPool();
  PgPool(const PgPool&) = delete;
  PgPool& operator=(const PgPool&) = delete;

  // A connection for one caller, given back when it goes out of scope.
  class Lease {
   public:
    Lease(PgPool& pool, std::unique_ptr<PgConn> conn) : pool_(&pool), conn_(std::move(conn)) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    PgConn& operator*() const { return *conn_; }
    PgConn* operator->() const { return conn_.get(); }

   private:
    PgPool* pool_;
    std::unique_ptr<PgConn> conn_;
  };

  // UNAVAILABLE (as PgConn::Connect) when a new connection fails.
  Result<Lease> Acquire();
  // Hands `conn` to the pool (the one the store opened to migrate).
  void Adopt(std::unique_ptr<PgConn> conn);

 private:
  void Release(std::unique_ptr<PgConn> conn);

  const std::string url_;
  const int size_;
  std::mutex mu_;
  runtime::Condition cv_;
  std::vector<std::unique_ptr<PgConn>> idle_;  // guarded by mu_
  int open_ = 0;                               // idle and leased; guarded by mu_
};

// `read(conn)` on a pooled connection; once more on a fresh one when the
// pooled one was broken (the server restarted, or closed an idle session):
// a read has no effect to repeat. `read` returns a Result.
template <typename F>
auto ReadWithRetry(PgPool& pool, F read) -> decltype(read(std::declval<PgConn&>())) {
  for (int attempt = 0;; ++attempt) {
    Result<PgPool::Lease> conn = pool.Acquire();
    if (!conn) return conn.error();
    auto got = read(**conn);
    if (got || !(*conn)->Broken() || attempt > 0) return got;
  }
}

}  // namespace diagd::store
