// A private Redis server for tests: `redis-server` on 127.0.0.1 and a free
// port, with no persistence (`--save "" --appendonly no`) in a throw-away
// folder, started by this process and stopped (SIGTERM, then SIGKILL) with
// its folder deleted at the end. Nothing depends on a server someone started
// by hand, nor on the one Debian's `redis-server` package may have started.
//
// `Stop()` and `Restart()` let a test take Redis away in the middle of a run
// and bring it back on the same port (empty: nothing is persisted). Redis
// runs as root without complaint, so no user switch is needed; the child
// dies with the thread that started it (PR_SET_PDEATHSIG).
//
// `SharedRedisServer()` starts one server per test program, on first use,
// and stops it when the program exits; tests that stop it must restart it
// before they end. When `redis-server` is not installed it is
// FAILED_PRECONDITION saying so (tests skip on it; scripts/bootstrap installs
// it), unless DIAGD_REQUIRE_REDIS=1 (scripts/test): then a missing server is
// UNAVAILABLE and the tests fail. Any other failure to start fails them too.
//
// Thread safety: Start, Stop and Restart from one thread at a time (the
// test's); `Url` and `port` from any.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>

#include "core/result.h"

namespace diagd::testing {

struct RedisServerOptions {
  // When set, clients must AUTH with it (requirepass).
  std::string password;
};

class RedisServer {
 public:
  static Result<std::unique_ptr<RedisServer>> Start(RedisServerOptions options = {});
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  int port() const { return port_; }
  // redis://[:password@]127.0.0.1:port/db
  std::string Url(int db = 0) const;
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Stops the server (clients see their connections close); the port stays
  // this server's for Restart.
  void Stop();
  // Starts it again on the same port, empty, and waits until it answers.
  Status Restart();

 private:
  RedisServer() = default;
  Status Launch();
  Status WaitUntilReady();

  std::string binary_;
  RedisServerOptions options_;
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// The test program's server, started on first use. On failure every caller
// gets the same error (not retried per test).
Result<RedisServer*> SharedRedisServer();

}  // namespace diagd::testing

// Declares `::diagd::testing::RedisServer* var`, the shared server, or skips
// the test (Redis not installed, and not required) or fails it.
#define DIAGD_SHARED_REDIS(var)                                                       \
  auto var##_or = ::diagd::testing::SharedRedisServer();                              \
  if (!var##_or && var##_or.error().code == ::diagd::ErrorCode::kFailedPrecondition) { \
    GTEST_SKIP() << var##_or.error().message;                                         \
  }                                                                                   \
  ASSERT_TRUE(var##_or) << var##_or.error().ToString();                               \
  ::diagd::testing::RedisServer* var = *var##_or
