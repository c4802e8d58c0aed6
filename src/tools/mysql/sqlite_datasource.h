// A SQLite file as a query_mysql datasource, read-only in depth.
//
// Each query opens its own connection (cheap for a local file, and no state
// survives from one query to the next) with, in order of defence:
// - SQLITE_OPEN_READONLY (the file is never created or written) and
//   `PRAGMA query_only = ON`;
// - an authorizer that allows only reading (SELECT, reads, recursive CTEs,
//   ordinary functions and a few schema pragmas such as `pragma_table_info`)
//   and denies everything else: writes, DDL, transactions, ATTACH, PRAGMA
//   assignments, load_extension/readfile/writefile;
// - extension loading off, untrusted schema, defensive mode, no attached
//   databases, a 16 MiB limit on any string or blob;
// - exactly one statement (a tail with a second statement is refused), and
//   it must be read-only by SQLite's own judgement (`sqlite3_stmt_readonly`)
//   and return columns, else it is not run;
// - a progress handler that interrupts the statement at the deadline.
//
// Thread safety: safe for concurrent use (connections are per query).
#pragma once

#include <string>

#include "tools/mysql/datasource.h"

namespace diagd::tools::mysql {

class SqliteDatasource final : public Datasource {
 public:
  // Touches nothing: a missing or unreadable file is TOOL_UNAVAILABLE at
  // query time, so diagd starts even when one datasource is down.
  explicit SqliteDatasource(std::string path) : path_(std::move(path)) {}

  Result<QueryOutput, AdapterFailure> Query(std::string_view sql,
                                            const std::vector<SqlValue>& params,
                                            const QueryLimits& limits, MonoTime deadline,
                                            const std::stop_token& cancel = {}) override;

 private:
  std::string path_;
};

}  // namespace diagd::tools::mysql
