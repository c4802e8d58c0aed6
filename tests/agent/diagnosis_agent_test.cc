#include "agent/diagnosis_agent.h"

#include <gtest/gtest.h>

#include <set>

#include "agent_fixture.h"
#include "core/json.h"

namespace diagd::agent {
namespace {

using harness::StopReason;
using testing::AgentTest;
using testing::DocsArgs;
using testing::DraftCiting;
using testing::LogsArgs;
using testing::ToolCall;

TEST_F(AgentTest, NormalInvestigationEndsInADraft) {
  model_.Call({ToolCall("call_1", "search_documents", DocsArgs("连接池"))})
      .Call({ToolCall("call_2", "query_logs", LogsArgs("HikariPool", "call_1"))})
      .Answer(DraftCiting("call_2", "HikariPool-1 - Connection is not available"));
  auto execution = Run();
  ASSERT_TRUE(execution.draft.has_value());
  EXPECT_FALSE(execution.stop_reason.has_value());
  EXPECT_FALSE(execution.failure.has_value());
  EXPECT_EQ(execution.draft->conclusion->evidence[0].tool_call_id, "call_2");
  ASSERT_EQ(execution.steps.size(), 3u);
  EXPECT_EQ(execution.steps[0].round, 1);
  EXPECT_EQ(execution.steps[2].round, 3);
  EXPECT_EQ(execution.steps[1].tool_call_ids, std::vector<std::string>{"call_2"});
  EXPECT_EQ(execution.steps[1].token_count, 120);
  ASSERT_EQ(execution.snapshot.entries.size(), 2u);
  EXPECT_TRUE(execution.snapshot.HasObservedFacts());
  // The tool result went back to the model as a tool message with the same id.
  auto requests = model_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  const auto& last = requests[2].messages;
  EXPECT_EQ(last.back().role, model::Role::kTool);
  EXPECT_EQ(last.back().tool_call_id, "call_2");
  EXPECT_TRUE(last.back().content.empty());
  EXPECT_TRUE(last.back().shared_content) << "held once, however many requests carry it";
  EXPECT_EQ(requests[0].component, model::Component::kDiagnosisAgent);
  EXPECT_EQ(model::OfferedTools(requests[0]).size(), 3u);
}

TEST_F(AgentTest, RunsOfOneCatalogSnapshotShareOneListOfOfferedTools) {
  const std::string no_conclusion = R"({"conclusion":null,"limitations":{"missing_info":["服务名"]}})";
  model_.Answer(no_conclusion).Answer(no_conclusion).Answer(no_conclusion);
  Run();
  run_ = std::make_unique<harness::RunContext>("run-2", harness::RunLimits{{}, {3, 2}}, clock_);
  Run();
  // Another snapshot of the tools (here another catalog's) is offered as it is.
  tools::CatalogOptions options;
  options.logs.topics = {"payment-service"};
  options.english = true;
  catalog_ = std::make_unique<tools::ToolCatalog>(options);
  run_ = std::make_unique<harness::RunContext>("run-3", harness::RunLimits{{}, {3, 2}}, clock_);
  Run();

  auto requests = model_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  ASSERT_NE(requests[0].tools, nullptr);
  EXPECT_EQ(requests[0].tools.get(), requests[1].tools.get());  // shared, not a copy each
  EXPECT_NE(requests[2].tools.get(), requests[0].tools.get());
  auto definitions = catalog_->Definitions();
  auto offered = model::OfferedTools(requests[2]);
  ASSERT_EQ(offered.size(), definitions->size());
  for (std::size_t i = 0; i < offered.size(); ++i) {
    EXPECT_EQ(offered[i].name, (*definitions)[i].name);
    EXPECT_EQ(offered[i].description, (*definitions)[i].description);
    EXPECT_EQ(offered[i].parameters_schema, (*definitions)[i].parameters_schema);
  }
  EXPECT_NE(offered[1].parameters_schema.find("payment-service"), std::string::npos);
}

TEST_F(AgentTest, ZeroToolCallsWithMissingInfoIsALegalDraft) {
  model_.Answer(R"({"conclusion":null,"limitations":{"missing_info":["时间范围","服务名"]}})");
  auto execution = Run("系统挂了");
  ASSERT_TRUE(execution.draft.has_value());
  EXPECT_FALSE(execution.draft->conclusion.has_value());
  EXPECT_EQ(execution.draft->limitations.missing_info.size(), 2u);
  EXPECT_TRUE(execution.snapshot.entries.empty());
  EXPECT_EQ(Trace().find("COLLECTION_STOPPED"), std::string::npos);
}

TEST_F(AgentTest, StopThenADraftKeepsTheDraftAndTheStopReason) {
  for (int i = 0; i < 3; ++i) logs_.PushEmpty(tools::LogsRequest{"order-service", "x", 60});
  model_.Call({ToolCall("c1", "query_logs", LogsArgs("a"))})
      .Call({ToolCall("c2", "query_logs", LogsArgs("b"))})
      .Call({ToolCall("c3", "query_logs", LogsArgs("c"))})
      .Answer(R"({"conclusion":null,"findings":[{"tool_call_id":"c1","kind":"NOT_FOUND","statement":"无相关日志"}]})");
  auto execution = Run();
  ASSERT_TRUE(execution.draft.has_value());
  EXPECT_EQ(execution.stop_reason, StopReason::kInformationSaturated);
  EXPECT_NE(Trace().find("COLLECTION_STOPPED stop_reason=INFORMATION_SATURATED"), std::string::npos);
}

TEST_F(AgentTest, AToolCallAfterTheStopEndsTheLoopWithoutADraft) {
  model_.Call({ToolCall("c1", "query_logs", "not an envelope")})
      .Call({ToolCall("c2", "query_logs", "still not")})
      .Call({ToolCall("c3", "query_logs", LogsArgs("x"))})
      .Answer("never asked");
  auto execution = Run();
  EXPECT_FALSE(execution.draft.has_value());
  EXPECT_FALSE(execution.failure.has_value()) << "a stop is not an internal failure";
  EXPECT_EQ(execution.stop_reason, StopReason::kProgressProtocolViolated);
  EXPECT_EQ(model_.Remaining(), 1u);
  EXPECT_EQ(logs_.calls(), 0);
  std::string trace = Trace();
  EXPECT_NE(trace.find("error_code=COLLECTION_STOPPED"), std::string::npos);
  auto first = trace.find("\nCOLLECTION_STOPPED stop_reason=PROGRESS_PROTOCOL_VIOLATED");
  ASSERT_NE(first, std::string::npos) << trace;
  EXPECT_EQ(trace.find("\nCOLLECTION_STOPPED", first + 1), std::string::npos);
}

TEST_F(AgentTest, TwoProtocolViolationsInARowDeliverTheStopOnce) {
  model_.Call({ToolCall("c1", "query_logs", "{}")})
      .Call({ToolCall("c2", "query_logs", "{}")})
      .Answer(R"({"conclusion":null})");
  auto execution = Run();
  ASSERT_TRUE(execution.draft.has_value());
  EXPECT_EQ(execution.stop_reason, StopReason::kProgressProtocolViolated);
  auto requests = model_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  auto stop = json::Parse(model::ContentOf(requests[2].messages.back()));
  EXPECT_EQ(stop->at("stop_required"), true);
  EXPECT_EQ(stop->at("reason"), "PROGRESS_PROTOCOL_VIOLATED");
}

TEST_F(AgentTest, TwoToolCallsInOneResponseAreHandledOneByOne) {
  model_.Call({ToolCall("c1", "search_documents", DocsArgs("a")),
               ToolCall("c2", "query_logs", LogsArgs("b"))})
      .Answer(DraftCiting("c1", "命中: a"));
  auto execution = Run();
  ASSERT_TRUE(execution.draft.has_value());
  EXPECT_EQ(docs_.calls(), 1);
  EXPECT_EQ(logs_.calls(), 0) << "the second call was rejected: the first awaited its grade";
  auto requests = model_.Requests();
  auto messages = requests[1].messages;
  ASSERT_GE(messages.size(), 2u);
  auto second = json::Parse(model::ContentOf(messages.back()));
  EXPECT_EQ(second->at("violation_type"), "MISSING_PREVIOUS_OBSERVATION");
}

TEST_F(AgentTest, RepeatedOrMissingToolCallIdsAreReplacedConsistently) {
  model_.Call({ToolCall("dup", "search_documents", DocsArgs("a"))})
      .Call({ToolCall("dup", "query_logs", LogsArgs("b", "dup"))})
      .Call({ToolCall("", "query_logs", LogsArgs("c", "call_1"))})
      .Answer(R"({"conclusion":null})");
  auto execution = Run();
  ASSERT_TRUE(execution.draft.has_value());
  ASSERT_EQ(execution.steps.size(), 4u);
  EXPECT_EQ(execution.steps[0].tool_call_ids[0], "dup");
  EXPECT_EQ(execution.steps[1].tool_call_ids[0], "call_1");
  EXPECT_EQ(execution.steps[2].tool_call_ids[0], "call_2");
  // The history the model sees uses the replaced ids everywhere.
  auto requests = model_.Requests();
  ASSERT_EQ(requests.size(), 4u);
  const auto& history = requests[3].messages;
  std::set<std::string> assistant_ids, tool_ids;
  for (const auto& message : history) {
    for (const auto& call : message.tool_calls) assistant_ids.insert(call.id);
    if (message.role == model::Role::kTool) tool_ids.insert(message.tool_call_id);
  }
  EXPECT_EQ(assistant_ids, (std::set<std::string>{"dup", "call_1", "call_2"}));
  EXPECT_EQ(tool_ids, assistant_ids);
  EXPECT_EQ(logs_.calls(), 2) << "the grade of call_1 matched its replaced id";
}

struct InvalidOutput {
  const char* text;
  const char* category;
};

TEST_F(AgentTest, InvalidFinalOutputsAreDiscardedWithOnlyACategoryTraced) {
  const InvalidOutput cases[] = {
      {"```json\n{\"conclusion\":null}\n```", "NOT_JSON"},
      {"根因是连接池耗尽。{\"conclusion\":null}", "NOT_JSON"},
      {"", "EMPTY_OUTPUT"},
      {"  \n ", "EMPTY_OUTPUT"},
      {"{\"conclusion\":null", "NOT_JSON"},
      {"[1,2]", "NOT_AN_OBJECT"},
      {"{\"conclusion\":null,\"thoughts\":\"secret reasoning\"}", "SCHEMA_VIOLATION"},
      {"{\"findings\":[]}", "SCHEMA_VIOLATION"},
      {"{\"conclusion\":{\"root_cause\":\"x\",\"confidence\":\"SURE\",\"evidence\":[]}}",
       "SCHEMA_VIOLATION"},
  };
  for (const auto& c : cases) {
    Reset(harness::BudgetLimits{});
    model_.Answer(c.text);
    auto execution = Run();
    EXPECT_FALSE(execution.draft.has_value()) << c.text;
    ASSERT_TRUE(execution.rejected_output.has_value()) << c.text;
    EXPECT_STREQ(DraftRejectionString(execution.rejected_output->category), c.category) << c.text;
    std::string trace = Trace();
    EXPECT_NE(trace.find(std::string("AGENT_OUTPUT_REJECTED failure_category=") + c.category +
                         " output_bytes=" + std::to_string(std::string(c.text).size()) +
                         " has_publishable_progress=false"),
              std::string::npos)
        << trace;
    EXPECT_EQ(trace.find("secret"), std::string::npos);
    EXPECT_EQ(trace.find("根因"), std::string::npos);
  }
}

TEST_F(AgentTest, RejectedOutputSaysWhetherPublishableProgressExisted) {
  model_.Call({ToolCall("c1", "search_documents", DocsArgs("连接池"))}).Answer("我认为是数据库问题");
  auto execution = Run();
  ASSERT_TRUE(execution.rejected_output.has_value());
  EXPECT_NE(Trace().find("has_publishable_progress=true"), std::string::npos);
}

TEST_F(AgentTest, ModelFailureEndsTheLoopAsAFailureNotAStop) {
  model_.Call({ToolCall("c1", "search_documents", DocsArgs("a"))})
      .Fail(Error::Unavailable("model unreachable"));
  auto execution = Run();
  EXPECT_FALSE(execution.draft.has_value());
  ASSERT_TRUE(execution.failure.has_value());
  EXPECT_EQ(execution.failure->code, ErrorCode::kUnavailable);
  EXPECT_FALSE(execution.stop_reason.has_value());
  EXPECT_EQ(execution.snapshot.entries.size(), 1u) << "the process so far is kept";
}

}  // namespace
}  // namespace diagd::agent
