// A private MariaDB server for tests: a throw-away data folder, 127.0.0.1 and
// a free port, started by this process and stopped (SIGTERM, then SIGKILL)
// with its folder deleted at the end. Nothing depends on a server someone
// started by hand.
//
// Start-up: `mariadb-install-db` into a fresh folder, `mariadbd` on it, a wait
// (at most 30 s) until it answers, then one database (`kDatabase`) and two
// accounts on it: a read-only one (SELECT only) and a writer with every
// privilege on every database (FILE and SUPER included), which proves that
// the backend's session is read-only whatever the account may do. Syncs are
// off (`--debug-no-sync`): the data is thrown away, and start-up takes well
// under a second.
//
// `SharedMariadbServer()` starts one server per test program, on first use
// (so tests that need none pay nothing), and a gtest Environment stops it
// when the program ends; if the process dies, the server gets SIGKILL from
// the kernel (PR_SET_PDEATHSIG). If `mariadbd` is not installed the error
// says to run scripts/bootstrap.
//
// Thread safety: `SharedMariadbServer` is safe to call from any test; one
// server's methods are for one thread at a time.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace diagd::testing {

class MariadbServer {
 public:
  static constexpr std::string_view kDatabase = "diagd_test";
  static constexpr std::string_view kReader = "diagd_ro";
  static constexpr std::string_view kReaderPassword = "ro-Secret-7f3a";
  static constexpr std::string_view kWriter = "diagd_rw";
  static constexpr std::string_view kWriterPassword = "rw-Secret-9c1d";

  static Result<std::unique_ptr<MariadbServer>> Start();
  ~MariadbServer();
  MariadbServer(const MariadbServer&) = delete;
  MariadbServer& operator=(const MariadbServer&) = delete;

  int port() const { return port_; }
  // The throw-away folder; the data lives in its `data/` subfolder.
  const std::filesystem::path& dir() const { return dir_; }

  // mysql://user:password@127.0.0.1:port/database
  std::string Url(std::string_view user, std::string_view password,
                  std::string_view database = kDatabase) const;
  std::string ReaderUrl(std::string_view database = kDatabase) const;
  std::string WriterUrl(std::string_view database = kDatabase) const;

  // Runs `sql` as root over the server's socket, several statements allowed
  // (setup scripts), every result read and dropped.
  Status Execute(std::string_view sql);
  // The rows of one query as root, every cell as text ("NULL" for NULL).
  Result<std::vector<std::vector<std::string>>> Rows(std::string_view sql);

 private:
  MariadbServer() = default;
  Status Launch(const std::string& mariadbd);
  Status WaitUntilReady();
  void Stop();

  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// The test program's server, started on first use. On failure every caller
// gets the same error (a missing `mariadbd` is not retried per test).
Result<MariadbServer*> SharedMariadbServer();

}  // namespace diagd::testing
