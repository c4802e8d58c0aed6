// The private Prometheus of the tests: it serves what it was given, stops
// and comes back with the same data, refuses a broken recording in
// promtool's words, passes its query limits on, and is skipped or required
// as scripts/test says.
#include "testing/prometheus_server.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/json.h"
#include "http/http_client.h"

namespace diagd::testing {
namespace {

// 2026-11-29T09:00:00Z, where the demo's recording starts.
constexpr std::int64_t kStart = 1795942800;

std::string UrlEncode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// GET /api/v1/query_range; the whole answer (status and body).
Result<http::Response, http::Failure> QueryRange(const PrometheusServer& server,
                                                 const std::string& query, std::int64_t start,
                                                 std::int64_t end, int step) {
  http::Request request;
  request.method = "GET";
  request.url = server.url() + "/api/v1/query_range?query=" + UrlEncode(query) +
                "&start=" + std::to_string(start) + "&end=" + std::to_string(end) +
                "&step=" + std::to_string(step);
  return http::Send(request);
}

// The points of the one series a successful query_range returned, by time.
std::map<std::int64_t, double> OnlySeries(const http::Response& response) {
  std::map<std::int64_t, double> points;
  auto body = json::Parse(response.body);
  EXPECT_TRUE(body) << response.body;
  if (!body) return points;
  const auto& result = body->at("data").at("result").as_array();
  EXPECT_EQ(result.size(), 1u) << response.body;
  if (result.size() != 1) return points;
  for (const auto& point : result[0].at("values").as_array()) {
    auto time = static_cast<std::int64_t>(point.as_array()[0].to_number<double>());
    points[time] = std::stod(std::string(point.as_array()[1].as_string()));
  }
  return points;
}

// A gauge sampled every 15 s from kStart: value i*i at the i-th sample.
std::string SquaresRecording(int samples) {
  std::string text = "# TYPE squares gauge\n";
  for (int i = 0; i < samples; ++i) {
    text += "squares{pool=\"p\"} " + std::to_string(i * i) + " " +
            std::to_string(kStart + 15 * i) + "\n";
  }
  return text + "# EOF\n";
}

TEST(PrometheusServerTest, ServesTheRecordedSamples) {
  DIAGD_START_PROMETHEUS(server, {.openmetrics = SquaresRecording(8)});
  auto response = QueryRange(*server, "squares{pool=\"p\"}", kStart, kStart + 15 * 7, 15);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->status, 200) << response->body;
  auto points = OnlySeries(*response);
  ASSERT_EQ(points.size(), 8u) << response->body;
  for (int i = 0; i < 8; ++i) EXPECT_EQ(points[kStart + 15 * i], i * i) << i;
}

// The samples of the series `head` (`name{labels}` as the recording spells
// it) in an OpenMetrics text, by time.
std::map<std::int64_t, double> Recorded(const std::string& openmetrics, const std::string& head) {
  std::map<std::int64_t, double> points;
  std::istringstream lines(openmetrics);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(head + " ", 0) != 0) continue;
    std::istringstream rest(line.substr(head.size()));
    double value = 0;
    std::int64_t time = 0;
    rest >> value >> time;
    points[time] = value;
  }
  return points;
}

TEST(PrometheusServerTest, ServesTheDemoRecording) {
  auto demo = DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().message;
  DIAGD_START_PROMETHEUS(server, {.openmetrics = *demo});
  // 09:00-10:30 every 15 s: the recording's range and step.
  const std::int64_t end = kStart + 90 * 60 - 15;
  const std::string pool = R"({service="payment-service",pool="HikariPool-1"})";
  auto active = QueryRange(*server, "hikaricp_connections_active" + pool, kStart, end, 15);
  auto max = QueryRange(*server, "hikaricp_connections_max" + pool, kStart, end, 15);
  ASSERT_TRUE(active && max);
  ASSERT_EQ(active->status, 200) << active->body;
  ASSERT_EQ(max->status, 200) << max->body;
  auto served = OnlySeries(*active);
  EXPECT_EQ(served, Recorded(*demo, "hikaricp_connections_active" + pool));
  ASSERT_EQ(served.size(), 360u);
  auto limit = OnlySeries(*max);
  ASSERT_EQ(limit.size(), 360u);

  // The story of examples/demo/GROUND_TRUTH.md: a pool with room before the
  // 10:02 release, at its maximum once the scans pile up.
  const std::int64_t release = kStart + 62 * 60;
  int at_max_after = 0;
  for (const auto& [time, value] : served) {
    if (time < release) {
      EXPECT_LT(value, limit[time] / 2) << time;
    }
    if (time >= release + 5 * 60 && value == limit[time]) ++at_max_after;
  }
  EXPECT_GT(at_max_after, 10);

  // The new query has no duration before it first ran, after the release.
  auto p99 = QueryRange(*server,
                        R"(mysql_query_duration_seconds{digest="PaymentRecordMapper.selectRecentByUserId"})",
                        kStart, end, 15);
  ASSERT_TRUE(p99);
  ASSERT_EQ(p99->status, 200) << p99->body;
  auto durations = OnlySeries(*p99);
  ASSERT_FALSE(durations.empty()) << p99->body;
  EXPECT_GT(durations.begin()->first, release);

  auto names = http::Send({.method = "GET", .url = server->url() + "/api/v1/label/__name__/values"});
  ASSERT_TRUE(names);
  EXPECT_EQ(names->body,
            R"({"status":"success","data":["hikaricp_connections_active","hikaricp_connections_max",)"
            R"("http_server_error_ratio","mysql_query_duration_seconds","node_filesystem_avail_bytes",)"
            R"("process_cpu_usage_ratio"]})");
}

TEST(PrometheusServerTest, StopRefusesConnectionsAndRestartServesTheSameData) {
  DIAGD_START_PROMETHEUS(server, {.openmetrics = SquaresRecording(4)});
  int port = server->port();
  server->Stop();
  EXPECT_FALSE(server->running());
  auto refused = QueryRange(*server, "squares", kStart, kStart + 45, 15);
  ASSERT_FALSE(refused) << "answered while stopped: " << refused->body;
  EXPECT_EQ(refused.error().kind, http::FailureKind::kConnect) << refused.error().message;

  ASSERT_TRUE(server->Restart()) << server->Log();
  EXPECT_EQ(server->port(), port);
  auto response = QueryRange(*server, "squares", kStart, kStart + 45, 15);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->status, 200) << response->body;
  auto points = OnlySeries(*response);
  EXPECT_EQ(points[kStart + 45], 9) << response->body;
}

TEST(PrometheusServerTest, AnEmptyRecordingServesNoSeries) {
  DIAGD_START_PROMETHEUS(server, {});
  auto response = QueryRange(*server, "squares", kStart, kStart + 45, 15);
  ASSERT_TRUE(response) << response.error().message;
  ASSERT_EQ(response->status, 200) << response->body;
  auto body = json::Parse(response->body);
  ASSERT_TRUE(body) << response->body;
  EXPECT_TRUE(body->at("data").at("result").as_array().empty()) << response->body;
}

TEST(PrometheusServerTest, ARecordingPromtoolRefusesIsInvalidArgumentInItsWords) {
  std::string without_eof = SquaresRecording(3);
  without_eof.erase(without_eof.find("# EOF"));
  auto started = PrometheusServer::Start({.openmetrics = without_eof});
  if (!started && started.error().code == ErrorCode::kFailedPrecondition) {
    GTEST_SKIP() << started.error().message;
  }
  ASSERT_FALSE(started) << "started over a recording without # EOF";
  EXPECT_EQ(started.error().code, ErrorCode::kInvalidArgument) << started.error().ToString();
  EXPECT_NE(started.error().message.find("does not end with # EOF"), std::string::npos)
      << started.error().message;
}

TEST(PrometheusServerTest, PassesItsQueryLimitsOn) {
  DIAGD_START_PROMETHEUS(server, {.openmetrics = SquaresRecording(40),
                                  .query_timeout = std::chrono::milliseconds(1500),
                                  .max_samples = 5});
  auto flags = http::Send({.method = "GET", .url = server->url() + "/api/v1/status/flags"});
  ASSERT_TRUE(flags) << flags.error().message;
  EXPECT_NE(flags->body.find(R"("query.timeout":"1s500ms")"), std::string::npos) << flags->body;
  EXPECT_NE(flags->body.find(R"("query.max-samples":"5")"), std::string::npos) << flags->body;

  auto response = QueryRange(*server, "squares", kStart, kStart + 15 * 39, 15);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 422) << response->body;
  EXPECT_NE(response->body.find("too many samples"), std::string::npos) << response->body;
}

// Sets an environment variable for one test, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(PrometheusServerTest, NotOnPathIsSkippedUnlessRequired) {
  // A PATH of one empty folder: no prometheus, no promtool.
  std::string empty_dir =
      (std::filesystem::temp_directory_path() / "diagd-no-prometheus-XXXXXX").string();
  ASSERT_NE(mkdtemp(empty_dir.data()), nullptr);
  ScopedEnv path("PATH", empty_dir);
  {
    ScopedEnv required("DIAGD_REQUIRE_PROMETHEUS", "0");
    auto started = PrometheusServer::Start({});
    ASSERT_FALSE(started);
    EXPECT_EQ(started.error().code, ErrorCode::kFailedPrecondition) << started.error().ToString();
    EXPECT_NE(started.error().message.find("scripts/bootstrap"), std::string::npos);
  }
  ScopedEnv required("DIAGD_REQUIRE_PROMETHEUS", "1");
  auto started = PrometheusServer::Start({});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, ErrorCode::kUnavailable) << started.error().ToString();
  std::filesystem::remove(empty_dir);
}

}  // namespace
}  // namespace diagd::testing
