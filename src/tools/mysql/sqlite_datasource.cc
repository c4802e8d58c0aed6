#include "tools/mysql/sqlite_datasource.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <memory>
#include <stop_token>

#include "core/overloaded.h"
#include "core/text.h"
#include "tools/mysql/row_collector.h"
#include "tools/mysql/server_message.h"

namespace diagd::tools::mysql {
namespace {

using Failure = Unexpected<AdapterFailure>;

// zeroblob(1e9), a runaway group_concat: nothing a diagnosis needs is larger.
constexpr int kMaxValueBytes = 16 * 1024 * 1024;
constexpr int kMaxSqliteSqlBytes = 100000;
// How often (in virtual machine steps) the deadline is checked: a step is
// tens of nanoseconds, a clock read about as much.
constexpr int kProgressSteps = 1000;

// Schema pragmas a model may read as table-valued functions
// (`SELECT * FROM pragma_table_info('orders')`). None of them writes, and
// none reveals a file path (database_list would).
constexpr std::array<std::string_view, 9> kReadablePragmas = {
    "table_info",  "table_xinfo",      "table_list",     "index_list",   "index_info",
    "index_xinfo", "foreign_key_list", "collation_list", "function_list"};

// Functions with effects beyond the query (file access, code loading). Most
// are not even compiled into the library; the authorizer refuses them anyway.
constexpr std::array<std::string_view, 5> kDeniedFunctions = {
    "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"};

constexpr std::array<std::string_view, 2> kSchemaTables = {"sqlite_master", "sqlite_schema"};

bool Contains(auto& list, const char* name) {
  if (name == nullptr) return false;
  std::string lower = text::AsciiLower(name);
  return std::find(list.begin(), list.end(), lower) != list.end();
}

// Allows reading and nothing else, whatever the statement is.
int Authorize(void*, int action, const char* arg1, const char* arg2, const char*, const char*) {
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      return Contains(kDeniedFunctions, arg2) ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_PRAGMA:
      // Only the schema pragmas above, which read and never set anything.
      return Contains(kReadablePragmas, arg1) ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_UPDATE:
      // SQLite asks this when it sets up a table-valued pragma; it cannot
      // write the schema here (read-only file, query_only, defensive mode,
      // and no statement that is not read-only ever runs).
      return Contains(kSchemaTables, arg1) ? SQLITE_OK : SQLITE_DENY;
    default:
      return SQLITE_DENY;
  }
}

// When a statement must stop: its deadline, or the run's cancel. The
// progress handler asks every kProgressSteps steps, on the query's thread.
struct StatementStop {
  MonoTime deadline;
  std::stop_token cancel;
};

int InterruptAtStop(void* context) {
  const auto& stop = *static_cast<const StatementStop*>(context);
  return stop.cancel.stop_requested() || std::chrono::steady_clock::now() >= stop.deadline ? 1 : 0;
}

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStmt {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using DbPtr = std::unique_ptr<sqlite3, CloseDb>;
using StmtPtr = std::unique_ptr<sqlite3_stmt, FinalizeStmt>;

bool Expired(MonoTime deadline) { return std::chrono::steady_clock::now() >= deadline; }

AdapterFailure QueryFailed(std::string_view message) {
  return {ToolErrorCode::kQueryFailed, SafeServerMessage(message)};
}

// What a SQLite result code means to the model.
AdapterFailure FailureOf(sqlite3* db, int rc, MonoTime deadline) {
  switch (rc & 0xff) {
    case SQLITE_INTERRUPT:  // by the deadline (Query names a cancel itself)
      return {ToolErrorCode::kToolTimeout, {}};
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      // Another process holds the file: a retry may find it free.
      return {Expired(deadline) ? ToolErrorCode::kToolTimeout : ToolErrorCode::kToolUnavailable,
              {}};
    case SQLITE_CANTOPEN:
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_IOERR:
    case SQLITE_PERM:
    case SQLITE_PROTOCOL:
    case SQLITE_FULL:
      return {ToolErrorCode::kToolUnavailable, {}};
    default:
      return QueryFailed(db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  }
}

// Everything that makes this connection unable to write or to run away,
// before any statement of the model's is prepared.
int Harden(sqlite3* db, StatementStop* stop) {
  sqlite3_extended_result_codes(db, 1);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  // Functions named in views and triggers of the file run as if untrusted.
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
  sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, kMaxSqliteSqlBytes);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
  if (int rc = sqlite3_exec(db, "PRAGMA query_only = ON", nullptr, nullptr, nullptr);
      rc != SQLITE_OK) {
    return rc;
  }
  auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
      stop->deadline - std::chrono::steady_clock::now());
  sqlite3_busy_timeout(db,
                       static_cast<int>(std::clamp<std::int64_t>(remaining.count(), 1, INT_MAX)));
  sqlite3_progress_handler(db, kProgressSteps, InterruptAtStop, stop);
  // Last: the pragma above is the one statement this connection runs that
  // the authorizer would refuse.
  return sqlite3_set_authorizer(db, Authorize, nullptr);
}

// A prepared statement's remaining text must hold no other statement, as
// SQLite itself reads it (comments and `;` are fine).
bool OnlyOneStatement(sqlite3* db, const char* rest, const char* end) {
  while (rest < end) {
    sqlite3_stmt* extra = nullptr;
    const char* next = nullptr;
    int rc = sqlite3_prepare_v2(db, rest, static_cast<int>(end - rest), &extra, &next);
    if (extra != nullptr) sqlite3_finalize(extra);
    if (rc != SQLITE_OK || extra != nullptr) return false;
    if (next == nullptr || next <= rest) break;
    rest = next;
  }
  return true;
}

int Bind(sqlite3_stmt* stmt, int index, const SqlValue& value) {
  return std::visit(Overloaded{[&](std::monostate) { return sqlite3_bind_null(stmt, index); },
                               [&](bool b) { return sqlite3_bind_int64(stmt, index, b ? 1 : 0); },
                               [&](std::int64_t i) { return sqlite3_bind_int64(stmt, index, i); },
                               [&](double d) { return sqlite3_bind_double(stmt, index, d); },
                               [&](const std::string& s) {
                                 return sqlite3_bind_text64(stmt, index, s.data(), s.size(),
                                                            SQLITE_TRANSIENT, SQLITE_UTF8);
                               }},
                    value);
}

SqlValue ReadCell(sqlite3_stmt* stmt, int column, RowCollector& rows) {
  switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_INTEGER:
      return static_cast<std::int64_t>(sqlite3_column_int64(stmt, column));
    case SQLITE_FLOAT:
      return DoubleCell(sqlite3_column_double(stmt, column));
    case SQLITE_TEXT: {
      const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
      auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt, column));
      std::size_t kept = std::min(size, rows.CellFetchBytes());
      return rows.Text(std::string(data != nullptr ? data : "", data != nullptr ? kept : 0),
                       kept < size);
    }
    case SQLITE_BLOB:
      return BinaryCell(static_cast<std::size_t>(sqlite3_column_bytes(stmt, column)));
    default:
      return std::monostate{};
  }
}

// The prepared statement's rows, stepped one by one within `limits`.
Result<QueryOutput, AdapterFailure> FetchRows(sqlite3* db, sqlite3_stmt* stmt,
                                              const QueryLimits& limits, MonoTime deadline,
                                              const std::stop_token& cancel) {
  RowCollector rows(limits);
  int columns = sqlite3_column_count(stmt);
  std::vector<std::string> names;
  for (int i = 0; i < columns; ++i) {
    const char* name = sqlite3_column_name(stmt, i);
    names.emplace_back(name != nullptr ? name : "");
  }
  rows.SetColumns(std::move(names));
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    std::vector<SqlValue> row;
    row.reserve(static_cast<std::size_t>(columns));
    for (int i = 0; i < columns; ++i) row.push_back(ReadCell(stmt, i, rows));
    if (!rows.Add(std::move(row))) break;
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    if (cancel.stop_requested()) return Failure({ToolErrorCode::kToolUnavailable, {}});
    return Failure(FailureOf(db, rc, deadline));
  }
  return std::move(rows).Finish();
}

}  // namespace

Result<QueryOutput, AdapterFailure> SqliteDatasource::Query(std::string_view sql,
                                                            const std::vector<SqlValue>& params,
                                                            const QueryLimits& limits,
                                                            MonoTime deadline,
                                                            const std::stop_token& cancel) {
  if (Expired(deadline)) return Failure({ToolErrorCode::kToolTimeout, {}});
  if (cancel.stop_requested()) return Failure({ToolErrorCode::kToolUnavailable, {}});
  if (sql.size() > static_cast<std::size_t>(kMaxSqliteSqlBytes)) {
    return Failure(QueryFailed("statement too long"));
  }
  // The progress handler reads `stop` through a pointer until the
  // connection closes, which happens before `stop` goes out of scope.
  StatementStop stop{deadline, cancel};
  sqlite3* raw_db = nullptr;
  // Never SQLITE_OPEN_CREATE, never read-write; no URI parsing of the path.
  int rc =
      sqlite3_open_v2(path_.c_str(), &raw_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  DbPtr db(raw_db);
  if (rc != SQLITE_OK) return Failure({ToolErrorCode::kToolUnavailable, {}});
  if (rc = Harden(db.get(), &stop); rc != SQLITE_OK) {
    return Failure(FailureOf(db.get(), rc, deadline));
  }

  sqlite3_stmt* raw_stmt = nullptr;
  const char* tail = nullptr;
  rc = sqlite3_prepare_v2(db.get(), sql.data(), static_cast<int>(sql.size()), &raw_stmt, &tail);
  StmtPtr stmt(raw_stmt);
  if (rc != SQLITE_OK) return Failure(FailureOf(db.get(), rc, deadline));
  if (stmt == nullptr) return Failure(QueryFailed("empty statement"));
  if (!OnlyOneStatement(db.get(), tail, sql.data() + sql.size())) {
    return Failure(QueryFailed("only one statement is allowed"));
  }
  // SQLite's own verdict, independent of the classifier and the authorizer.
  if (!sqlite3_stmt_readonly(stmt.get()) || sqlite3_column_count(stmt.get()) == 0) {
    return Failure(QueryFailed("only read-only statements that return rows are allowed"));
  }
  int placeholders = sqlite3_bind_parameter_count(stmt.get());
  if (static_cast<std::size_t>(placeholders) != params.size()) {
    return Failure(QueryFailed("the statement has " + std::to_string(placeholders) +
                               " placeholders but " + std::to_string(params.size()) +
                               " params were given"));
  }
  for (int i = 0; i < placeholders; ++i) {
    if (rc = Bind(stmt.get(), i + 1, params[static_cast<std::size_t>(i)]); rc != SQLITE_OK) {
      return Failure(FailureOf(db.get(), rc, deadline));
    }
  }

  return FetchRows(db.get(), stmt.get(), limits, deadline, cancel);
}

}  // namespace diagd::tools::mysql
