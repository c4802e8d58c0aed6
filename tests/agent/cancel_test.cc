// A cancelled run (docs/console.md) in the agent loop and release: once
// the run's cancel is requested no model or tool call is made, the loop
// ends with stop reason CANCELLED and no draft, and release publishes a
// fallback from what was checked with no model call (no repair, no
// semantic guard), as after a budget stop.
#include <gtest/gtest.h>

#include <stop_token>

#include "agent/agent_fixture.h"
#include "release/diagnosis_release.h"

namespace diagd::agent::testing {
namespace {

// Requests the run's cancel while it executes a tool call (the call itself
// completes: a local tool runs to its end).
class CancellingAdapter final : public tools::ToolAdapter {
 public:
  explicit CancellingAdapter(std::stop_source& cancel) : cancel_(cancel) {}

 private:
  Result<tools::AdapterOutput, tools::AdapterFailure> DoExecute(const tools::ToolRequest& request,
                                                                MonoTime deadline,
                                                                const std::stop_token&) override {
    cancel_.request_stop();
    return echo_.Execute(request, deadline);
  }

  std::stop_source& cancel_;
  tools::testing::ScriptedAdapter echo_;
};

class AgentCancelTest : public AgentTest {
 protected:
  AgentCancelTest() {
    run_ = std::make_unique<harness::RunContext>("run-1", harness::RunLimits{{}, {3, 2}}, clock_,
                                                 cancel_.get_token());
  }
  // Logs go through an adapter that cancels the run as it answers.
  void CancelDuringLogs() {
    boundary_ = std::make_unique<tools::ToolBoundary>(
        std::map<tools::ToolName, tools::ToolAdapter*>{
            {tools::documents::kSearchDocuments, &docs_}, {tools::logs::kQueryLogs, &cancelling_}},
        store_, clock_, tools::BoundaryOptions{}, [](std::chrono::milliseconds) {});
  }
  release::ReleaseDecision Release(const DiagnosisAgentExecution& execution) {
    release::DiagnosisReleaseUseCase release({model_, store_, config::Language::kZh, {}, {}});
    return release.Release(*run_, "订单服务为什么报 500？", execution);
  }

  std::stop_source cancel_;
  CancellingAdapter cancelling_{cancel_};
};

TEST_F(AgentCancelTest, ACancelledRunMakesNoModelCall) {
  model_.Call({ToolCall("call_1", "query_logs", LogsArgs("HikariPool"))});
  cancel_.request_stop();
  auto execution = Run();
  EXPECT_EQ(execution.stop_reason, harness::StopReason::kCancelled);
  EXPECT_FALSE(execution.draft.has_value());
  EXPECT_FALSE(execution.failure.has_value()) << "a cancel is no failure";
  EXPECT_TRUE(model_.Requests().empty());
  EXPECT_TRUE(run_->ledger().Failures().empty());
  auto decision = Release(execution);
  ASSERT_TRUE(decision.fallback.has_value());
  EXPECT_EQ(decision.fallback->code, release::FallbackCode::kFailed) << "nothing was checked";
  EXPECT_TRUE(model_.Requests().empty());
  EXPECT_NE(Trace().find("COLLECTION_STOPPED stop_reason=CANCELLED"), std::string::npos) << Trace();
}

TEST_F(AgentCancelTest, ACancelDuringAToolCallEndsTheLoopBeforeTheNextModelCall) {
  CancelDuringLogs();
  model_.Call({ToolCall("call_1", "query_logs", LogsArgs("HikariPool")),
               ToolCall("call_2", "search_documents", DocsArgs("连接池"))})
      .Answer(DraftCiting("call_1", "HikariPool"));
  auto execution = Run();
  EXPECT_EQ(execution.stop_reason, harness::StopReason::kCancelled);
  EXPECT_FALSE(execution.draft.has_value());
  EXPECT_EQ(model_.Requests().size(), 1u) << "the draft turn was never asked for";
  EXPECT_EQ(docs_.calls(), 0) << "the second call of the turn did not run";
  EXPECT_TRUE(execution.observations.empty()) << "the turn's observations never reached the model";
  ASSERT_EQ(execution.snapshot.entries.size(), 1u);
  EXPECT_TRUE(execution.snapshot.HasObservedFacts());

  auto decision = Release(execution);
  ASSERT_TRUE(decision.fallback.has_value());
  EXPECT_EQ(decision.fallback->code, release::FallbackCode::kInsufficientEvidence);
  EXPECT_EQ(model_.Requests().size(), 1u) << "release made no model call";
}

TEST_F(AgentCancelTest, ACancelAfterTheDraftSkipsTheGuardsModelCalls) {
  model_.Call({ToolCall("call_1", "query_logs", LogsArgs("HikariPool"))})
      .Answer(DraftCiting("call_1", "HikariPool"));
  auto execution = Run();
  ASSERT_TRUE(execution.draft.has_value());
  std::size_t made = model_.Requests().size();
  cancel_.request_stop();  // after the loop, before release
  auto decision = Release(execution);
  EXPECT_EQ(decision.outcome, release::ReleaseOutcome::kFallback);
  ASSERT_TRUE(decision.fallback.has_value());
  EXPECT_EQ(decision.fallback->code, release::FallbackCode::kInsufficientEvidence);
  EXPECT_EQ(decision.semantic_guard, release::GuardResult::kSkipped);
  EXPECT_EQ(model_.Requests().size(), made) << "no semantic guard, no repair";
}

TEST_F(AgentCancelTest, ExecutedCallsKeepTheObservationTheModelGot) {
  model_.Call({ToolCall("call_1", "query_logs", LogsArgs("HikariPool")),
               ToolCall("call_2", "query_logs", LogsArgs("again"))})
      .Answer(R"({"conclusion":null})");
  auto execution = Run();
  ASSERT_EQ(execution.observations.size(), 1u) << "call_2 was rejected (call_1 was pending)";
  EXPECT_EQ(execution.observations[0].tool_call_id, "call_1");
  auto requests = model_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  bool found = false;
  for (const auto& message : requests[1].messages) {
    if (message.role == model::Role::kTool && message.tool_call_id == "call_1") {
      EXPECT_EQ(model::ContentOf(message), execution.observations[0].observation_json);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace diagd::agent::testing
