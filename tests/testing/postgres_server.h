// A private PostgreSQL server for tests: a throw-away data folder, 127.0.0.1
// and a free port, started by this process and stopped (SIGINT, a fast
// shutdown, then SIGKILL) with its folder deleted at the end. Nothing depends
// on a server someone started by hand, nor on the cluster Debian's
// `postgresql` package may have started.
//
// Start-up: `initdb` into a fresh folder (superuser `diagd`, trust
// authentication on loopback, UTF-8), `postgres` on it with fsync and
// synchronous commit off (the data is thrown away) and no Unix socket, and a
// wait (at most 30 s) until it accepts connections. `CreateDatabase` gives
// each test its own empty database.
//
// PostgreSQL refuses to run as root: when this process is root (CI is), the
// folder is handed to `nobody` and initdb and postgres run as nobody/nogroup
// (set in the forked child before exec, and PR_SET_PDEATHSIG after that, so
// the server still dies with this process).
//
// `SharedPostgresServer()` starts one server per test program, on first use,
// and stops it when the program exits. When the binaries are not installed
// it is FAILED_PRECONDITION saying so (tests skip on it; scripts/bootstrap
// installs them); any other failure is another code (tests fail on it).
//
// Thread safety: `SharedPostgresServer` and `CreateDatabase` are safe to call
// from any thread.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/result.h"

namespace diagd::testing {

class PostgresServer {
 public:
  static constexpr std::string_view kUser = "diagd";

  static Result<std::unique_ptr<PostgresServer>> Start();
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  int port() const { return port_; }
  // postgresql://diagd@127.0.0.1:port/database
  std::string Url(std::string_view database) const;
  // A new empty database ("diagd_test_<n>"); its URL.
  Result<std::string> CreateDatabase();
  // Runs constant SQL (several statements allowed) as the superuser on
  // `database`, every result dropped.
  Status Execute(std::string_view database, std::string_view sql);
  // The first column of the first row of one query, as text ("" for none).
  Result<std::string> Scalar(std::string_view database, std::string_view sql);
  // The process id of the postmaster (to kill it in tests).
  pid_t pid() const { return pid_; }
  // SIGSTOP, then SIGCONT, to the postmaster and every process it forked
  // (backends, background workers): the server stalls as a whole, every
  // connection open and unanswered, as on a host that froze; on Thaw each
  // waiting statement runs.
  void Freeze();
  void Thaw();

 private:
  PostgresServer() = default;
  Status Launch(const std::string& postgres);
  Status WaitUntilReady();
  void Stop();
  void SignalAll(int signal);

  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::mutex mu_;
  int databases_ = 0;  // guarded by mu_
};

// The test program's server, started on first use. On failure every caller
// gets the same error (not retried per test).
Result<PostgresServer*> SharedPostgresServer();

}  // namespace diagd::testing
