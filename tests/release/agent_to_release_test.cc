// The real agent loop (scripted model, scripted adapters behind the real
// catalog, boundary, interceptors and canonical store) handing its execution
// to release: the snapshot, the store and the budget are the ones the run
// really produced.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/agent_fixture.h"
#include "release/diagnosis_release.h"

namespace diagd::release {
namespace {

using agent::testing::DraftCiting;
using agent::testing::LogsArgs;
using agent::testing::ToolCall;
using ::testing::HasSubstr;

class AgentToReleaseTest : public agent::testing::AgentTest {
 protected:
  ReleaseDecision ReleaseRun() {
    agent::DiagnosisAgentExecution execution = Run(kQuestion);
    DiagnosisReleaseUseCase release({model_, store_, config::Language::kZh, {}, {}});
    return release.Release(*run_, kQuestion, execution);
  }
  static constexpr const char* kQuestion = "订单服务为什么报 500？";
};

TEST_F(AgentToReleaseTest, AVerifiedDraftOfARealRunIsPublished) {
  model_.Call({ToolCall("call_1", "query_logs", LogsArgs("timeout"))})
      .Answer(DraftCiting("call_1", "Connection is not available: timeout"))
      .Answer(R"({"verdict":"SUPPORTED"})");
  ReleaseDecision decision = ReleaseRun();
  ASSERT_EQ(decision.outcome, ReleaseOutcome::kDiagnosis);
  EXPECT_EQ(decision.diagnosis->evidence.at(0).tool, tools::logs::kQueryLogs);
  EXPECT_FALSE(decision.diagnosis->evidence.at(0).scope.empty());
  ASSERT_EQ(decision.process.size(), 1u);
  EXPECT_EQ(decision.process[0].evidence_status, tools::EvidenceStatus::kEvidenceFound);
  const std::string trace = Trace();
  EXPECT_THAT(trace, HasSubstr("MODEL_CALL component=DIAGNOSIS_AGENT component_round=2"));
  EXPECT_THAT(trace, HasSubstr("MODEL_CALL component=SEMANTIC_GUARD component_round=1"));
  EXPECT_THAT(trace, HasSubstr("RELEASE_DECIDED release_outcome=DIAGNOSIS fallback_code=null "
                               "evidence_guard=PASSED semantic_guard=PASSED "
                               "subject_check=SKIPPED"));
}

TEST_F(AgentToReleaseTest, TheReservedCallsLetARepairAndTheSemanticGuardRun) {
  harness::BudgetLimits limits;
  limits.max_model_calls = 4;  // two for the agent, two kept for release
  Reset(limits);
  model_.Call({ToolCall("call_1", "query_logs", LogsArgs("timeout"))})
      .Answer(DraftCiting("call_1", "Connection refused"))
      .Answer(DraftCiting("call_1", "Connection is not available"))
      .Answer(R"({"verdict":"SUPPORTED"})");
  ReleaseDecision decision = ReleaseRun();
  EXPECT_EQ(decision.outcome, ReleaseOutcome::kDiagnosis);
  EXPECT_EQ(decision.evidence_guard, GuardResult::kRepaired);
  EXPECT_EQ(run_->budget().Usage().model_calls, 4);
}

TEST_F(AgentToReleaseTest, ABudgetStopOfARealRunPublishesItsObservedFacts) {
  harness::BudgetLimits limits;
  limits.max_model_calls = 3;  // the agent's second call would eat into release's reserve
  Reset(limits);
  model_.Call({ToolCall("call_1", "query_logs", LogsArgs("timeout"))})
      .Answer(R"({"verdict":"SUPPORTED"})");  // never asked: no model call after the stop
  ReleaseDecision decision = ReleaseRun();
  ASSERT_TRUE(decision.fallback.has_value());
  EXPECT_EQ(decision.fallback->code, FallbackCode::kInsufficientEvidence);
  ASSERT_EQ(decision.fallback->observed_facts.size(), 1u);
  EXPECT_THAT(decision.fallback->observed_facts[0].fact,
              HasSubstr("HikariPool-1 - Connection is not available: timeout"));
  EXPECT_EQ(model_.Remaining(), 1u);
}

}  // namespace
}  // namespace diagd::release
