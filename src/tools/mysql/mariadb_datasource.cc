#include "tools/mysql/mariadb_datasource.h"

#include <mysql.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stop_token>
#include <vector>

#include "tools/mysql/mariadb_statement.h"

namespace diagd::tools::mysql {
namespace {

using Failure = Unexpected<AdapterFailure>;

// The server's statement timeout fires first; the client's read timeout is
// the backstop for a server or network that stops answering altogether.
constexpr std::chrono::seconds kClientTimeoutGrace{2};

void InitLibraryOnce() {
  // mysql_init() would initialize the library lazily, but not thread-safely.
  static std::once_flag once;
  std::call_once(once, [] { mysql_library_init(0, nullptr, nullptr); });
}

unsigned int CeilSeconds(std::chrono::milliseconds ms) {
  auto seconds = (ms.count() + 999) / 1000;
  return static_cast<unsigned int>(std::clamp<std::int64_t>(seconds, 1, 3600));
}

std::chrono::milliseconds Remaining(MonoTime deadline) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                               std::chrono::steady_clock::now());
}

}  // namespace

// A connection as the pool keeps it.
struct PooledConnection {
  MYSQL* mysql = nullptr;
  bool is_mariadb = true;  // else Oracle MySQL: other timeout variable
  MonoTime idle_since{};
};

class MariadbDatasource::Pool {
 public:
  Pool(MysqlLocation location, MariadbOptions options)
      : location_(std::move(location)), options_(options) {}
  ~Pool() {
    for (PooledConnection& connection : idle_) mysql_close(connection.mysql);
  }

  // A connection, reused (`*reused` set) or new; waits for a free slot until
  // `deadline`.
  Result<PooledConnection, AdapterFailure> Acquire(MonoTime deadline, bool* reused);
  // Gives a connection back: kept for reuse when `reusable`, else closed.
  void Release(PooledConnection connection, bool reusable);

 private:
  Result<PooledConnection, AdapterFailure> Connect(MonoTime deadline);

  const MysqlLocation location_;
  const MariadbOptions options_;
  std::mutex mu_;
  std::condition_variable freed_;
  std::vector<PooledConnection> idle_;  // guarded by mu_; most recently used last
  std::size_t open_ = 0;                // guarded by mu_; idle and leased
};

Result<PooledConnection, AdapterFailure> MariadbDatasource::Pool::Acquire(MonoTime deadline,
                                                                          bool* reused) {
  std::vector<PooledConnection> stale;
  Result<PooledConnection, AdapterFailure> acquired = Failure({ToolErrorCode::kToolTimeout, {}});
  bool connect = false;
  {
    std::unique_lock lock(mu_);
    for (;;) {
      MonoTime now = std::chrono::steady_clock::now();
      while (!idle_.empty() && !acquired) {
        PooledConnection connection = idle_.back();
        idle_.pop_back();
        // A connection idle for long may have been dropped by the server
        // (wait_timeout) or by a firewall that would make us wait for the
        // read timeout: not worth the risk.
        if (now - connection.idle_since > options_.max_idle_time) {
          stale.push_back(connection);
          --open_;
        } else {
          acquired = connection;
          *reused = true;
        }
      }
      if (acquired) break;
      if (open_ < options_.max_connections) {
        ++open_;
        connect = true;
        break;
      }
      if (freed_.wait_until(lock, deadline) == std::cv_status::timeout) break;
    }
  }
  for (PooledConnection& connection : stale) mysql_close(connection.mysql);
  if (!connect) return acquired;
  *reused = false;
  acquired = Connect(deadline);
  if (!acquired) {
    std::lock_guard lock(mu_);
    --open_;
    freed_.notify_one();
  }
  return acquired;
}

void MariadbDatasource::Pool::Release(PooledConnection connection, bool reusable) {
  {
    std::lock_guard lock(mu_);
    if (reusable && idle_.size() < options_.max_idle) {
      connection.idle_since = std::chrono::steady_clock::now();
      idle_.push_back(connection);
      freed_.notify_one();
      return;
    }
    --open_;
    freed_.notify_one();
  }
  mysql_close(connection.mysql);
}

Result<PooledConnection, AdapterFailure> MariadbDatasource::Pool::Connect(MonoTime deadline) {
  InitLibraryOnce();
  MYSQL* mysql = mysql_init(nullptr);
  if (mysql == nullptr) return Failure({ToolErrorCode::kToolUnavailable, {}});
  unsigned int connect_timeout = CeilSeconds(std::min(Remaining(deadline), options_.timeout));
  unsigned int io_timeout = CeilSeconds(options_.timeout + kClientTimeoutGrace);
  unsigned int protocol = MYSQL_PROTOCOL_TCP;  // the url names a host: never a local socket
  unsigned int local_infile = 0;               // LOAD DATA LOCAL would read our files
  my_bool reconnect = 0;  // a silent reconnect would lose the read-only session
  mysql_options(mysql, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
  mysql_options(mysql, MYSQL_OPT_READ_TIMEOUT, &io_timeout);
  mysql_options(mysql, MYSQL_OPT_WRITE_TIMEOUT, &io_timeout);
  mysql_options(mysql, MYSQL_OPT_PROTOCOL, &protocol);
  mysql_options(mysql, MYSQL_OPT_LOCAL_INFILE, &local_infile);
  mysql_options(mysql, MYSQL_OPT_RECONNECT, &reconnect);
  // utf8mb4, so that no multi-byte charset can hide a quote from the
  // classifier's lexer (docs/sql-safety.md).
  mysql_options(mysql, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  // Client flags 0: in particular never CLIENT_MULTI_STATEMENTS.
  bool connected =
      mysql_real_connect(mysql, location_.host.c_str(), location_.user.c_str(),
                         location_.password.c_str(), location_.database.c_str(),
                         static_cast<unsigned int>(location_.port), nullptr, 0) != nullptr;
  // Every later transaction of this session is read-only unless changed, and
  // each query also starts its own READ ONLY transaction.
  constexpr std::string_view kReadOnlySession = "SET SESSION TRANSACTION READ ONLY";
  if (connected && mysql_real_query(mysql, kReadOnlySession.data(), kReadOnlySession.size()) == 0) {
    const char* version = mysql_get_server_info(mysql);
    bool is_mariadb =
        version != nullptr && std::string_view(version).find("MariaDB") != std::string_view::npos;
    return PooledConnection{mysql, is_mariadb, {}};
  }
  // Wrong password, unknown host or database, refused port: the operator's
  // problem, never the model's, and the server's text may name the account.
  mysql_close(mysql);
  return Failure({std::chrono::steady_clock::now() >= deadline ? ToolErrorCode::kToolTimeout
                                                               : ToolErrorCode::kToolUnavailable,
                  {}});
}

MariadbDatasource::MariadbDatasource(MysqlLocation location, MariadbOptions options)
    : pool_(std::make_unique<Pool>(std::move(location), options)) {
  InitLibraryOnce();
}

MariadbDatasource::~MariadbDatasource() = default;

namespace {

// Per query: the server's time limit from what is left of the deadline, and
// the row limit, then the read-only transaction.
bool BeginQuery(MYSQL* mysql, bool is_mariadb, const QueryLimits& limits, MonoTime deadline) {
  // Never 0, which would mean "no limit".
  std::int64_t ms = std::max<std::int64_t>(1, Remaining(deadline).count());
  std::string set = "SET SESSION ";
  if (is_mariadb) {
    std::string fraction = std::to_string(1000 + ms % 1000).substr(1);
    set += "max_statement_time = " + std::to_string(ms / 1000) + "." + fraction;
  } else {
    set += "max_execution_time = " + std::to_string(ms);
  }
  // One more row than wanted tells a cut result from a complete one.
  set += ", sql_select_limit = " + std::to_string(limits.max_rows + 1);
  constexpr std::string_view kBegin = "START TRANSACTION READ ONLY";
  return mysql_real_query(mysql, set.data(), set.size()) == 0 &&
         mysql_real_query(mysql, kBegin.data(), kBegin.size()) == 0;
}

}  // namespace

Result<QueryOutput, AdapterFailure> MariadbDatasource::Query(std::string_view sql,
                                                             const std::vector<SqlValue>& params,
                                                             const QueryLimits& limits,
                                                             MonoTime deadline,
                                                             const std::stop_token& cancel) {
  if (std::chrono::steady_clock::now() >= deadline) {
    return Failure({ToolErrorCode::kToolTimeout, {}});
  }
  if (cancel.stop_requested()) return Failure({ToolErrorCode::kToolUnavailable, {}});
  for (int attempt = 1;; ++attempt) {
    bool reused = false;
    auto connection = pool_->Acquire(deadline, &reused);
    if (!connection) return Failure(connection.error());
    MYSQL* mysql = connection->mysql;
    if (!BeginQuery(mysql, connection->is_mariadb, limits, deadline)) {
      unsigned int code = mysql_errno(mysql);
      AdapterFailure failure = MariadbFailure(code, mysql_error(mysql), deadline);
      pool_->Release(*connection, false);
      // A pooled connection the server has closed in the meantime fails on
      // its first command: that is no reason to fail the query.
      if (reused && attempt == 1 && IsClientError(code)) continue;
      return Failure(failure);
    }
    bool connection_ok = true;
    std::optional<Result<QueryOutput, AdapterFailure>> ran;
    {
      // A cancel cuts the connection under the statement from the
      // cancelling thread (mariadb_cancel is made for that): the blocked
      // read fails at once, and the connection is never pooled again. The
      // server ends the statement at its own time limit (BeginQuery).
      std::stop_callback cut(cancel, [mysql] { mariadb_cancel(mysql); });
      ran.emplace(RunStatement(mysql, sql, params, limits, deadline, &connection_ok));
    }
    if (cancel.stop_requested()) {
      pool_->Release(*connection, false);
      return Failure({ToolErrorCode::kToolUnavailable, {}});
    }
    auto output = std::move(*ran);
    // Nothing can have been written; the ROLLBACK ends the transaction so the
    // connection can be reused, and a connection that cannot is dropped.
    constexpr std::string_view kRollback = "ROLLBACK";
    connection_ok =
        connection_ok && mysql_real_query(mysql, kRollback.data(), kRollback.size()) == 0;
    pool_->Release(*connection, connection_ok);
    return output;
  }
}

}  // namespace diagd::tools::mysql
