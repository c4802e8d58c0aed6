#include "testing/postgres_server.h"

#include <cstdlib>

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "testing/child_process.h"
#include "testing/free_port.h"
#include "testing/shared_server.h"

namespace diagd::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kReadyTimeout = 30s;
constexpr auto kStopTimeout = 30s;
constexpr int kLaunchAttempts = 3;  // a free port may be taken before postgres binds it

// Start-up speed, not production settings: the data is thrown away.
const char* const kServerOptions[] = {
    "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
    "-c", "fsync=off",                  "-c", "synchronous_commit=off",
    "-c", "full_page_writes=off",       "-c", "max_connections=200",
    "-c", "shared_buffers=32MB",        "-c", "log_min_messages=warning",
};

// Who runs the server: nobody when this process is root.
struct RunAs {
  uid_t uid = 0;
  gid_t gid = 0;
};

// The folder that holds initdb and postgres: PATH first, then Debian's
// /usr/lib/postgresql/<version>/bin, the newest version.
std::string FindBinDir() {
  std::string path = getenv("PATH") != nullptr ? getenv("PATH") : "";
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    if (access((dir + "/initdb").c_str(), X_OK) == 0 &&
        access((dir + "/postgres").c_str(), X_OK) == 0) {
      return dir;
    }
  }
  std::vector<std::pair<int, std::string>> versions;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    std::string bin = (entry.path() / "bin").string();
    int version = std::atoi(entry.path().filename().c_str());
    if (version > 0 && access((bin + "/initdb").c_str(), X_OK) == 0 &&
        access((bin + "/postgres").c_str(), X_OK) == 0) {
      versions.emplace_back(version, bin);
    }
  }
  if (versions.empty()) return {};
  return std::max_element(versions.begin(), versions.end())->second;
}

// fork + exec as `run_as` (when set) with output to `log`, in `dir`. The
// child dies with this process: PR_SET_PDEATHSIG is set after the uid
// change, which would clear it.
pid_t Spawn(const std::vector<std::string>& args, const std::filesystem::path& dir,
            const std::filesystem::path& log, const std::optional<RunAs>& run_as) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::string log_path = log.string();
  std::string dir_path = dir.string();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid != 0) return pid;
  // Child: async-signal-safe calls only.
  if (run_as) {
    if (setgroups(0, nullptr) != 0 || setgid(run_as->gid) != 0 || setuid(run_as->uid) != 0) {
      _exit(125);
    }
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(126);
  if (chdir(dir_path.c_str()) != 0) _exit(126);
  int out = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int in = open("/dev/null", O_RDONLY);
  if (out < 0 || in < 0) _exit(126);
  dup2(in, 0);
  dup2(out, 1);
  dup2(out, 2);
  execv(argv[0], argv.data());
  _exit(127);
}

Result<std::optional<RunAs>> Unprivileged() {
  if (geteuid() != 0) return std::optional<RunAs>();
  const passwd* user = getpwnam("nobody");
  if (user == nullptr) {
    return Error::Internal("running as root, and there is no user nobody to run PostgreSQL as");
  }
  RunAs run_as{user->pw_uid, user->pw_gid};
  if (const group* nogroup = getgrnam("nogroup"); nogroup != nullptr) run_as.gid = nogroup->gr_gid;
  return std::optional<RunAs>(run_as);
}

std::optional<RunAs>& ServerUser() {
  static std::optional<RunAs> run_as;
  return run_as;
}

struct PgFinish {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};

Result<std::unique_ptr<PGconn, PgFinish>> Connect(int port, std::string_view database) {
  std::string conninfo = "host=127.0.0.1 port=" + std::to_string(port) +
                         " user=diagd connect_timeout=5 dbname=" + std::string(database);
  std::unique_ptr<PGconn, PgFinish> conn(PQconnectdb(conninfo.c_str()));
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return Error::Unavailable(std::string("connect to the test server: ") +
                              PQerrorMessage(conn.get()));
  }
  return conn;
}

// The processes whose parent is `parent` (from /proc/PID/stat).
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == parent) children.push_back(std::stoi(name));
  }
  return children;
}

}  // namespace

Result<std::unique_ptr<PostgresServer>> PostgresServer::Start() {
  std::string bin = FindBinDir();
  if (bin.empty()) {
    std::string message =
        "PostgreSQL's initdb and postgres were found neither on PATH nor under "
        "/usr/lib/postgresql/*/bin: the PostgreSQL cases need a real server; run "
        "scripts/bootstrap (it installs postgresql)";
    // scripts/test sets DIAGD_REQUIRE_POSTGRES=1 after its bootstrap: there
    // a missing server is a failure, never a silent skip.
    const char* required = std::getenv("DIAGD_REQUIRE_POSTGRES");
    if (required != nullptr && std::string(required) == "1") return Error::Unavailable(message);
    return Error::FailedPrecondition(message);
  }
  Result<std::optional<RunAs>> run_as = Unprivileged();
  if (!run_as) return run_as.error();
  ServerUser() = *run_as;
  // As root, under /tmp itself: nobody must be able to reach the folder, and
  // a $TMPDIR of root's own may not let it through.
  std::filesystem::path temp = *run_as ? std::filesystem::path("/tmp")
                                       : std::filesystem::temp_directory_path();
  std::string pattern = (temp / "diagd-postgres-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return Error::Internal("mkdtemp failed");
  std::unique_ptr<PostgresServer> server(new PostgresServer());
  server->dir_ = pattern;
  if (*run_as && chown(pattern.c_str(), (*run_as)->uid, (*run_as)->gid) != 0) {
    return Error::Internal("cannot hand the test server's folder to nobody");
  }
  std::vector<std::string> initdb = {bin + "/initdb",  "-D", (server->dir_ / "data").string(),
                                     "-U",             "diagd", "--auth=trust",
                                     "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync",
                                     "--no-instructions"};
  pid_t pid = Spawn(initdb, server->dir_, server->dir_ / "initdb.log", *run_as);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    return Error::Internal("initdb failed (exit " + std::to_string(WEXITSTATUS(status)) + "):\n" +
                           FileTail(server->dir_ / "initdb.log"));
  }
  Status ready = Error::Internal("not started");
  for (int attempt = 0; attempt < kLaunchAttempts && !ready; ++attempt) {
    if (ready = server->Launch(bin + "/postgres"); ready) ready = server->WaitUntilReady();
  }
  if (!ready) return ready.error();
  return server;
}

Status PostgresServer::Launch(const std::string& postgres) {
  port_ = FreeLoopbackPort();
  if (port_ == 0) return Error::Internal("no free port");
  std::vector<std::string> args = {postgres, "-D", (dir_ / "data").string(), "-p",
                                   std::to_string(port_)};
  args.insert(args.end(), std::begin(kServerOptions), std::end(kServerOptions));
  pid_ = Spawn(args, dir_, dir_ / "postgres.log", ServerUser());
  if (pid_ < 0) return Error::Internal("fork failed");
  return OkStatus();
}

Status PostgresServer::WaitUntilReady() {
  auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  std::string conninfo = "host=127.0.0.1 port=" + std::to_string(port_) +
                         " user=diagd dbname=postgres connect_timeout=2";
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Error::Unavailable("postgres exited during start-up:\n" +
                                FileTail(dir_ / "postgres.log"));
    }
    if (PQping(conninfo.c_str()) == PQPING_OK) return OkStatus();
    std::this_thread::sleep_for(20ms);
  }
  Stop();
  return Error::DeadlineExceeded("postgres did not accept connections within 30 s:\n" +
                                 FileTail(dir_ / "postgres.log"));
}

void PostgresServer::Stop() {
  if (pid_ <= 0) return;
  SignalAll(SIGCONT);  // a frozen server could not shut down
  // fast shutdown: ends the sessions instead of waiting for them
  StopChild(pid_, SIGINT, kStopTimeout);
  pid_ = -1;
}

void PostgresServer::SignalAll(int signal) {
  if (pid_ <= 0) return;
  // The postmaster first on SIGSTOP, so that it forks no backend meanwhile.
  ::kill(pid_, signal);
  for (pid_t child : ChildrenOf(pid_)) ::kill(child, signal);
}

void PostgresServer::Freeze() { SignalAll(SIGSTOP); }

void PostgresServer::Thaw() { SignalAll(SIGCONT); }

PostgresServer::~PostgresServer() {
  Stop();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

std::string PostgresServer::Url(std::string_view database) const {
  return "postgresql://diagd@127.0.0.1:" + std::to_string(port_) + "/" + std::string(database);
}

Result<std::string> PostgresServer::CreateDatabase() {
  std::string name;
  {
    std::lock_guard lock(mu_);
    name = "diagd_test_" + std::to_string(++databases_);
  }
  if (Status created = Execute("postgres", "CREATE DATABASE " + name); !created) {
    return created.error();
  }
  return Url(name);
}

Status PostgresServer::Execute(std::string_view database, std::string_view sql) {
  auto conn = Connect(port_, database);
  if (!conn) return conn.error();
  std::string text(sql);
  PGresult* result = PQexec(conn->get(), text.c_str());
  ExecStatusType status = PQresultStatus(result);
  PQclear(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    return Error::Internal(std::string("test SQL failed: ") + PQerrorMessage(conn->get()));
  }
  return OkStatus();
}

Result<std::string> PostgresServer::Scalar(std::string_view database, std::string_view sql) {
  auto conn = Connect(port_, database);
  if (!conn) return conn.error();
  std::string text(sql);
  std::unique_ptr<PGresult, void (*)(PGresult*)> result(PQexec(conn->get(), text.c_str()),
                                                        &PQclear);
  if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) {
    return Error::Internal(std::string("test query failed: ") + PQerrorMessage(conn->get()));
  }
  if (PQntuples(result.get()) == 0) return std::string();
  return std::string(PQgetvalue(result.get(), 0, 0));
}

Result<PostgresServer*> SharedPostgresServer() { return StartedOnce<PostgresServer>(); }

}  // namespace diagd::testing
