// A private Prometheus for tests, serving recorded samples: the OpenMetrics
// text of `PrometheusServerOptions` is written to a throw-away folder,
// backfilled into a TSDB there (`promtool tsdb create-blocks-from
// openmetrics`), and `prometheus` serves that TSDB on 127.0.0.1 and a free
// port. Its configuration has no scrape jobs (and a scrape interval of an
// hour) and keeps data for 100 years, so the recording is all it ever holds,
// however old its timestamps. Started by this process, stopped (SIGTERM,
// then SIGKILL) with its folder deleted at the end; the child dies with the
// thread that started it (PR_SET_PDEATHSIG). Nothing depends on the
// Prometheus Debian's package may have started.
//
// `Stop()` and `Restart()` let a test take Prometheus away in the middle of
// a run and bring it back on the same port with the same data.
//
// When `prometheus` or `promtool` is not on PATH, Start is
// FAILED_PRECONDITION saying so (tests skip on it; scripts/bootstrap
// installs them), unless DIAGD_REQUIRE_PROMETHEUS=1 (scripts/test): then it
// is UNAVAILABLE and the tests fail. A recording promtool refuses is
// INVALID_ARGUMENT with promtool's own words; any other failure to start
// fails the tests too.
//
// Thread safety: Start, Stop and Restart from one thread at a time (the
// test's); the accessors from any.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "core/result.h"

namespace diagd::testing {

struct PrometheusServerOptions {
  // The recorded samples: OpenMetrics text (`# TYPE` lines, timestamps in
  // seconds, the last line `# EOF`). Empty: a Prometheus with no series.
  std::string openmetrics;
  // --query.timeout: a query that runs longer fails with Prometheus's error.
  std::chrono::milliseconds query_timeout = std::chrono::minutes(2);
  // --query.max-samples: a query that would load more samples into memory
  // at once fails with Prometheus's error.
  std::int64_t max_samples = 50'000'000;
};

class PrometheusServer {
 public:
  static Result<std::unique_ptr<PrometheusServer>> Start(PrometheusServerOptions options);
  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  int port() const { return port_; }
  // http://127.0.0.1:port (no trailing slash), the base of its HTTP API.
  std::string url() const;
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // Prometheus's own log (stdout and stderr), for a failing test's message.
  std::string Log() const;

  // Stops the server (connections are refused); the port and the data stay
  // this server's for Restart.
  void Stop();
  // Starts it again on the same port over the same TSDB and waits until
  // GET /-/ready answers 200.
  Status Restart();

 private:
  PrometheusServer() = default;
  Status Backfill(const std::string& promtool);
  Status Launch();
  Status WaitUntilReady();

  std::string binary_;
  PrometheusServerOptions options_;
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// The demo workspace's recording, examples/demo/metrics/incident.om of this
// source tree (the incident of examples/demo/GROUND_TRUTH.md).
Result<std::string> DemoMetrics();

// `count` series of the gauge `name` (labels i="0000", i="0001"...), one
// sample a minute over the `minutes` before `end_seconds` (Unix time), as
// OpenMetrics; values with many digits, so a large answer is large.
std::string WideRecording(const std::string& name, int count, int minutes,
                          std::int64_t end_seconds);

}  // namespace diagd::testing

// Declares `std::unique_ptr<::diagd::testing::PrometheusServer> var`, a
// server started with the options that follow (a braced initializer, whose
// commas the preprocessor would otherwise split), or skips the test (Prometheus not
// installed, and not required) or fails it.
#define DIAGD_START_PROMETHEUS(var, ...)                                             \
  auto var##_or = ::diagd::testing::PrometheusServer::Start(__VA_ARGS__);              \
  if (!var##_or && var##_or.error().code == ::diagd::ErrorCode::kFailedPrecondition) { \
    GTEST_SKIP() << var##_or.error().message;                                        \
  }                                                                                  \
  ASSERT_TRUE(var##_or) << var##_or.error().ToString();                              \
  std::unique_ptr<::diagd::testing::PrometheusServer> var = std::move(*var##_or)
