// Each budget running out ends the loop with BUDGET_LIMIT_REACHED, and the
// run's tokens are accounted once.
#include <gtest/gtest.h>

#include "agent_fixture.h"

namespace diagd::agent {
namespace {

using harness::BudgetLimits;
using harness::StopReason;
using testing::AgentTest;
using testing::DocsArgs;
using testing::LogsArgs;
using testing::ToolCall;

// A model that keeps asking for new documents, grading each result GAINED.
void ScriptEndlessSearch(model::testing::ScriptedModel& model, int turns,
                         std::optional<model::Usage> usage = model::Usage{100, 20, 120}) {
  for (int i = 1; i <= turns; ++i) {
    std::string previous = i == 1 ? "" : "c" + std::to_string(i - 1);
    model.Call({ToolCall("c" + std::to_string(i), "search_documents",
                         DocsArgs("q" + std::to_string(i), previous))},
               usage);
  }
}

TEST_F(AgentTest, ModelCallBudgetStopsTheLoopKeepingTwoCallsForRelease) {
  BudgetLimits limits;
  limits.max_model_calls = 5;
  Reset(limits);
  ScriptEndlessSearch(model_, 10);
  auto execution = Run();
  EXPECT_EQ(execution.stop_reason, StopReason::kBudgetLimitReached);
  EXPECT_FALSE(execution.draft.has_value());
  EXPECT_EQ(model_.Requests().size(), 3u) << "5 calls minus 2 reserved for release";
  EXPECT_EQ(run_->budget().Usage().model_calls, 3);
  // Release's calls are still admitted.
  EXPECT_TRUE(run_->budget().AdmitModelCall(model::Component::kEvidenceRepair));
  EXPECT_TRUE(run_->budget().AdmitModelCall(model::Component::kSemanticGuard));
  EXPECT_FALSE(run_->budget().AdmitModelCall(model::Component::kSemanticGuard));
  EXPECT_NE(Trace().find("COLLECTION_STOPPED stop_reason=BUDGET_LIMIT_REACHED"), std::string::npos);
}

TEST_F(AgentTest, ToolCallBudgetStopsTheLoop) {
  BudgetLimits limits;
  limits.max_tool_calls = 2;
  Reset(limits);
  ScriptEndlessSearch(model_, 6);
  auto execution = Run();
  EXPECT_EQ(execution.stop_reason, StopReason::kBudgetLimitReached);
  EXPECT_EQ(docs_.calls(), 2);
  EXPECT_EQ(execution.snapshot.entries.size(), 2u);
}

TEST_F(AgentTest, TokenBudgetStopsTheLoop) {
  BudgetLimits limits;
  limits.max_total_tokens = 250;  // each call reports 120
  Reset(limits);
  ScriptEndlessSearch(model_, 6);
  auto execution = Run();
  EXPECT_EQ(execution.stop_reason, StopReason::kBudgetLimitReached);
  EXPECT_EQ(model_.Requests().size(), 3u) << "120, 240, 360: the fourth is refused";
}

TEST_F(AgentTest, ToolByteBudgetStopsTheLoop) {
  BudgetLimits limits;
  limits.max_tool_bytes = 20;  // each scripted result reports 12 raw bytes
  Reset(limits);
  ScriptEndlessSearch(model_, 6);
  auto execution = Run();
  EXPECT_EQ(execution.stop_reason, StopReason::kBudgetLimitReached);
  EXPECT_EQ(docs_.calls(), 2);
}

TEST_F(AgentTest, WallTimeBudgetStopsTheLoop) {
  BudgetLimits limits;
  limits.max_run_time = std::chrono::seconds(10);
  Reset(limits);
  ScriptEndlessSearch(model_, 6);
  clock_.Advance(std::chrono::seconds(11));
  auto execution = Run();
  EXPECT_EQ(execution.stop_reason, StopReason::kBudgetLimitReached);
  EXPECT_TRUE(model_.Requests().empty());
}

TEST_F(AgentTest, EveryModelCallIsAccountedOnceAndReconciles) {
  model_.Call({ToolCall("c1", "search_documents", DocsArgs("a"))}, model::Usage{300, 50, 350})
      .Answer(R"({"conclusion":null})", model::Usage{400, 30, 430});
  Run();
  run_->RecordRunFinished("SUCCEEDED", "COMPLETED");
  std::string trace = Trace();
  EXPECT_NE(trace.find("MODEL_CALL component=DIAGNOSIS_AGENT component_round=1 usage_available=true "
                       "input_tokens=300 output_tokens=50 total_tokens=350"),
            std::string::npos)
      << trace;
  EXPECT_NE(trace.find("MODEL_CALL component=DIAGNOSIS_AGENT component_round=2 usage_available=true "
                       "input_tokens=400 output_tokens=30 total_tokens=430"),
            std::string::npos);
  EXPECT_NE(trace.find("RUN_FINISHED status=SUCCEEDED internal_status=COMPLETED "
                       "budget_total_tokens=780 audited_total_tokens=780 audited_calls=2 "
                       "usage_unavailable_calls=0 tokens_reconciled=true"),
            std::string::npos)
      << trace;
}

TEST_F(AgentTest, AResponseWithoutUsageIsAuditedButNeverCountedAsZero) {
  model_.Call({ToolCall("c1", "search_documents", DocsArgs("a"))}, std::nullopt)
      .Answer(R"({"conclusion":null})", model::Usage{400, 30, 430});
  auto execution = Run();
  EXPECT_FALSE(execution.steps[0].token_count.has_value());
  run_->RecordRunFinished("SUCCEEDED", "COMPLETED");
  std::string trace = Trace();
  EXPECT_NE(trace.find("MODEL_CALL component=DIAGNOSIS_AGENT component_round=1 "
                       "usage_available=false\n"),
            std::string::npos)
      << trace;
  EXPECT_NE(trace.find("audited_calls=2 usage_unavailable_calls=1 tokens_reconciled=false"),
            std::string::npos)
      << trace;
}

TEST_F(AgentTest, AFailedModelCallIsNotAudited) {
  model_.Fail(Error::DeadlineExceeded("model timed out"));
  Run();
  EXPECT_EQ(run_->ledger().Totals().audited_calls, 0);
  EXPECT_EQ(Trace().find("MODEL_CALL"), std::string::npos);
}

// A completion of no use (all its tokens spent on reasoning) fails the
// call, but the endpoint billed it: audited once, in the trace and the
// budget alike, and the failure is kept too.
TEST_F(AgentTest, AFailedCallThatGotACompletionIsAuditedOnceWithItsUsage) {
  model_.Fail(model::CallError::Unusable(
      Error(ErrorCode::kInternal, "cut at the token limit", FailureReason::kModelOutputTruncated),
      model::Usage{3000, 1024, 4024}));
  Run();
  run_->RecordRunFinished("FAILED", "FAILED");
  std::string trace = Trace();
  EXPECT_NE(trace.find("MODEL_CALL component=DIAGNOSIS_AGENT component_round=1 usage_available=true "
                       "input_tokens=3000 output_tokens=1024 total_tokens=4024"),
            std::string::npos)
      << trace;
  EXPECT_NE(trace.find("budget_total_tokens=4024 audited_total_tokens=4024 audited_calls=1 "
                       "usage_unavailable_calls=0 tokens_reconciled=true"),
            std::string::npos)
      << trace;
  auto failures = run_->ledger().Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].reason, FailureReason::kModelOutputTruncated);
}

}  // namespace
}  // namespace diagd::agent
