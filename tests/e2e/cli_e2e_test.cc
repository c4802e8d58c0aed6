// The diagd binary end to end: real tools over the demo workspace, the real
// OpenAI-compatible client against the scripted model server over HTTP (it
// plays scripted turns; it is no model), the SQLite run store in a temp
// folder. Checks stdout JSON, exit codes, stderr progress, and the stored
// run record and trace.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/cli_fixture.h"

namespace diagd {
namespace {

using namespace e2e;  // NOLINT: the fixture's names

constexpr const char* kHikari = "HikariPool-1 - Connection is not available";

TEST_F(CliTest, AskDiagnosesThroughRouterAgentGuardsAndStoresTheRun) {
  server_.Answer(R"({"route":"DIAGNOSIS"})")
      .CallTools({{"call_1", "query_logs",
                   R"({"input":{"topic":"payment-service","query":"level:ERROR HikariPool"}})", false}})
      .Answer(std::string(R"({"conclusion":{"root_cause":"payment-service 数据库连接池耗尽",)") +
              R"("confidence":"MEDIUM","evidence":[{"tool_call_id":"call_1","quote":")" + kHikari +
              R"("}]},"next_steps":["检查 payment-db 慢查询"]})")
      .Answer(R"({"verdict":"SUPPORTED"})");
  auto ask = Ask("订单服务为什么大量 500？");
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  EXPECT_EQ(result.at("route"), "DIAGNOSIS");
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS");
  EXPECT_TRUE(result.at("fallback").is_null());
  const auto& evidence = result.at("diagnosis").at("evidence").as_array();
  ASSERT_EQ(evidence.size(), 1u);
  EXPECT_EQ(evidence[0].at("tool"), "query_logs");
  EXPECT_EQ(evidence[0].at("quote"), kHikari);
  EXPECT_EQ(result.at("process").as_array().size(), 1u);
  EXPECT_NE(ask.err.find("[1] query_logs"), std::string::npos) << "progress on stderr";
  EXPECT_NE(ask.err.find("-> EVIDENCE_FOUND"), std::string::npos);
  ExpectNothingForbidden(ask.out);
  ExpectNothingForbidden(ask.err);

  // The provider saw each component's header.
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].headers.at("x-diagd-component"), "ROUTER");
  EXPECT_EQ(requests[1].headers.at("x-diagd-component"), "DIAGNOSIS_AGENT");
  EXPECT_EQ(requests[3].headers.at("x-diagd-component"), "SEMANTIC_GUARD");

  auto record = RunRecord(std::string(result.at("run_id").as_string()));
  EXPECT_EQ(record.at("status"), "SUCCEEDED");
  EXPECT_EQ(record.at("internal_status"), "COMPLETED");
  EXPECT_EQ(record.at("release_outcome"), "DIAGNOSIS");
  EXPECT_EQ(record.at("result"), result);
  EXPECT_EQ(record.at("steps").as_array().size(), 2u);
  const auto& trace = record.at("trace").as_array();
  EXPECT_EQ(trace.front().at("type"), "RUN_STARTED");
  EXPECT_EQ(trace.back().at("type"), "RUN_FINISHED");
  ExpectTokensReconcile(record);
  ExpectNothingForbidden(boost::json::serialize(record.at("result")));
}

// docs/specs/release.md: a verified conclusion about payment-service does not
// answer a question about db-7, which no data of the run mentions; a topic
// alias makes a Chinese service name a subject its own topic reaches.
TEST_F(CliTest, AConclusionThatNeverReachesTheAskedSubjectIsNotReleased) {
  const std::string tools =
      R"({"input":{"topic":"payment-service","query":"level:ERROR HikariPool"}})";
  const std::string draft =
      std::string(R"({"conclusion":{"root_cause":"payment-service 数据库连接池耗尽",)") +
      R"("confidence":"MEDIUM","evidence":[{"tool_call_id":"call_1","quote":")" + kHikari +
      R"("}]}})";
  server_.CallTools({{"call_1", "query_logs", tools, false}}).Answer(draft);
  auto ask = Ask("db-7 从 10 点开始为什么大量超时？", {"--route", "diagnosis"});
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  EXPECT_EQ(result.at("release_outcome"), "FALLBACK");
  EXPECT_EQ(result.at("fallback").at("code"), "INSUFFICIENT_EVIDENCE");
  EXPECT_NE(boost::json::serialize(result.at("fallback").at("limitations")).find("「db-7」"),
            std::string::npos);
  EXPECT_EQ(server_.Requests().size(), 2u) << "no semantic guard call";
  auto record = RunRecord(std::string(result.at("run_id").as_string()));
  std::string decided;
  for (const auto& event : record.at("trace").as_array()) {
    if (event.at("type") == "RELEASE_DECIDED") {
      decided = std::string(event.at("fields").at("subject_check").as_string());
    }
  }
  EXPECT_EQ(decided, "FAILED");

  WriteConfig("");
  std::ofstream(dir_ / "diagd.toml", std::ios::app)
      << "[tools.logs.topics.payment-service]\naliases = [\"支付服务\"]\n";
  server_.CallTools({{"call_1", "query_logs", tools, false}})
      .Answer(draft)
      .Answer(R"({"verdict":"SUPPORTED"})");
  ask = Ask("支付服务为什么大量超时？", {"--route", "diagnosis"});
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  result = boost::json::parse(ask.out).as_object();
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS");
  record = RunRecord(std::string(result.at("run_id").as_string()));
  for (const auto& event : record.at("trace").as_array()) {
    if (event.at("type") == "RELEASE_DECIDED") {
      EXPECT_EQ(event.at("fields").at("subject_check"), "PASSED");
    }
  }
}

TEST_F(CliTest, RouteKnowledgeSkipsTheRouterAndKeepsOnlyRetrievedCitations) {
  server_.Answer(R"({"text":"先回滚再补索引。","citations":["not-retrieved"]})");
  auto ask = Ask("慢查询怎么处理", {"--route", "knowledge"});
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  EXPECT_EQ(result.at("route"), "KNOWLEDGE");
  EXPECT_EQ(result.at("release_outcome"), "ANSWER");
  EXPECT_EQ(result.at("answer").at("text"), "先回滚再补索引。");
  EXPECT_TRUE(result.at("answer").at("citations").as_array().empty());
  ASSERT_EQ(server_.Requests().size(), 1u);
  EXPECT_EQ(server_.Requests()[0].headers.at("x-diagd-component"), "KNOWLEDGE_ANSWER");
}

TEST_F(CliTest, AnInvalidFinalOutputWithNothingCheckedIsAFailedFallbackExitingOne) {
  server_.Answer("根因是网络故障。");
  auto ask = Ask("订单服务为什么大量 500？", {"--route", "diagnosis"});
  EXPECT_EQ(ask.exit_code, 1) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();  // still printed with --json
  EXPECT_EQ(result.at("release_outcome"), "FALLBACK");
  EXPECT_EQ(result.at("fallback").at("code"), "FAILED");
  EXPECT_EQ(ask.out.find("网络故障"), std::string::npos) << "the invalid output is discarded";
  auto record = RunRecord(std::string(result.at("run_id").as_string()));
  EXPECT_EQ(record.at("status"), "FAILED");
  bool rejected = false;
  for (const auto& event : record.at("trace").as_array()) {
    rejected |= event.at("type") == "AGENT_OUTPUT_REJECTED";
  }
  EXPECT_TRUE(rejected);
  EXPECT_EQ(boost::json::serialize(record).find("网络故障"), std::string::npos);
}

TEST_F(CliTest, MissingContextIsAskedForAndAFollowUpCarriesTheEarlierTurns) {
  server_.Answer(R"({"conclusion":null,"limitations":{"missing_info":["时间范围","服务名"]}})");
  auto first = Ask("系统挂了", {"--route", "diagnosis"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto result = boost::json::parse(first.out).as_object();
  EXPECT_EQ(result.at("fallback").at("code"), "MISSING_REQUIRED_CONTEXT");
  EXPECT_EQ(result.at("fallback").at("missing_info"), (boost::json::array{"时间范围", "服务名"}));

  server_.Answer(R"({"conclusion":null})");
  std::string conversation(result.at("conversation_id").as_string());
  auto second = Ask("订单服务，10 点以后", {"--route", "diagnosis", "--conversation", conversation});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(boost::json::parse(second.out).at("conversation_id"), result.at("conversation_id"));
  auto requests = server_.Requests();
  std::string history = boost::json::serialize(requests.back().json.at("messages"));
  EXPECT_NE(history.find("系统挂了"), std::string::npos) << "the earlier question is context";
  EXPECT_NE(history.find("订单服务，10 点以后"), std::string::npos);
}

TEST_F(CliTest, ConfigurationAndUsageErrorsExitTwoNamingTheProblem) {
  WriteConfig("unknown_key = 1\n");
  auto bad_key = Ask("x");
  EXPECT_EQ(bad_key.exit_code, 2);
  EXPECT_NE(bad_key.err.find("unknown_key"), std::string::npos) << bad_key.err;
  EXPECT_TRUE(bad_key.out.empty());

  auto no_question = Run({"ask"});
  EXPECT_EQ(no_question.exit_code, 2);
  auto bad_route = Run({"ask", "--route", "bogus", "x"});
  EXPECT_EQ(bad_route.exit_code, 2);
  auto missing_file = Run({"ask", "--config", (dir_ / "nope.toml").string(), "x"});
  EXPECT_EQ(missing_file.exit_code, 2);
  EXPECT_TRUE(server_.Requests().empty()) << "nothing reached the model";
}

TEST_F(CliTest, AnUnusableStoreOrCacheIsAConfigErrorNamingTheKeyThePathAndWhy) {
  fs::create_directories(dir_ / "runs.db");  // a directory where the database file goes
  auto store = Ask("x");
  EXPECT_EQ(store.exit_code, 2);
  EXPECT_NE(store.err.find("storage.runs"), std::string::npos) << store.err;
  EXPECT_NE(store.err.find((dir_ / "runs.db").string()), std::string::npos) << store.err;
  EXPECT_NE(store.err.find("directory"), std::string::npos) << store.err;
  fs::remove_all(dir_ / "runs.db");

  // The index inside the documents it indexes: refused before anything is
  // written there.
  std::string config = ReadFile(dir_ / "diagd.toml");
  std::string cache_line = "cache_path = \"" + (dir_ / "cache").string() + "\"";
  std::size_t at = config.find(cache_line);
  ASSERT_NE(at, std::string::npos);
  config.replace(at, cache_line.size(),
                 "cache_path = \"" + std::string(DIAGD_SOURCE_DIR) + "/examples/demo/docs/idx\"");
  std::ofstream(dir_ / "diagd.toml") << config;
  auto cache = Ask("x");
  EXPECT_EQ(cache.exit_code, 2);
  EXPECT_NE(cache.err.find("tools.documents.cache_path"), std::string::npos) << cache.err;
  EXPECT_EQ(cache.err.find("tools.documents.path:"), std::string::npos) << cache.err;
  EXPECT_TRUE(server_.Requests().empty()) << "nothing reached the model";
}

TEST_F(CliTest, AnUnreachableModelIsAFailedRunThatIsStillRecorded) {
  WriteConfig("");
  std::string config = ReadFile(dir_ / "diagd.toml");
  auto at = config.find(server_.BaseUrl());
  config.replace(at, server_.BaseUrl().size(), "http://127.0.0.1:9/v1");
  std::ofstream(dir_ / "diagd.toml") << config;
  auto ask = Ask("订单服务为什么大量 500？", {"--route", "diagnosis"});
  EXPECT_EQ(ask.exit_code, 1);
  auto result = boost::json::parse(ask.out).as_object();
  EXPECT_EQ(result.at("fallback").at("code"), "FAILED");
  auto list = Run({"runs", "list", "--config", (dir_ / "diagd.toml").string()});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find(std::string(result.at("run_id").as_string())), std::string::npos);
}

TEST_F(CliTest, DemoDiagnosesTheBundledIncidentOffline) {
  auto demo = Run({"demo", "--json"});
  ASSERT_EQ(demo.exit_code, 0) << demo.err;
  auto result = boost::json::parse(demo.out).as_object();
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS");
  std::string root_cause(result.at("diagnosis").at("root_cause").as_string());
  EXPECT_NE(root_cause.find("v2.3.1"), std::string::npos) << root_cause;
  EXPECT_NE(root_cause.find("user_id"), std::string::npos) << root_cause;
  EXPECT_NE(demo.err.find("offline (rule-based, not an LLM)"), std::string::npos);
  EXPECT_TRUE(server_.Requests().empty()) << "the demo needs no model server";
  ExpectNothingForbidden(demo.out);
}

TEST_F(CliTest, DemoRefusesAMetricsUrlThatIsNotHttpBeforeAskingAnything) {
  auto demo = Run({"demo", "--json", "--metrics-url", "127.0.0.1:9090"});
  EXPECT_EQ(demo.exit_code, 2);
  EXPECT_NE(demo.err.find("--metrics-url: not an http:// or https:// URL: 127.0.0.1:9090"),
            std::string::npos)
      << demo.err;
  EXPECT_TRUE(demo.out.empty()) << demo.out;
}

}  // namespace
}  // namespace diagd
