#include "testing/redis_server.h"

#include <hiredis/hiredis.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>
#include <vector>

#include "testing/child_process.h"
#include "testing/free_port.h"
#include "testing/shared_server.h"

namespace diagd::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kReadyTimeout = 20s;
constexpr auto kStopTimeout = 10s;
constexpr int kLaunchAttempts = 3;  // a free port may be taken before redis binds it

std::string FindRedisServer() {
  std::string path = getenv("PATH") != nullptr ? getenv("PATH") : "";
  path += ":/usr/bin:/usr/sbin:/usr/local/bin";
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/redis-server";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// PING answered with PONG (after AUTH when a password is set).
bool Pings(int port, const std::string& password) {
  timeval timeout{1, 0};
  redisContext* context = redisConnectWithTimeout("127.0.0.1", port, timeout);
  if (context == nullptr) return false;
  bool ok = context->err == 0;
  if (ok && !password.empty()) {
    auto* auth = static_cast<redisReply*>(redisCommand(context, "AUTH %s", password.c_str()));
    ok = auth != nullptr && auth->type == REDIS_REPLY_STATUS;
    if (auth != nullptr) freeReplyObject(auth);
  }
  if (ok) {
    auto* pong = static_cast<redisReply*>(redisCommand(context, "PING"));
    ok = pong != nullptr && pong->type == REDIS_REPLY_STATUS && std::string(pong->str) == "PONG";
    if (pong != nullptr) freeReplyObject(pong);
  }
  redisFree(context);
  return ok;
}

}  // namespace

Result<std::unique_ptr<RedisServer>> RedisServer::Start(RedisServerOptions options) {
  std::string binary = FindRedisServer();
  if (binary.empty()) {
    std::string message =
        "redis-server was not found on PATH: the Redis cases need a real server; run "
        "scripts/bootstrap (it installs redis-server)";
    // scripts/test sets DIAGD_REQUIRE_REDIS=1 after its bootstrap: there a
    // missing server is a failure, never a silent skip.
    const char* required = std::getenv("DIAGD_REQUIRE_REDIS");
    if (required != nullptr && std::string(required) == "1") return Error::Unavailable(message);
    return Error::FailedPrecondition(message);
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "diagd-redis-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return Error::Internal("mkdtemp failed");
  std::unique_ptr<RedisServer> server(new RedisServer());
  server->binary_ = binary;
  server->options_ = std::move(options);
  server->dir_ = pattern;
  Status ready = Error::Internal("not started");
  for (int attempt = 0; attempt < kLaunchAttempts && !ready; ++attempt) {
    server->port_ = FreeLoopbackPort();
    if (server->port_ == 0) return Error::Internal("no free port");
    if (ready = server->Launch(); ready) ready = server->WaitUntilReady();
  }
  if (!ready) return ready.error();
  return server;
}

Status RedisServer::Launch() {
  std::vector<std::string> args = {binary_,
                                   "--bind", "127.0.0.1",
                                   "--port", std::to_string(port_),
                                   "--save", "",
                                   "--appendonly", "no",
                                   "--dir", dir_.string(),
                                   "--daemonize", "no",
                                   "--logfile", (dir_ / "redis.log").string(),
                                   "--databases", "16"};
  if (!options_.password.empty()) {
    args.push_back("--requirepass");
    args.push_back(options_.password);
  }
  pid_t pid = SpawnChild(args, {.dir = dir_});
  if (pid < 0) return Error::Internal("fork failed");
  pid_ = pid;
  return OkStatus();
}

Status RedisServer::WaitUntilReady() {
  auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Error::Unavailable("redis-server exited during start-up:\n" +
                                FileTail(dir_ / "redis.log"));
    }
    if (Pings(port_, options_.password)) return OkStatus();
    std::this_thread::sleep_for(10ms);
  }
  Stop();
  return Error::DeadlineExceeded("redis-server did not answer PING within 20 s:\n" +
                                 FileTail(dir_ / "redis.log"));
}

void RedisServer::Stop() {
  if (pid_ <= 0) return;
  // nothing to save: it exits at once
  StopChild(pid_, SIGTERM, kStopTimeout);
  pid_ = -1;
}

Status RedisServer::Restart() {
  Stop();
  // The port stays ours only by luck once it is released; Redis binds with
  // SO_REUSEADDR, so a brief TIME_WAIT does not stand in the way.
  Status ready = Error::Internal("not started");
  for (int attempt = 0; attempt < kLaunchAttempts && !ready; ++attempt) {
    if (ready = Launch(); ready) ready = WaitUntilReady();
    if (!ready) std::this_thread::sleep_for(200ms);
  }
  return ready;
}

RedisServer::~RedisServer() {
  Stop();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

std::string RedisServer::Url(int db) const {
  std::string auth = options_.password.empty() ? "" : ":" + options_.password + "@";
  return "redis://" + auth + "127.0.0.1:" + std::to_string(port_) + "/" + std::to_string(db);
}

Result<RedisServer*> SharedRedisServer() {
  return StartedOnce<RedisServer>([](RedisServer& server) -> Status {
    return server.running() ? OkStatus() : server.Restart();
  });
}

}  // namespace diagd::testing
