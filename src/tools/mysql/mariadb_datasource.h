// A MySQL or MariaDB database as a query_mysql datasource (Connector/C,
// libmariadb), read-only in depth.
//
// Each query, on a pooled connection:
// - runs inside `START TRANSACTION READ ONLY` ... `ROLLBACK`, on a session
//   that is itself `SET SESSION TRANSACTION READ ONLY`: the server refuses
//   any write, even through a stored function, whatever the account may do;
// - is one server-side prepared statement (never CLIENT_MULTI_STATEMENTS, and
//   the binary protocol has no stacked statements); a statement that returns
//   no result set (a write, SET, CALL, SELECT ... INTO OUTFILE / DUMPFILE /
//   @var) is refused after PREPARE and never executed;
// - has its parameters bound by type, never spliced into the text;
// - is limited in time by the server (MariaDB `max_statement_time`, MySQL
//   `max_execution_time`, from the deadline) and by the client's read and
//   write timeouts, and in rows by `sql_select_limit` (max_rows + 1).
// The connection speaks utf8mb4, over TCP, with LOAD DATA LOCAL and automatic
// reconnection off.
//
// The pool keeps up to `max_idle` connections for reuse (dropping those idle
// longer than `max_idle_time`) and opens at most `max_connections` at once
// per datasource; a query waits for a free one until its deadline.
//
// Thread safety: safe for concurrent use.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "tools/mysql/datasource.h"
#include "tools/mysql/datasource_url.h"

namespace diagd::tools::mysql {

struct MariadbOptions {
  // The datasource's timeout_ms: the client read/write timeouts are set from
  // it (plus a grace period) when a connection opens.
  std::chrono::milliseconds timeout{3000};
  std::size_t max_connections = 8;
  std::size_t max_idle = 4;
  std::chrono::seconds max_idle_time{60};
};

class MariadbDatasource final : public Datasource {
 public:
  // Connects lazily: an unreachable server is TOOL_UNAVAILABLE at query time,
  // so diagd starts even when one datasource is down.
  MariadbDatasource(MysqlLocation location, MariadbOptions options);
  ~MariadbDatasource() override;
  MariadbDatasource(const MariadbDatasource&) = delete;
  MariadbDatasource& operator=(const MariadbDatasource&) = delete;

  Result<QueryOutput, AdapterFailure> Query(std::string_view sql,
                                            const std::vector<SqlValue>& params,
                                            const QueryLimits& limits, MonoTime deadline,
                                            const std::stop_token& cancel = {}) override;

 private:
  class Pool;
  std::unique_ptr<Pool> pool_;
};

}  // namespace diagd::tools::mysql
