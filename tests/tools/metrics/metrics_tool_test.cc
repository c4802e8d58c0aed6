#include "tools/metrics/metrics_tool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "core/json.h"

namespace diagd::tools::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

boost::json::object Input(std::string_view json) { return boost::json::parse(json).as_object(); }

MetricsRequest Parsed(std::string_view json, const MetricsRules& rules = {}) {
  auto parsed = ParseInput(Input(json), rules);
  EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().field + " " + parsed.error().reason);
  return parsed ? *parsed : MetricsRequest{};
}

void ExpectRejected(std::string_view json, const std::string& field, const std::string& reason,
                    const MetricsRules& rules = {}) {
  auto parsed = ParseInput(Input(json), rules);
  ASSERT_FALSE(parsed) << json;
  EXPECT_EQ(parsed.error().field, field) << json;
  EXPECT_EQ(parsed.error().reason, reason) << json;
}

TEST(MetricsInputTest, DefaultsFillTheLookbackAndAStepThatFitsTheMaxPoints) {
  MetricsRequest request = Parsed(R"({"query": "up"})");
  EXPECT_EQ(request.query, "up");
  EXPECT_EQ(request.lookback_minutes, 60);
  EXPECT_EQ(request.step_seconds, 60);  // 3600 s / 60 points
  MetricsRules rules;
  rules.default_lookback_minutes = 90;
  rules.max_points = 7;
  EXPECT_EQ(Parsed(R"({"query": "up"})", rules).step_seconds, 772);  // ceil(5400 / 7)
}

TEST(MetricsInputTest, LookbackIsClampedToTheMaximumAndMustBePositive) {
  MetricsRequest year = Parsed(R"({"query": "up", "lookback_minutes": 525600})");
  EXPECT_EQ(year.lookback_minutes, 1440);
  EXPECT_EQ(year.step_seconds, 1440);
  EXPECT_EQ(Parsed(R"({"query": "up", "lookback_minutes": 30.0})").lookback_minutes, 30);
  ExpectRejected(R"({"query": "up", "lookback_minutes": 0})", "input.lookback_minutes",
                 "OUT_OF_RANGE");
  ExpectRejected(R"({"query": "up", "lookback_minutes": -5})", "input.lookback_minutes",
                 "OUT_OF_RANGE");
  ExpectRejected(R"({"query": "up", "lookback_minutes": 1.5})", "input.lookback_minutes",
                 "WRONG_TYPE");
  ExpectRejected(R"({"query": "up", "lookback_minutes": "60"})", "input.lookback_minutes",
                 "WRONG_TYPE");
}

TEST(MetricsInputTest, AStepIsKeptWhenItFitsRaisedWhenTooFineAndLoweredToTheLookback) {
  EXPECT_EQ(Parsed(R"({"query": "up", "step_seconds": 300})").step_seconds, 300);
  EXPECT_EQ(Parsed(R"({"query": "up", "step_seconds": 60})").step_seconds, 60);
  EXPECT_EQ(Parsed(R"({"query": "up", "step_seconds": 1})").step_seconds, 60);
  EXPECT_EQ(Parsed(R"({"query": "up", "lookback_minutes": 10, "step_seconds": 15})").step_seconds,
            15);
  EXPECT_EQ(
      Parsed(R"({"query": "up", "lookback_minutes": 10, "step_seconds": 86400})").step_seconds,
      600);
  ExpectRejected(R"({"query": "up", "step_seconds": 0})", "input.step_seconds", "OUT_OF_RANGE");
  ExpectRejected(R"({"query": "up", "step_seconds": -15})", "input.step_seconds", "OUT_OF_RANGE");
  ExpectRejected(R"({"query": "up", "step_seconds": "15s"})", "input.step_seconds", "WRONG_TYPE");
  ExpectRejected(R"({"query": "up", "step_seconds": 1e300})", "input.step_seconds", "WRONG_TYPE");
}

TEST(MetricsInputTest, MinimumStepKeepsEveryLookbackWithinTheMaxPoints) {
  for (int minutes : {1, 7, 59, 60, 61, 1440}) {
    for (std::size_t points : {1u, 2u, 7u, 60u, 61u, 1000u}) {
      int step = MinimumStepSeconds(minutes, points);
      EXPECT_GE(step, 1);
      EXPECT_LE(static_cast<std::size_t>(minutes * 60 / step), points) << minutes << " " << points;
      if (step > 1) {
        EXPECT_GE(static_cast<std::size_t>(minutes * 60 / (step - 1)), points);
      }
    }
  }
}

TEST(MetricsInputTest, QueryMustBeAStringOfOneTo2000CodePointsNotBlank) {
  ExpectRejected(R"({})", "input.query", "MISSING_FIELD");
  ExpectRejected(R"({"query": 5})", "input.query", "WRONG_TYPE");
  ExpectRejected(R"({"query": null})", "input.query", "WRONG_TYPE");
  ExpectRejected(R"({"query": ""})", "input.query", "EMPTY");
  ExpectRejected(R"({"query": " \n\t "})", "input.query", "EMPTY");
  std::string longest(2000, 'x');
  EXPECT_EQ(Parsed(R"({"query": ")" + longest + "\"}").query.size(), 2000u);
  ExpectRejected(R"({"query": ")" + longest + "y\"}", "input.query", "TOO_LONG");
  // Code points, not bytes: 2000 CJK characters are 6000 bytes.
  std::string cjk;
  for (int i = 0; i < 2000; ++i) cjk += "指";
  EXPECT_EQ(Parsed(R"({"query": ")" + cjk + "\"}").query, cjk);
}

TEST(MetricsInputTest, UnknownKeysAreRejectedByName) {
  ExpectRejected(R"({"query": "up", "start": "2026-11-29T10:00:00Z"})", "input.start",
                 "UNKNOWN_FIELD");
  ExpectRejected(R"({"query": "up", "url": "http://elsewhere"})", "input.url", "UNKNOWN_FIELD");
}

TEST(MetricsScopeTest, OneScopeForSpellingsOfOneQueryAndItsRange) {
  MetricsRequest a{
      "sum by (pool) (hikaricp_connections_active{service=\"payment-service\", "
      "pool=~\"Hikari.*\"})",
      60, 60};
  MetricsRequest b{
      "sum by(pool)(\n hikaricp_connections_active{ pool=~\"Hikari.*\",service="
      "\"payment-service\" } )",
      60, 60};
  EXPECT_EQ(ScopeOf(a).identity, ScopeOf(b).identity);
  MetricsRequest other_value = a;
  other_value.query.replace(other_value.query.find("payment"), 7, "billing");
  EXPECT_NE(ScopeOf(a).identity, ScopeOf(other_value).identity);
  MetricsRequest longer = a;
  longer.lookback_minutes = 120;
  EXPECT_NE(ScopeOf(a).identity, ScopeOf(longer).identity);
  MetricsRequest coarser = a;
  coarser.step_seconds = 120;
  EXPECT_NE(ScopeOf(a).identity, ScopeOf(coarser).identity);
}

TEST(MetricsScopeTest, InputsThatRunAlikeShareAScope) {
  // A step raised to fit and a lookback clamped to the maximum are what ran.
  EXPECT_EQ(ScopeOf(Parsed(R"({"query": "up", "step_seconds": 1})")).identity,
            ScopeOf(Parsed(R"({"query": "up", "step_seconds": 30})")).identity);
  EXPECT_EQ(ScopeOf(Parsed(R"({"query": "up", "lookback_minutes": 99999})")).identity,
            ScopeOf(Parsed(R"({"query": "up", "lookback_minutes": 1440})")).identity);
  EXPECT_EQ(ScopeOf(Parsed(R"({"query": "up"})")).identity,
            ScopeOf(Parsed(R"({"query": "up", "lookback_minutes": 60, "step_seconds": 60})"))
                .identity);
  EXPECT_NE(ScopeOf(Parsed(R"({"query": "up", "step_seconds": 60})")).identity,
            ScopeOf(Parsed(R"({"query": "up", "step_seconds": 61})")).identity);
}

TEST(MetricsScopeTest, SummaryIsTheQueryCutShortWithItsLookback) {
  EXPECT_EQ(ScopeOf({"up{job=\"x\"}", 60, 60}).summary, "up{job=\"x\"} (60m)");
  Scope scope = ScopeOf({std::string(300, 'q'), 30, 30});
  EXPECT_EQ(scope.summary, std::string(80, 'q') + "… (30m)");
  EXPECT_EQ(ScopeOf({"rate(x[5m])\n  > 0", 15, 15}).summary, "rate(x[5m]) > 0 (15m)");
}

TEST(MetricsSchemaTest, SchemaClosesTheObjectAndRequestJsonNamesTheActualValues) {
  MetricsRules rules;
  rules.default_lookback_minutes = 45;
  std::string schema = json::Serialize(InputSchema(rules));
  EXPECT_THAT(schema, HasSubstr(R"("additionalProperties":false)"));
  EXPECT_THAT(schema, HasSubstr(R"("required":["query"])"));
  EXPECT_THAT(schema, HasSubstr(R"("maxLength":2000)"));
  EXPECT_THAT(schema, HasSubstr(R"("default":45)"));
  EXPECT_EQ(json::Serialize(RequestJson({"up", 60, 60})),
            R"({"query":"up","lookback_minutes":60,"step_seconds":60})");
}

TEST(MetricsDescriptionTest, SaysPromqlReadOnlyAndWhatAMetricCannotTellButNoBound) {
  MetricsRules rules;
  rules.max_series = 7;
  std::string en = Description(rules, true);
  EXPECT_THAT(en, HasSubstr("PromQL"));
  EXPECT_THAT(en, HasSubstr("Prometheus"));
  EXPECT_THAT(en, HasSubstr("read-only"));
  EXPECT_THAT(en, Not(HasSubstr("7")));  // no bound reaches the model
  EXPECT_THAT(en, HasSubstr("rarely why"));
  std::string zh = Description(rules, false);
  EXPECT_THAT(zh, HasSubstr("PromQL"));
  EXPECT_THAT(zh, HasSubstr("只读"));
  EXPECT_THAT(zh, Not(HasSubstr("7")));
  EXPECT_THAT(zh, Not(HasSubstr("rarely")));
}

}  // namespace
}  // namespace diagd::tools::metrics
