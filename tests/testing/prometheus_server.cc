#include "testing/prometheus_server.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "http/http_client.h"
#include "testing/child_process.h"
#include "testing/free_port.h"

namespace diagd::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kBackfillTimeout = 60s;
constexpr auto kReadyTimeout = 30s;
// Prometheus closes its TSDB on SIGTERM: quick with no scrapes to flush.
constexpr auto kStopTimeout = 10s;
constexpr int kLaunchAttempts = 3;  // a free port may be taken before prometheus binds it

// PATH only, so a test (or a user) can hide Prometheus by leaving it out.
std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

Error NotInstalled(const std::string& missing) {
  std::string message = missing +
                        " was not found on PATH: the metrics cases need a real Prometheus; run "
                        "scripts/bootstrap (it installs prometheus, which brings promtool)";
  // scripts/test sets DIAGD_REQUIRE_PROMETHEUS=1 after its bootstrap: there
  // a missing server is a failure, never a silent skip.
  const char* required = std::getenv("DIAGD_REQUIRE_PROMETHEUS");
  if (required != nullptr && std::string(required) == "1") return Error::Unavailable(message);
  return Error::FailedPrecondition(message);
}

// Waits for a child that runs to completion; its exit status, or -1 when
// it had to be killed after `patience`.
int WaitForExit(pid_t pid, std::chrono::milliseconds patience) {
  auto deadline = std::chrono::steady_clock::now() + patience;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      StopChild(pid, SIGKILL, 1s);
      return -1;
    }
    std::this_thread::sleep_for(10ms);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Prometheus's configuration: nothing to scrape, so the TSDB holds the
// recording and nothing else.
constexpr const char* kConfig =
    "# A private Prometheus of the tests (tests/testing/prometheus_server.cc):\n"
    "# it serves recorded samples and scrapes nothing.\n"
    "global:\n"
    "  scrape_interval: 1h\n"
    "  evaluation_interval: 1h\n";

bool Ready(int port) {
  http::Request request;
  request.method = "GET";
  request.url = "http://127.0.0.1:" + std::to_string(port) + "/-/ready";
  request.timeout = 1s;
  request.connect_timeout = 1s;
  auto response = http::Send(request);
  return response && response->status == 200;
}

}  // namespace

Result<std::unique_ptr<PrometheusServer>> PrometheusServer::Start(PrometheusServerOptions options) {
  std::string binary = FindOnPath("prometheus");
  if (binary.empty()) return NotInstalled("prometheus");
  std::string promtool = FindOnPath("promtool");
  if (promtool.empty()) return NotInstalled("promtool");
  std::string pattern =
      (std::filesystem::temp_directory_path() / "diagd-prometheus-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return Error::Internal("mkdtemp failed");
  std::unique_ptr<PrometheusServer> server(new PrometheusServer());
  server->binary_ = binary;
  server->options_ = std::move(options);
  server->dir_ = pattern;
  {
    std::ofstream config(server->dir_ / "prometheus.yml");
    config << kConfig;
    if (!config) return Error::Internal("cannot write prometheus.yml in " + pattern);
  }
  if (Status filled = server->Backfill(promtool); !filled) return filled.error();
  Status ready = Error::Internal("not started");
  for (int attempt = 0; attempt < kLaunchAttempts && !ready; ++attempt) {
    server->port_ = FreeLoopbackPort();
    if (server->port_ == 0) return Error::Internal("no free port");
    if (ready = server->Launch(); ready) ready = server->WaitUntilReady();
  }
  if (!ready) return ready.error();
  return server;
}

Status PrometheusServer::Backfill(const std::string& promtool) {
  std::filesystem::path data = dir_ / "data";
  std::error_code ec;
  std::filesystem::create_directories(data, ec);
  if (ec) return Error::Internal("cannot create " + data.string());
  if (options_.openmetrics.empty()) return OkStatus();  // no series
  {
    std::ofstream recording(dir_ / "recording.om", std::ios::binary);
    recording << options_.openmetrics;
    if (!recording) return Error::Internal("cannot write the recording in " + dir_.string());
  }
  pid_t pid = SpawnChild({promtool, "tsdb", "create-blocks-from", "openmetrics",
                          (dir_ / "recording.om").string(), data.string()},
                         {.log = dir_ / "promtool.out", .dir = dir_});
  if (pid < 0) return Error::Internal("fork failed");
  int exit_status = WaitForExit(pid, kBackfillTimeout);
  if (exit_status == 0) return OkStatus();
  std::string said = FileTail(dir_ / "promtool.out");
  if (exit_status == 1) {
    // promtool's answer to a recording it cannot read (no `# EOF`, a
    // malformed line, samples out of order): the caller's input.
    return Error::InvalidArgument("promtool refused the OpenMetrics recording: " + said);
  }
  return Error::Internal("promtool tsdb create-blocks-from failed (exit " +
                         std::to_string(exit_status) + "): " + said);
}

Status PrometheusServer::Launch() {
  std::vector<std::string> args = {
      binary_,
      "--config.file=" + (dir_ / "prometheus.yml").string(),
      "--storage.tsdb.path=" + (dir_ / "data").string(),
      "--storage.tsdb.retention.time=100y",
      "--web.listen-address=127.0.0.1:" + std::to_string(port_),
      "--query.timeout=" + std::to_string(options_.query_timeout.count()) + "ms",
      "--query.max-samples=" + std::to_string(options_.max_samples),
      "--log.level=warn",
  };
  // SIGTERM when this process dies: Prometheus closes its TSDB and exits.
  pid_t pid = SpawnChild(args, {.log = dir_ / "prometheus.out", .dir = dir_, .death_signal = SIGTERM});
  if (pid < 0) return Error::Internal("fork failed");
  pid_ = pid;
  return OkStatus();
}

Status PrometheusServer::WaitUntilReady() {
  auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Error::Unavailable("prometheus exited during start-up:\n" +
                                FileTail(dir_ / "prometheus.out"));
    }
    if (Ready(port_)) return OkStatus();
    std::this_thread::sleep_for(10ms);
  }
  Stop();
  return Error::DeadlineExceeded("prometheus was not ready (GET /-/ready) within 30 s:\n" +
                                 FileTail(dir_ / "prometheus.out"));
}

void PrometheusServer::Stop() {
  if (pid_ <= 0) return;
  StopChild(pid_, SIGTERM, kStopTimeout);
  pid_ = -1;
}

Status PrometheusServer::Restart() {
  Stop();
  // The port stays ours only by luck once it is released; Prometheus binds
  // with SO_REUSEADDR (Go's default), so a brief TIME_WAIT does not stand
  // in the way.
  Status ready = Error::Internal("not started");
  for (int attempt = 0; attempt < kLaunchAttempts && !ready; ++attempt) {
    if (ready = Launch(); ready) ready = WaitUntilReady();
    if (!ready) std::this_thread::sleep_for(200ms);
  }
  return ready;
}

PrometheusServer::~PrometheusServer() {
  Stop();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

std::string PrometheusServer::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::string PrometheusServer::Log() const { return ReadWholeFile(dir_ / "prometheus.out"); }

std::string WideRecording(const std::string& name, int count, int minutes,
                          std::int64_t end_seconds) {
  std::string text = "# TYPE " + name + " gauge\n";
  char line[128];
  for (int i = 0; i < count; ++i) {
    for (int m = minutes; m >= 0; --m) {
      std::snprintf(line, sizeof(line), "%s{i=\"%04d\"} %d.123456789 %lld\n", name.c_str(), i, i,
                    static_cast<long long>(end_seconds - m * 60));
      text += line;
    }
  }
  return text + "# EOF\n";
}

Result<std::string> DemoMetrics() {
  std::filesystem::path file =
      std::filesystem::path(DIAGD_SOURCE_DIR) / "examples/demo/metrics/incident.om";
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::NotFound("cannot read the demo's recording " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace diagd::testing
