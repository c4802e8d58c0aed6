#include "tools/mysql/mariadb_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <mysql.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <sstream>
#include <thread>

#include "testing/child_process.h"
#include "testing/free_port.h"

namespace diagd::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kReadyTimeout = 30s;
constexpr auto kStopTimeout = 30s;
constexpr int kLaunchAttempts = 3;  // a free port may be taken before mariadbd binds it

// Start-up speed and robustness, not production settings: the data is
// thrown away, so nothing is synced; small logs and pool; no native AIO
// (containers often forbid io_uring and libaio).
const char* const kServerOptions[] = {
    "--debug-no-sync",           "--innodb-log-file-size=8M", "--innodb-buffer-pool-size=32M",
    "--innodb-use-native-aio=0", "--skip-name-resolve",       "--max-connections=200",
};

const char* const kAccountsSql = R"sql(
CREATE DATABASE diagd_test CHARACTER SET utf8mb4;
CREATE USER 'diagd_ro'@'%' IDENTIFIED BY 'ro-Secret-7f3a';
GRANT SELECT ON diagd_test.* TO 'diagd_ro'@'%';
GRANT SELECT ON Chinook.* TO 'diagd_ro'@'%';
CREATE USER 'diagd_rw'@'%' IDENTIFIED BY 'rw-Secret-9c1d';
GRANT ALL PRIVILEGES ON *.* TO 'diagd_rw'@'%';
)sql";

std::string FindProgram(const std::string& name) {
  std::string path = getenv("PATH") != nullptr ? getenv("PATH") : "";
  // Debian puts mariadbd in /usr/sbin, which a non-root PATH may lack.
  path += ":/usr/sbin:/usr/local/sbin:/usr/bin:/usr/local/bin";
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

struct MysqlCloser {
  void operator()(MYSQL* mysql) const { mysql_close(mysql); }
};
using MysqlPtr = std::unique_ptr<MYSQL, MysqlCloser>;

// root over the unix socket: --skip-name-resolve leaves TCP root accounts
// unusable, and the socket needs no password with this install.
Result<MysqlPtr> ConnectAsRoot(const std::filesystem::path& socket) {
  MysqlPtr mysql(mysql_init(nullptr));
  unsigned int timeout = 5;
  unsigned int protocol = MYSQL_PROTOCOL_SOCKET;
  mysql_options(mysql.get(), MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  mysql_options(mysql.get(), MYSQL_OPT_PROTOCOL, &protocol);
  mysql_options(mysql.get(), MYSQL_SET_CHARSET_NAME, "utf8mb4");
  if (mysql_real_connect(mysql.get(), "localhost", "root", "", nullptr, 0, socket.string().c_str(),
                         CLIENT_MULTI_STATEMENTS) == nullptr) {
    return Error::Unavailable(std::string("connect as root: ") + mysql_error(mysql.get()));
  }
  return mysql;
}

}  // namespace

Result<std::unique_ptr<MariadbServer>> MariadbServer::Start() {
  std::string mariadbd = FindProgram("mariadbd");
  std::string install_db = FindProgram("mariadb-install-db");
  if (mariadbd.empty() || install_db.empty()) {
    return Error::FailedPrecondition(
        "mariadbd or mariadb-install-db not found: the MariaDB tests need a real server; run "
        "scripts/bootstrap (it installs mariadb-server)");
  }
  // Short: the socket path must fit in 108 bytes.
  std::string pattern = "/tmp/diagd-mariadb-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return Error::Internal("mkdtemp failed");
  std::unique_ptr<MariadbServer> server(new MariadbServer());
  server->dir_ = pattern;

  // A private tmpdir: servers installed side by side (ctest -j) otherwise
  // share /tmp for their temporary tables and trip over each other's files.
  std::error_code tmp_error;
  std::filesystem::create_directories(server->dir_ / "tmp", tmp_error);
  std::vector<std::string> install = {install_db, "--no-defaults",
                                      "--datadir=" + (server->dir_ / "data").string(),
                                      "--tmpdir=" + (server->dir_ / "tmp").string(),
                                      "--auth-root-authentication-method=normal", "--skip-test-db"};
  if (geteuid() == 0) install.push_back("--user=root");
  install.insert(install.end(), std::begin(kServerOptions), std::end(kServerOptions));
  pid_t pid = SpawnChild(install, {.log = server->dir_ / "install.log"});
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    return Error::Internal("mariadb-install-db failed:\n" + FileTail(server->dir_ / "install.log"));
  }

  Status ready = Error::Internal("not started");
  for (int attempt = 0; attempt < kLaunchAttempts && !ready; ++attempt) {
    if (ready = server->Launch(mariadbd); ready) ready = server->WaitUntilReady();
  }
  if (!ready) return ready.error();
  if (auto created = server->Execute(kAccountsSql); !created) return created.error();
  return server;
}

Status MariadbServer::Launch(const std::string& mariadbd) {
  port_ = FreeLoopbackPort();
  if (port_ == 0) return Error::Internal("no free port");
  std::vector<std::string> args = {mariadbd,
                                   "--no-defaults",
                                   "--datadir=" + (dir_ / "data").string(),
                                   "--tmpdir=" + (dir_ / "tmp").string(),
                                   "--socket=" + (dir_ / "sock").string(),
                                   "--port=" + std::to_string(port_),
                                   "--bind-address=127.0.0.1",
                                   "--skip-networking=0",
                                   "--pid-file=" + (dir_ / "mariadbd.pid").string(),
                                   "--log-error=" + (dir_ / "err.log").string()};
  if (geteuid() == 0) args.push_back("--user=root");
  args.insert(args.end(), std::begin(kServerOptions), std::end(kServerOptions));
  pid_ = SpawnChild(args, {.log = dir_ / "stdout.log"});
  if (pid_ < 0) return Error::Internal("fork failed");
  return OkStatus();
}

Status MariadbServer::WaitUntilReady() {
  auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Error::Unavailable("mariadbd exited during start-up:\n" + FileTail(dir_ / "err.log"));
    }
    if (ConnectAsRoot(dir_ / "sock")) return OkStatus();
    std::this_thread::sleep_for(20ms);
  }
  Stop();
  return Error::DeadlineExceeded("mariadbd did not accept connections within 30 s:\n" +
                                 FileTail(dir_ / "err.log"));
}

void MariadbServer::Stop() {
  if (pid_ <= 0) return;
  StopChild(pid_, SIGTERM, kStopTimeout);
  pid_ = -1;
}

MariadbServer::~MariadbServer() {
  Stop();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

std::string MariadbServer::Url(std::string_view user, std::string_view password,
                               std::string_view database) const {
  return "mysql://" + std::string(user) + ":" + std::string(password) +
         "@127.0.0.1:" + std::to_string(port_) + "/" + std::string(database);
}

std::string MariadbServer::ReaderUrl(std::string_view database) const {
  return Url(kReader, kReaderPassword, database);
}

std::string MariadbServer::WriterUrl(std::string_view database) const {
  return Url(kWriter, kWriterPassword, database);
}

Status MariadbServer::Execute(std::string_view sql) {
  auto mysql = ConnectAsRoot(dir_ / "sock");
  if (!mysql) return mysql.error();
  MYSQL* m = mysql->get();
  if (mysql_real_query(m, sql.data(), sql.size()) != 0) {
    return Error::Internal(std::string("setup SQL failed: ") + mysql_error(m));
  }
  for (;;) {
    if (MYSQL_RES* result = mysql_store_result(m)) mysql_free_result(result);
    int next = mysql_next_result(m);
    if (next < 0) break;
    if (next > 0) return Error::Internal(std::string("setup SQL failed: ") + mysql_error(m));
  }
  return OkStatus();
}

Result<std::vector<std::vector<std::string>>> MariadbServer::Rows(std::string_view sql) {
  auto mysql = ConnectAsRoot(dir_ / "sock");
  if (!mysql) return mysql.error();
  MYSQL* m = mysql->get();
  if (mysql_real_query(m, sql.data(), sql.size()) != 0) {
    return Error::Internal(std::string("query failed: ") + mysql_error(m));
  }
  std::unique_ptr<MYSQL_RES, void (*)(MYSQL_RES*)> result(mysql_store_result(m), mysql_free_result);
  std::vector<std::vector<std::string>> rows;
  if (result == nullptr) return rows;
  unsigned int fields = mysql_num_fields(result.get());
  while (MYSQL_ROW row = mysql_fetch_row(result.get())) {
    unsigned long* lengths = mysql_fetch_lengths(result.get());
    std::vector<std::string> cells;
    for (unsigned int i = 0; i < fields; ++i) {
      cells.push_back(row[i] != nullptr ? std::string(row[i], lengths[i]) : "NULL");
    }
    rows.push_back(std::move(cells));
  }
  return rows;
}

namespace {

struct SharedState {
  std::mutex mu;
  bool tried = false;
  std::unique_ptr<MariadbServer> server;
  std::string error;
};

SharedState& Shared() {
  static SharedState state;
  return state;
}

// Stops the shared server when the test program ends.
class MariadbEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    std::lock_guard lock(Shared().mu);
    Shared().server.reset();
  }
};

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new MariadbEnvironment);

}  // namespace

Result<MariadbServer*> SharedMariadbServer() {
  SharedState& state = Shared();
  std::lock_guard lock(state.mu);
  if (!state.tried) {
    state.tried = true;
    auto started = MariadbServer::Start();
    if (started) {
      state.server = std::move(*started);
    } else {
      state.error = started.error().message;
    }
  }
  if (state.server == nullptr) return Error::Unavailable(state.error);
  return state.server.get();
}

}  // namespace diagd::testing
