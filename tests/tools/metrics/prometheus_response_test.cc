#include "tools/metrics/prometheus_response.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace diagd::tools::metrics {
namespace {

using ::testing::HasSubstr;

const MetricsRequest kRequest{"m", 60, 60};

std::string Matrix(const std::string& series) {
  return R"({"status":"success","data":{"resultType":"matrix","result":[)" + series + "]}}";
}

std::string Series(const std::string& metric, int first_value, int count, int start = 1795946520,
                   int step = 60) {
  std::string values;
  for (int i = 0; i < count; ++i) {
    values += (i ? "," : "") + std::string("[") + std::to_string(start + i * step) + ",\"" +
              std::to_string(first_value + i) + "\"]";
  }
  return R"({"metric":)" + metric + R"(,"values":[)" + values + "]}";
}

MetricsResult Read(const std::string& body, const MetricsRules& rules = {}) {
  auto result = ReadQueryRange(200, body, kRequest, rules);
  EXPECT_TRUE(result) << (result ? "" : result.error().message);
  return result ? *result : MetricsResult{};
}

AdapterFailure Failed(int status, const std::string& body) {
  auto result = ReadQueryRange(status, body, kRequest, {});
  EXPECT_FALSE(result) << body;
  return result ? AdapterFailure{} : result.error();
}

TEST(ReadQueryRangeTest, AMatrixGivesSeriesWithSortedLabelsPointsAndSummaries) {
  MetricsResult result = Read(Matrix(Series(
      R"({"service":"payment-service","__name__":"hikaricp_connections_active","pool":"HikariPool-1"})",
      3, 3)));
  EXPECT_EQ(result.evidence_status, EvidenceStatus::kEvidenceFound);
  EXPECT_EQ(result.query, "m");
  EXPECT_EQ(result.lookback_minutes, 60);
  EXPECT_EQ(result.step_seconds, 60);
  EXPECT_EQ(result.returned_count, 1u);
  EXPECT_FALSE(result.truncated);
  ASSERT_EQ(result.series.size(), 1u);
  const MetricSeries& s = result.series[0];
  using Labels = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(s.labels, (Labels{{"__name__", "hikaricp_connections_active"},
                              {"pool", "HikariPool-1"},
                              {"service", "payment-service"}}));
  ASSERT_EQ(s.points.size(), 3u);
  EXPECT_EQ(s.points[0].time, "2026-11-29T10:02:00Z");
  EXPECT_EQ(s.points[0].value, 3);
  EXPECT_EQ(s.points[2].time, "2026-11-29T10:04:00Z");
  EXPECT_EQ(s.points[2].value, 5);
  EXPECT_EQ(s.summary,
            "hikaricp_connections_active{pool=\"HikariPool-1\", service=\"payment-service\"}: "
            "first 3 at 2026-11-29T10:02:00Z, last 5 at 2026-11-29T10:04:00Z, min 3, max 5, "
            "largest change +1 at 2026-11-29T10:03:00Z");
}

TEST(ReadQueryRangeTest, NoSeriesIsNoEvidence) {
  MetricsResult result = Read(Matrix(""));
  EXPECT_EQ(result.evidence_status, EvidenceStatus::kNoEvidence);
  EXPECT_EQ(result.returned_count, 0u);
  EXPECT_TRUE(result.series.empty());
}

TEST(ReadQueryRangeTest, KeepsTheFirstSeriesAndTheNewestPointsAndSaysSo) {
  MetricsRules rules;
  rules.max_series = 2;
  rules.max_points = 4;
  std::string all;
  for (int i = 0; i < 5; ++i) {
    all += (i ? "," : "") +
           Series(R"({"__name__":"m","i":")" + std::to_string(i) + "\"}", i * 100, 10);
  }
  MetricsResult result = Read(Matrix(all), rules);
  EXPECT_EQ(result.returned_count, 5u);
  EXPECT_TRUE(result.truncated);
  ASSERT_EQ(result.series.size(), 2u);
  EXPECT_EQ(result.series[1].labels[1].second, "1");
  ASSERT_EQ(result.series[1].points.size(), 4u);
  EXPECT_EQ(result.series[1].points.front().value, 106);
  EXPECT_EQ(result.series[1].points.back().value, 109);
  // The summary still covers every point received.
  EXPECT_THAT(result.series[1].summary, HasSubstr("first 100 at 2026-11-29T10:02:00Z"));

  rules.max_series = 10;
  rules.max_points = 10;
  EXPECT_FALSE(Read(Matrix(all), rules).truncated);
}

TEST(ReadQueryRangeTest, NaNAndInfinitiesAreInTheSummaryButNotInThePoints) {
  MetricsResult result =
      Read(Matrix(R"({"metric":{"__name__":"r"},"values":[[1795946520,"NaN"],[1795946580,"1.5"],)"
                  R"([1795946640,"+Inf"],[1795946700,"-Inf"],[1795946760,"2"]]})"));
  ASSERT_EQ(result.series.size(), 1u);
  const auto& points = result.series[0].points;
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].value, 1.5);
  EXPECT_EQ(points[1].value, 2);
  EXPECT_EQ(result.series[0].summary,
            "r: first NaN at 2026-11-29T10:02:00Z, last 2 at 2026-11-29T10:06:00Z, min -Inf, "
            "max +Inf, largest change +Inf at 2026-11-29T10:04:00Z");
}

TEST(ReadQueryRangeTest, VectorAndScalarAnswersAreSeriesOfOnePoint) {
  MetricsResult vector = Read(
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"x"},"value":[1795946520.5,"7"]}]}})");
  ASSERT_EQ(vector.series.size(), 1u);
  EXPECT_EQ(vector.series[0].points[0].time, "2026-11-29T10:02:00Z");
  EXPECT_THAT(vector.series[0].summary, HasSubstr("{job=\"x\"}: first 7"));
  MetricsResult scalar =
      Read(R"({"status":"success","data":{"resultType":"scalar","result":[1795946520,"42"]}})");
  ASSERT_EQ(scalar.series.size(), 1u);
  EXPECT_TRUE(scalar.series[0].labels.empty());
  EXPECT_EQ(scalar.series[0].points[0].value, 42);
  EXPECT_EQ(
      Failed(200, R"({"status":"success","data":{"resultType":"string","result":[1,"s"]}})").code,
      ToolErrorCode::kQueryFailed);
}

TEST(ReadQueryRangeTest, ThePromqlErrorIsQueryFailedWithTheServersOwnWordsBounded) {
  AdapterFailure bad = Failed(
      400,
      R"({"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected \"}\"\nin\tquery"})");
  EXPECT_EQ(bad.code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(bad.message, "1:5: parse error: unexpected \"}\" in query");
  AdapterFailure execution = Failed(
      422,
      R"({"status":"error","errorType":"execution","error":"query processing would load too many samples into memory in query execution"})");
  EXPECT_EQ(execution.code, ToolErrorCode::kQueryFailed);
  EXPECT_THAT(execution.message, HasSubstr("too many samples"));
  AdapterFailure unavailable =
      Failed(503, R"({"status":"error","errorType":"unavailable","error":"TSDB not ready"})");
  EXPECT_EQ(unavailable.code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(unavailable.message, "TSDB not ready");
  std::string huge(5000, 'e');
  AdapterFailure long_error =
      Failed(400, R"({"status":"error","errorType":"bad_data","error":")" + huge + "\"}");
  EXPECT_EQ(long_error.message, std::string(kMaxErrorChars - 1, 'e') + "…");
}

TEST(ReadQueryRangeTest, TheServersOwnTimeoutIsATimeout) {
  EXPECT_EQ(
      Failed(
          503,
          R"({"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"})")
          .code,
      ToolErrorCode::kToolTimeout);
}

TEST(ReadQueryRangeTest, AnythingButPrometheusJsonIsUnavailable) {
  for (const auto& [status, body] : std::vector<std::pair<int, std::string>>{
           {200, "<html>proxy login</html>"},
           {502, "Bad Gateway"},
           {200, ""},
           {200, "[]"},
           {200, R"({"status":"success"})"},
           {200, R"({"status":"success","data":{"resultType":"matrix"}})"},
           {200, R"({"status":"success","data":{"resultType":"matrix","result":{}}})"},
           {200, R"({"status":"success","data":{"resultType":"histogram","result":[]}})"},
           {200, Matrix(R"({"metric":{"a":1},"values":[]})")},
           {200, Matrix(R"({"metric":{},"values":[[1,2]]})")},
           {200, Matrix(R"({"metric":{},"values":[[1,"x"]]})")},
           {200, Matrix(R"({"metric":{},"values":[[1]]})")},
           {200, Matrix(R"({"values":[[1,"1"]]})")},
           {500, Matrix("")},
           {401, R"({"status":"error"})"},
       }) {
    AdapterFailure failure = Failed(status, body);
    EXPECT_EQ(failure.code, ToolErrorCode::kToolUnavailable) << body;
    EXPECT_EQ(failure.message, "") << body;
  }
}

TEST(ReadNameCountTest, CountsTheNamesOrFailsLikeAQuery) {
  auto names = ReadNameCount(200, R"({"status":"success","data":["a","b","c"]})");
  ASSERT_TRUE(names);
  EXPECT_EQ(*names, 3u);
  EXPECT_FALSE(ReadNameCount(200, R"({"status":"success","data":{}})"));
  EXPECT_FALSE(ReadNameCount(200, "nope"));
}

}  // namespace
}  // namespace diagd::tools::metrics
