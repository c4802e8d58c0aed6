// query_metrics against a real Prometheus (testing/prometheus_server.h):
// the demo's recording, a PromQL error in Prometheus's words, thousands of
// series, an oversized answer, a year-long lookback, a subquery bomb, the
// longest query, and Prometheus gone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <map>
#include <sstream>

#include "testing/prometheus_server.h"
#include "tools/metrics/metrics_tool.h"
#include "tools/metrics/prometheus_client.h"
#include "tools/metrics/prometheus_response.h"
#include "tools/metrics/series_summary.h"

namespace diagd::tools::metrics {
namespace {

using diagd::testing::PrometheusServerOptions;
using diagd::testing::WideRecording;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// The demo workspace's clock: the recording ends here.
const WallTime kNow = *ParseRfc3339("2026-11-29T10:30:00Z");
constexpr std::int64_t kEnd = 1795948200;
// Prometheus's lookback delta: a step reads the newest sample at most this old.
constexpr std::int64_t kStaleSeconds = 300;

const char* kPool = R"(hikaricp_connections_active{service="payment-service",pool="HikariPool-1"})";

class RealPrometheusTest : public ::testing::Test {
 protected:
  PrometheusClient Client(const std::string& url, MetricsRules rules = {}) {
    MetricsSettings settings;
    settings.url = url;
    settings.rules = rules;
    return PrometheusClient(settings, clock_);
  }
  // The request ParseInput makes of `input` (a JSON object).
  MetricsRequest Request(const std::string& input, const MetricsRules& rules = {}) {
    auto parsed = ParseInput(boost::json::parse(input).as_object(), rules);
    EXPECT_TRUE(parsed) << input;
    return parsed ? *parsed : MetricsRequest{};
  }
  Result<MetricsOutput, AdapterFailure> Run(const PrometheusClient& client,
                                            const MetricsRequest& request) {
    return client.Query(request, kNow, clock_.Monotonic() + std::chrono::seconds(20));
  }

  const Clock& clock_ = SystemClock::Instance();
};

// The samples of one series of an OpenMetrics recording, by time.
std::map<std::int64_t, double> RecordedSamples(const std::string& openmetrics,
                                               const std::string& series) {
  std::map<std::int64_t, double> samples;
  std::istringstream lines(openmetrics);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(series + " ", 0) != 0) continue;
    std::istringstream fields(line.substr(series.size()));
    double value = 0;
    std::int64_t time = 0;
    fields >> value >> time;
    samples[time] = value;
  }
  return samples;
}

// What Prometheus reads at each step of the range: the newest sample that
// is at most kStaleSeconds old.
std::vector<Sample> AtSteps(const std::map<std::int64_t, double>& samples, std::int64_t start,
                            std::int64_t step) {
  std::vector<Sample> out;
  for (std::int64_t t = start; t <= kEnd; t += step) {
    auto after = samples.upper_bound(t);
    if (after == samples.begin()) continue;
    auto newest = std::prev(after);
    if (t - newest->first < kStaleSeconds) out.push_back({t, newest->second});
  }
  return out;
}


TEST_F(RealPrometheusTest, TheDemoPoolSeriesSummaryIsWhatTheRecordingSays) {
  auto demo = diagd::testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(server, {.openmetrics = *demo});
  MetricsRequest request = Request(
      R"j({"query": "hikaricp_connections_active{service=\"payment-service\"}", "lookback_minutes": 90})j");
  ASSERT_EQ(request.step_seconds, 90);
  auto out = Run(Client(server->url()), request);
  ASSERT_TRUE(out) << out.error().message << "\n" << server->Log();
  const MetricsResult& result = out->result;
  EXPECT_EQ(result.evidence_status, EvidenceStatus::kEvidenceFound);
  EXPECT_EQ(result.returned_count, 1u);
  EXPECT_FALSE(result.truncated);
  ASSERT_EQ(result.series.size(), 1u);
  const MetricSeries& series = result.series[0];
  using Labels = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(series.labels, (Labels{{"__name__", "hikaricp_connections_active"},
                                   {"pool", "HikariPool-1"},
                                   {"service", "payment-service"}}));

  // The range: 60 points 90 s apart, the newest on now.
  std::vector<Sample> expected = AtSteps(RecordedSamples(*demo, kPool), kEnd - 59 * 90, 90);
  ASSERT_EQ(expected.size(), 60u);
  ASSERT_EQ(series.points.size(), 60u);
  EXPECT_EQ(series.points.back().time, "2026-11-29T10:30:00Z");
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(series.points[i].time, FormatUnixSeconds(expected[i].unix_seconds));
    EXPECT_EQ(series.points[i].value, expected[i].value) << series.points[i].time;
  }
  EXPECT_EQ(series.summary, SeriesSummary(series.labels, expected));
  EXPECT_THAT(series.summary, StartsWith("hikaricp_connections_active{pool=\"HikariPool-1\", "
                                         "service=\"payment-service\"}: first "));
  EXPECT_THAT(series.summary, HasSubstr(" at 2026-11-29T10:30:00Z, min "));
  // The pool fills after the onset (10:02): that is where its largest change is.
  auto change = series.summary.substr(series.summary.rfind(" at ") + 4);
  EXPECT_GT(change, "2026-11-29T10:02:00Z");
  EXPECT_LT(change, "2026-11-29T10:15:00Z");
}

TEST_F(RealPrometheusTest, APromqlErrorIsQueryFailedInPrometheussWords) {
  auto demo = diagd::testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(server, {.openmetrics = *demo});
  auto client = Client(server->url());
  auto out = Run(
      client, Request(R"j({"query": "sum(rate(hikaricp_connections_active{pool=\"x\"[5m]))"})j"));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_THAT(out.error().message, HasSubstr("parse error"));
  EXPECT_LE(out.error().message.size(), kMaxErrorChars + 2);
  // A function that does not exist, and a type error: the same.
  auto unknown = Run(client, Request(R"j({"query": "ratez(up[5m])"})j"));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_THAT(unknown.error().message, HasSubstr("ratez"));
  // Nothing matched is no error: no evidence.
  auto none = Run(client, Request(R"j({"query": "no_such_metric"})j"));
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(none->result.evidence_status, EvidenceStatus::kNoEvidence);
  EXPECT_EQ(none->result.returned_count, 0u);
}

TEST_F(RealPrometheusTest, ThousandsOfSeriesGiveABoundedResultThatSaysHowManyMatched) {
  DIAGD_START_PROMETHEUS(server, {.openmetrics = WideRecording("wide", 3000, 10, kEnd)});
  auto out = Run(Client(server->url()),
                 Request(R"j({"query": "wide", "lookback_minutes": 10, "step_seconds": 60})j"));
  ASSERT_TRUE(out) << out.error().message << "\n" << server->Log();
  EXPECT_EQ(out->result.returned_count, 3000u);
  EXPECT_TRUE(out->result.truncated);
  ASSERT_EQ(out->result.series.size(), 10u);
  // Prometheus's order: by labels.
  for (std::size_t i = 0; i < 10; ++i) {
    char label[8];
    std::snprintf(label, sizeof(label), "%04zu", i);
    EXPECT_EQ(out->result.series[i].labels.at(1).second, label);
    EXPECT_EQ(out->result.series[i].points.size(), 10u);
  }
  EXPECT_EQ(out->result.series[3].points.back().value, 3.123456789);
  EXPECT_GT(out->raw_response.size(), 500'000u);
}

TEST_F(RealPrometheusTest, AnAnswerTooLargeToReadAsksForANarrowerQuery) {
  DIAGD_START_PROMETHEUS(server, {.openmetrics = WideRecording("wide", 3000, 10, kEnd)});
  MetricsRequest request = Request(R"j({"query": "wide", "lookback_minutes": 10})j");
  ASSERT_EQ(request.step_seconds, 10);  // 60 points a series: some 5 MB in all
  auto out = Run(Client(server->url()), request);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(out.error().message,
            "the result is too large: narrow the query (fewer series or a shorter range)");
}

TEST_F(RealPrometheusTest, AYearLongLookbackIsClampedToTheMaximum) {
  auto demo = diagd::testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(server, {.openmetrics = *demo});
  MetricsRequest request =
      Request(R"j({"query": "hikaricp_connections_max", "lookback_minutes": 525600})j");
  EXPECT_EQ(request.lookback_minutes, 1440);
  EXPECT_EQ(request.step_seconds, 1440);
  auto out = Run(Client(server->url()), request);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->result.lookback_minutes, 1440);
  ASSERT_EQ(out->result.series.size(), 1u);
  // A day at 24-minute steps; the recording covers the last 90 minutes of it.
  const auto& points = out->result.series[0].points;
  EXPECT_GE(points.size(), 3u);
  EXPECT_LE(points.size(), 60u);
  EXPECT_EQ(points.back().time, "2026-11-29T10:30:00Z");
}

// A second-resolution subquery over 100 days: Prometheus evaluates only
// where there is data, so it answers with a bounded result; where its
// sample limit is lower than the data, with its own error.
constexpr const char* kBomb =
    R"j({"query": "max_over_time(rate(hikaricp_connections_active[1m])[100d:1s])"})j";

TEST_F(RealPrometheusTest, ASubqueryBombIsABoundedResultInBoundedTime) {
  auto demo = diagd::testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(server, {.openmetrics = *demo});
  auto started = clock_.Monotonic();
  auto out = Run(Client(server->url()), Request(kBomb));
  auto took = clock_.Monotonic() - started;
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_FALSE(out->result.series.empty());
  EXPECT_LE(out->result.series.size(), 10u);
  for (const auto& series : out->result.series) EXPECT_LE(series.points.size(), 60u);
  EXPECT_LT(out->raw_response.size(), 100'000u);
  EXPECT_LT(took, std::chrono::seconds(10));
}

TEST_F(RealPrometheusTest, ASubqueryBombOverTheSampleLimitIsQueryFailedInPrometheussWords) {
  auto demo = diagd::testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(server, {.openmetrics = *demo, .max_samples = 5'000});
  auto out = Run(Client(server->url()), Request(kBomb));
  ASSERT_FALSE(out) << out->raw_response.size() << " bytes";
  EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_THAT(out.error().message, HasSubstr("too many samples"));
}

TEST_F(RealPrometheusTest, TheServersOwnQueryTimeoutIsATimeout) {
  auto demo = diagd::testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(server,
                         {.openmetrics = *demo, .query_timeout = std::chrono::milliseconds(100)});
  auto started = clock_.Monotonic();
  auto out = Run(Client(server->url()), Request(kBomb));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
  // Prometheus's answer, well before our own timeout (10 s) would have cut it.
  EXPECT_LT(clock_.Monotonic() - started, std::chrono::seconds(8));
}

TEST_F(RealPrometheusTest, TheLongestQueryIsSentWholeAndAnswered) {
  auto demo = diagd::testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(server, {.openmetrics = *demo});
  // A pool alternation padded with names that match nothing, to exactly the limit.
  std::string head = "hikaricp_connections_active{pool=~\"HikariPool-1";
  std::string tail = "\"}";
  std::string query = head;
  for (int i = 0; query.size() + tail.size() < kMaxQueryChars; ++i)
    query += "|p" + std::to_string(i);
  query.resize(kMaxQueryChars - tail.size());
  if (query.back() == '|') query.back() = 'x';
  query += tail;
  ASSERT_EQ(query.size(), kMaxQueryChars);
  boost::json::object input{{"query", query}};
  auto request = ParseInput(input, {});
  ASSERT_TRUE(request);
  auto out = Run(Client(server->url()), *request);
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_EQ(out->result.series.size(), 1u);
  EXPECT_EQ(out->result.series[0].labels.at(1).second, "HikariPool-1");
  EXPECT_EQ(out->result.query, query);
}

TEST_F(RealPrometheusTest, PrometheusGoneIsUnavailableAndBackIsAnswered) {
  auto demo = diagd::testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(server, {.openmetrics = *demo});
  auto client = Client(server->url());
  MetricsRequest request = Request(R"j({"query": "hikaricp_connections_max"})j");
  ASSERT_TRUE(Run(client, request));
  server->Stop();
  auto gone = Run(client, request);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, ToolErrorCode::kToolUnavailable);
  auto census = client.Census(kNow, clock_.Monotonic() + std::chrono::seconds(5));
  ASSERT_FALSE(census);
  EXPECT_EQ(census.error().code, ToolErrorCode::kToolUnavailable);
  ASSERT_TRUE(server->Restart()) << server->Log();
  EXPECT_TRUE(Run(client, request));
}

TEST_F(RealPrometheusTest, CensusCountsTheDemosMetricNames) {
  auto demo = diagd::testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(server, {.openmetrics = *demo});
  std::size_t families = 0;
  for (std::size_t at = demo->find("# TYPE "); at != std::string::npos;
       at = demo->find("# TYPE ", at + 1)) {
    ++families;
  }
  auto census = Client(server->url()).Census(kNow, clock_.Monotonic() + std::chrono::seconds(5));
  ASSERT_TRUE(census) << census.error().message;
  EXPECT_EQ(census->names, families);
  EXPECT_GE(census->names, 6u);
  // A range before the recording began serves none.
  auto before =
      Client(server->url())
          .Census(kNow - std::chrono::hours(48), clock_.Monotonic() + std::chrono::seconds(5));
  ASSERT_TRUE(before) << before.error().message;
  EXPECT_EQ(before->names, 0u);
}

}  // namespace
}  // namespace diagd::tools::metrics
