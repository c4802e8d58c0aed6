// The diagnosis loop through the real OpenAI-compatible client against the
// scripted model server, over real HTTP: what the provider sees, and how the
// loop ends when the provider misbehaves.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>

#include "agent_fixture.h"
#include "model/openai_client.h"
#include "testing/scripted_model_server.h"

namespace diagd::agent {
namespace {

using diagd::testing::ScriptedModelServer;
using diagd::testing::ScriptedToolCall;
using testing::AgentTest;
using testing::DocsArgs;
using testing::DraftCiting;
using testing::LogsArgs;

class AgentOverHttpTest : public AgentTest {
 protected:
  DiagnosisAgentExecution RunOverHttp() {
    config::ModelConfig config;
    config.defaults.base_url = server_.BaseUrl();
    config.defaults.name = "qwen2.5-72b-instruct";
    for (auto component : config::kAllModelComponents) {
      config.per_component[component] = config.defaults;
    }
    model::OpenAiClientOptions options;
    options.timeout = std::chrono::milliseconds(500);
    options.sleep = [](std::chrono::milliseconds) {};
    model::OpenAiChatModel client(config, options);
    DiagnosisAgentUseCase agent({client, *catalog_, *boundary_, store_, config::Language::kZh, {}});
    return agent.Execute(*run_, "订单服务为什么报 500？");
  }

  ScriptedModelServer server_;
};

// Every key a tool message may carry (docs/specs/tool-contracts.md), and the keys
// of evidence items and events.
const std::set<std::string> kObservationKeys = {
    "tool_call_id", "query", "evidence_status", "evidence", "relevance_level", "truncated",
    "topic", "lookback_minutes", "events", "datasource", "sql", "params", "columns", "rows",
    "stop_required", "reason", "error_code", "repair_required", "violation_type",
    "missing_field", "expected_previous_tool_call_id", "allowed_information_gain", "field",
    "duplicate_of_tool_call_id", "message"};

TEST_F(AgentOverHttpTest, NoModelRequestCarriesAKeyOutsideTheObservationWhitelist) {
  server_.CallTools({{"call_1", "search_documents", DocsArgs("连接池"), false}})
      .CallTools({{"call_2", "query_logs", LogsArgs("HikariPool", "call_1"), false}})
      .CallTools({{"call_3", "query_logs", LogsArgs("HikariPool", "call_2"), false}})  // duplicate
      .CallTools({{"call_4", "query_mysql",
                   R"({"input":{"datasource":"orders","sql":"DELETE FROM t"}})", false}})
      .Answer(DraftCiting("call_2", "HikariPool-1 - Connection is not available"));
  auto execution = RunOverHttp();
  ASSERT_TRUE(execution.draft.has_value());
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 5u);
  int tool_messages = 0;
  for (const auto& request : requests) {
    EXPECT_EQ(request.headers.at("x-diagd-component"), "DIAGNOSIS_AGENT");
    for (const auto& message : request.json.at("messages").as_array()) {
      if (message.at("role") != "tool") continue;
      ++tool_messages;
      auto content = boost::json::parse(message.at("content").as_string());
      for (const auto& member : content.as_object()) {
        EXPECT_TRUE(kObservationKeys.count(std::string(member.key())))
            << member.key() << " in " << message.at("content").as_string();
      }
      for (const char* list : {"evidence", "events"}) {
        if (!content.as_object().contains(list)) continue;
        for (const auto& item : content.at(list).as_array()) {
          for (const auto& member : item.as_object()) {
            EXPECT_TRUE(std::set<std::string>({"document_id", "source", "title", "breadcrumb",
                                               "excerpt", "timestamp", "level", "service",
                                               "message"})
                            .count(std::string(member.key())))
                << member.key();
          }
        }
      }
    }
    // Nothing of the harness's own state reaches the provider.
    for (const char* leak : {"returned_count", "run-1", "consecutive", "threshold", "budget",
                             "scope_summary", "identity", "raw_response"}) {
      EXPECT_EQ(request.body.find(leak), std::string::npos) << leak;
    }
  }
  EXPECT_EQ(tool_messages, 1 + 2 + 3 + 4) << "each request carries the history so far";
}

TEST_F(AgentOverHttpTest, ProviderTimeoutIsAFailureNotAStop) {
  server_.CallTools({{"call_1", "search_documents", DocsArgs("连接池"), false}})
      .AnswerAfter(std::chrono::milliseconds(2000), R"({"conclusion":null})");
  auto execution = RunOverHttp();
  EXPECT_FALSE(execution.draft.has_value());
  ASSERT_TRUE(execution.failure.has_value());
  EXPECT_EQ(execution.failure->code, ErrorCode::kDeadlineExceeded);
  EXPECT_FALSE(execution.stop_reason.has_value());
  EXPECT_TRUE(execution.snapshot.HasObservedFacts());
  EXPECT_EQ(run_->ledger().Totals().audited_calls, 1) << "the timed-out call is not audited";
}

TEST_F(AgentOverHttpTest, ProviderErrorsAndHtmlAreFailures) {
  server_.FailWithStatus(500, "boom").FailWithStatus(500, "boom").FailWithStatus(500, "boom");
  auto unavailable = RunOverHttp();
  ASSERT_TRUE(unavailable.failure.has_value());
  EXPECT_EQ(unavailable.failure->code, ErrorCode::kUnavailable);
  EXPECT_EQ(unavailable.failure->reason, FailureReason::kModelHttpError);
  EXPECT_EQ(server_.Requests().size(), 3u) << "bounded retries";

  Reset(harness::BudgetLimits{});
  server_.AnswerHtml().AnswerHtml().AnswerHtml();  // not JSON: retried, then given up
  auto html = RunOverHttp();
  ASSERT_TRUE(html.failure.has_value());
  EXPECT_EQ(html.failure->reason, FailureReason::kModelBadResponse);
  EXPECT_FALSE(html.rejected_output.has_value()) << "not a model output: a provider failure";
}

TEST_F(AgentOverHttpTest, RepeatedIdsAndMissingUsageOverHttp) {
  server_.CallTools({{"call_0", "search_documents", DocsArgs("连接池"), false}}, std::nullopt)
      .CallTools({{"call_0", "query_logs", LogsArgs("HikariPool", "call_0"), false}})
      .Answer(R"({"conclusion":null})");
  auto execution = RunOverHttp();
  ASSERT_TRUE(execution.draft.has_value());
  EXPECT_EQ(execution.steps[1].tool_call_ids[0], "call_1");
  auto last = server_.Requests().back().json.at("messages").as_array();
  EXPECT_EQ(last.back().at("tool_call_id"), "call_1");
  run_->RecordRunFinished("SUCCEEDED", "COMPLETED");
  EXPECT_NE(Trace().find("usage_available=false"), std::string::npos);
  EXPECT_NE(Trace().find("tokens_reconciled=false"), std::string::npos);
}

}  // namespace
}  // namespace diagd::agent
