// query_metrics end to end: the real binary on the demo workspace, the
// offline provider, and a private Prometheus serving the demo's recorded
// metrics. What is released must cite a metrics quote that release
// verified; Prometheus gone mid-way is a tool ERROR, not a failed run; and
// `diagd check` reports the endpoint.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "e2e/cli_fixture.h"
#include "testing/prometheus_server.h"

namespace diagd {
namespace {

namespace fs = std::filesystem;
using e2e::Invocation;

constexpr const char* kQuestion = "订单服务从 10 点左右开始大量 500，为什么？";

class MetricsE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = fs::temp_directory_path() /
           ("diagd-metrics-e2e-" + std::to_string(::getpid()) + "-" + name);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The demo's own configuration, its folders made absolute, its runs kept
  // here, and [tools.metrics] pointing at `url`.
  fs::path WriteConfig(const std::string& url) {
    fs::path demo = fs::path(DIAGD_SOURCE_DIR) / "examples/demo";
    std::string text = e2e::ReadFile(demo / "diagd.toml");
    auto replace = [&](const std::string& from, const std::string& to) {
      auto at = text.find(from);
      ASSERT_NE(at, std::string::npos) << from;
      text.replace(at, from.size(), to);
    };
    replace("path = \"docs\"", "path = \"" + (demo / "docs").string() + "\"\ncache_path = \"" +
                                   (dir_ / "cache").string() + "\"");
    replace("path = \"logs\"", "path = \"" + (demo / "logs").string() + "\"");
    replace("url = \"sqlite:data/orders.db\"",
            "url = \"sqlite:" + (demo / "data/orders.db").string() + "\"");
    replace("runs = \"sqlite:data/diagd.db\"",
            "runs = \"sqlite:" + (dir_ / "runs.db").string() + "\"");
    text += "\n[tools.metrics]\nbackend = \"prometheus\"\nurl = \"" + url + "\"\n";
    fs::path config = dir_ / "diagd.toml";
    std::ofstream(config) << text;
    return config;
  }

  Invocation Ask(const fs::path& config) {
    return e2e::RunDiagd({"ask", "--config", config.string(), "--json", kQuestion}, dir_);
  }

  fs::path dir_;
};

// The entries of `array` (an array of objects) whose "tool" is query_metrics.
std::vector<boost::json::object> MetricsEntries(const boost::json::value& array) {
  std::vector<boost::json::object> out;
  if (!array.is_array()) return out;
  for (const auto& entry : array.as_array()) {
    if (entry.is_object() && entry.as_object().contains("tool") &&
        entry.as_object().at("tool") == "query_metrics") {
      out.push_back(entry.as_object());
    }
  }
  return out;
}

TEST_F(MetricsE2eTest, TheReleasedDiagnosisCitesAVerifiedSeriesSummary) {
  auto demo = testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(prometheus, {.openmetrics = *demo});
  Invocation ask = Ask(WriteConfig(prometheus->url()));
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  ASSERT_EQ(result.at("release_outcome"), "DIAGNOSIS") << ask.out;
  // The metrics call ran and found series.
  auto calls = MetricsEntries(result.at("process"));
  ASSERT_FALSE(calls.empty()) << ask.out;
  EXPECT_EQ(calls.front().at("evidence_status"), "EVIDENCE_FOUND");
  // The cause stays the release; the metrics corroborate it with a quote of
  // a series summary, which release verified against the stored result.
  const auto& diagnosis = result.at("diagnosis").as_object();
  EXPECT_NE(std::string(diagnosis.at("root_cause").as_string()).find("v2.3.1"), std::string::npos);
  auto cited = MetricsEntries(diagnosis.at("evidence"));
  ASSERT_FALSE(cited.empty()) << ask.out;
  std::string quote(cited.front().at("quote").as_string());
  EXPECT_NE(quote.find("hikaricp_connections_active{"), std::string::npos) << quote;
  EXPECT_TRUE(std::regex_search(quote, std::regex("largest change [+-][0-9.]+ at 2026-11-29T")))
      << quote;
}

TEST_F(MetricsE2eTest, PrometheusStoppedIsAToolErrorAndTheRunStillReleases) {
  auto demo = testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(prometheus, {.openmetrics = *demo});
  fs::path config = WriteConfig(prometheus->url());
  prometheus->Stop();
  Invocation ask = Ask(config);
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS") << ask.out;
  auto calls = MetricsEntries(result.at("process"));
  ASSERT_FALSE(calls.empty()) << ask.out;
  for (const auto& call : calls) EXPECT_EQ(call.at("evidence_status"), "ERROR");
  EXPECT_TRUE(MetricsEntries(result.at("diagnosis").at("evidence")).empty());
}

TEST_F(MetricsE2eTest, CheckReportsTheEndpointAndTheNamesItServes) {
  auto demo = testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(prometheus, {.openmetrics = *demo});
  fs::path config = WriteConfig(prometheus->url());
  Invocation check =
      e2e::RunDiagd({"check", "--config", config.string(), "--json", "--no-model"}, dir_);
  auto report = boost::json::parse(check.out).as_object();
  bool found = false;
  for (const auto& row : report.at("checks").as_array()) {
    if (row.at("part") != "metrics") continue;
    found = true;
    EXPECT_EQ(row.at("ok"), true) << check.out;
    EXPECT_NE(std::string(row.at("detail").as_string()).find("6 metric names"), std::string::npos)
        << check.out;
  }
  EXPECT_TRUE(found) << check.out;

  prometheus->Stop();
  check = e2e::RunDiagd({"check", "--config", config.string(), "--json", "--no-model"}, dir_);
  EXPECT_NE(check.exit_code, 0);
  EXPECT_NE(check.out.find("Prometheus-compatible API"), std::string::npos) << check.out;
}

// The real model client against the scripted model server (it plays a
// script; it is no model): a conclusion citing a metrics series by the words
// of its summary is released; the same conclusion citing a change the
// summary does not state is not.
class ScriptedMetricsTest : public e2e::CliTest {
 protected:
  void OfferMetrics(const std::string& url) {
    std::ofstream(dir_ / "diagd.toml", std::ios::app)
        << "[tools.metrics]\nurl = \"" << url << "\"\n";
  }
  static std::string Draft(const std::string& quote) {
    boost::json::object draft{
        {"conclusion",
         {{"root_cause", "payment-service 的数据库连接池被占满"},
          {"confidence", "MEDIUM"},
          {"evidence", boost::json::array{{{"tool_call_id", "call_1"}, {"quote", quote}}}}}}};
    return boost::json::serialize(draft);
  }
  static constexpr const char* kCall =
      R"({"input":{"query":"hikaricp_connections_active{service=\"payment-service\"}","lookback_minutes":60}})";
  static constexpr const char* kQuestion = "payment-service 的连接池为什么耗尽？";
};

TEST_F(ScriptedMetricsTest, AQuoteOfTheSummaryIsReleasedAndAChangeItDoesNotStateIsNot) {
  auto demo = testing::DemoMetrics();
  ASSERT_TRUE(demo) << demo.error().ToString();
  DIAGD_START_PROMETHEUS(prometheus, {.openmetrics = *demo});
  OfferMetrics(prometheus->url());
  const std::string summary_head =
      R"(hikaricp_connections_active{pool="HikariPool-1", service="payment-service"}: first )";
  server_.CallTools({{"call_1", "query_metrics", kCall, false}})
      .Answer(Draft(summary_head))
      .Answer(R"({"verdict":"SUPPORTED"})");
  auto ask = Ask(kQuestion, {"--route", "diagnosis"});
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  ASSERT_EQ(result.at("release_outcome"), "DIAGNOSIS") << ask.out;
  auto cited = MetricsEntries(result.at("diagnosis").at("evidence"));
  ASSERT_EQ(cited.size(), 1u) << ask.out;
  EXPECT_EQ(std::string(cited[0].at("quote").as_string()), summary_head);
  // What the model was shown of the call: the series with its summary.
  auto requests = server_.Requests();
  ASSERT_GE(requests.size(), 2u);
  const std::string& shown = requests[1].body;
  EXPECT_NE(shown.find("largest change"), std::string::npos);

  // A change of +999 is no words of the summary: the evidence guard refuses
  // it (and its one repair, which cites it again).
  const std::string invented = "hikaricp_connections_active largest change +999";
  server_.CallTools({{"call_1", "query_metrics", kCall, false}})
      .Answer(Draft(invented))
      .Answer(Draft(invented))
      .Answer(Draft(invented));
  ask = Ask(kQuestion, {"--route", "diagnosis"});
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  result = boost::json::parse(ask.out).as_object();
  EXPECT_EQ(result.at("release_outcome"), "FALLBACK") << ask.out;
  EXPECT_EQ(ask.out.find("+999"), std::string::npos) << ask.out;
}

}  // namespace
}  // namespace diagd
