// Release rules 2 to 5 and the safe fallback: a draft without conclusion, a
// stop without draft, a protocol violation or invalid output, a failure; and
// what every fallback shows (and never shows).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/prompts.h"
#include "core/text.h"
#include "release/release_messages.h"
#include "release/release_prompts.h"
#include "release_fixture.h"

namespace diagd::release::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kSkippedLine =
    " evidence_guard=SKIPPED semantic_guard=SKIPPED subject_check=SKIPPED";

std::string FallbackLine(const char* code) {
  return std::string("RELEASE_DECIDED release_outcome=FALLBACK fallback_code=") + code +
         kSkippedLine;
}

// Only calls that found nothing: the run checked something, but has no fact.
class NoFactsTest : public ReleaseTest {
 protected:
  NoFactsTest() { Complete(Logs("call_4", {}), "gateway: timeout (60m)"); }
};

class FactsTest : public ReleaseTest {
 protected:
  FactsTest() { CompleteStandardCalls(); }
};

// ---- Rule 2: a draft with conclusion: null ----

TEST_F(FactsTest, NoConclusionPublishesOnlyFindingsTrueToThisRun) {
  model_->Answer(kSupported).Answer(kSupported);  // never asked
  const std::string findings =
      R"([{"tool_call_id":"call_4","kind":"NOT_FOUND","statement":"网关日志没有超时"},)"
      R"({"tool_call_id":"call_1","kind":"NOT_FOUND","statement":"订单服务没有异常"},)"
      R"({"tool_call_id":"call_1","kind":"FOUND","statement":"连接池报错","quote":"pool exhausted at 10:29"},)"
      R"({"tool_call_id":"call_1","kind":"FOUND","statement":"连接池报错","quote":"Connection is not available"},)"
      R"({"tool_call_id":"call_9","kind":"FOUND","statement":"另一次运行","quote":"OTHER-RUN secret"},)"
      R"({"tool_call_id":"call_4","kind":"FOUND","statement":"无证据的发现","quote":"gateway"}])";
  ReleaseDecision decision = Release(WithDraft(NoConclusion(findings)));

  ASSERT_EQ(decision.outcome, ReleaseOutcome::kFallback);
  const SafeFallback& f = *decision.fallback;
  EXPECT_EQ(f.code, FallbackCode::kInsufficientEvidence);
  ASSERT_EQ(f.findings.size(), 2u);
  EXPECT_EQ(f.findings[0].statement, "网关日志没有超时");
  EXPECT_EQ(f.findings[0].kind, agent::FindingKind::kNotFound);
  EXPECT_EQ(f.findings[1].quote, "Connection is not available");
  EXPECT_THAT(f.limitations, ::testing::Contains("有 4 条发现无法与本次查询结果核对，没有发布。"));
  EXPECT_TRUE(model_->Requests().empty());  // no repair, no semantic guard
  EXPECT_EQ(DecidedLine(), FallbackLine("INSUFFICIENT_EVIDENCE"));
}

TEST_F(ReleaseTest, ZeroToolCallsWithMissingInfoIsMissingRequiredContext) {
  ReleaseDecision decision = Release(WithDraft(NoConclusion("[]", R"(["企业名称","时间范围"])")));
  ASSERT_TRUE(decision.fallback.has_value());
  EXPECT_EQ(decision.fallback->code, FallbackCode::kMissingRequiredContext);
  EXPECT_THAT(decision.fallback->missing_info, ElementsAre("企业名称", "时间范围"));
  EXPECT_TRUE(decision.fallback->checked.empty());
  EXPECT_EQ(decision.fallback->message,
            FallbackMessage(FallbackCode::kMissingRequiredContext, config::Language::kZh));
  EXPECT_EQ(DecidedLine(), FallbackLine("MISSING_REQUIRED_CONTEXT"));
  EXPECT_TRUE(model_->Requests().empty());
}

TEST_F(NoFactsTest, NoConclusionAfterToolCallsIsInsufficientEvenWithMissingInfo) {
  ReleaseDecision decision = Release(WithDraft(NoConclusion("[]", R"(["时间范围"])")));
  EXPECT_EQ(decision.fallback->code, FallbackCode::kInsufficientEvidence);
  EXPECT_THAT(decision.fallback->missing_info, ElementsAre("时间范围"));
}

TEST_F(ReleaseTest, NoConclusionWithNothingCheckedAndNothingMissingIsInsufficient) {
  EXPECT_EQ(Release(WithDraft(NoConclusion())).fallback->code, FallbackCode::kInsufficientEvidence);
}

// ---- Rule 3: no draft after saturation or a budget ----

TEST_F(FactsTest, SaturationOrBudgetStopPublishesTheProcessWithoutAModelCall) {
  for (auto stop :
       {harness::StopReason::kInformationSaturated, harness::StopReason::kBudgetLimitReached}) {
    model_->Answer(kSupported);
    agent::DiagnosisAgentExecution execution = WithoutDraft();
    execution.stop_reason = stop;
    ReleaseDecision decision = Release(execution);
    ASSERT_EQ(decision.outcome, ReleaseOutcome::kFallback);
    EXPECT_EQ(decision.fallback->code, FallbackCode::kInsufficientEvidence);
    EXPECT_EQ(decision.fallback->checked.size(), 5u);
    EXPECT_EQ(decision.fallback->observed_facts.size(), 3u);
    EXPECT_TRUE(model_->Requests().empty());
    EXPECT_EQ(DecidedLine(), FallbackLine("INSUFFICIENT_EVIDENCE"));
  }
}

TEST_F(NoFactsTest, SaturationWithoutFactsIsStillInsufficientEvidence) {
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.stop_reason = harness::StopReason::kInformationSaturated;
  ReleaseDecision decision = Release(execution);
  EXPECT_EQ(decision.fallback->code, FallbackCode::kInsufficientEvidence);
  EXPECT_TRUE(decision.fallback->observed_facts.empty());
  EXPECT_EQ(decision.fallback->checked.size(), 1u);
}

TEST_F(NoFactsTest, AnInvalidAnswerAfterASaturationStopDoesNotChangeRuleThree) {
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.stop_reason = harness::StopReason::kBudgetLimitReached;
  execution.rejected_output = agent::OutputRejection{agent::DraftRejection::kNotJson, 42};
  EXPECT_EQ(Release(execution).fallback->code, FallbackCode::kInsufficientEvidence);
}

// ---- Rule 4: protocol violation, or an invalid final output ----

TEST_F(FactsTest, ProtocolViolationStopWithObservedFactsIsInsufficientEvidence) {
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.stop_reason = harness::StopReason::kProgressProtocolViolated;
  EXPECT_EQ(Release(execution).fallback->code, FallbackCode::kInsufficientEvidence);
}

TEST_F(NoFactsTest, ProtocolViolationStopWithoutObservedFactsIsFailed) {
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.stop_reason = harness::StopReason::kProgressProtocolViolated;
  ReleaseDecision decision = Release(execution);
  EXPECT_EQ(decision.fallback->code, FallbackCode::kFailed);
  EXPECT_EQ(decision.fallback->checked.size(), 1u);  // the process is still shown
  EXPECT_EQ(DecidedLine(), FallbackLine("FAILED"));
}

TEST_F(FactsTest, InvalidFinalOutputWithObservedFactsIsInsufficientEvidence) {
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.rejected_output = agent::OutputRejection{agent::DraftRejection::kSchemaViolation, 900};
  EXPECT_EQ(Release(execution).fallback->code, FallbackCode::kInsufficientEvidence);
  EXPECT_TRUE(model_->Requests().empty());
}

TEST_F(NoFactsTest, InvalidFinalOutputWithoutObservedFactsIsFailed) {
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.rejected_output = agent::OutputRejection{agent::DraftRejection::kEmpty, 0};
  EXPECT_EQ(Release(execution).fallback->code, FallbackCode::kFailed);
}

// ---- Rule 5: a real failure ----

TEST_F(NoFactsTest, AModelFailureWithoutObservedFactsIsFailed) {
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.failure = Error::Unavailable("provider at 10.0.0.7 returned 503");
  ReleaseDecision decision = Release(execution);
  EXPECT_EQ(decision.fallback->code, FallbackCode::kFailed);
  EXPECT_THAT(RenderDecision(decision), Not(HasSubstr("10.0.0.7")));
  EXPECT_EQ(DecidedLine(), FallbackLine("FAILED"));
}

TEST_F(FactsTest, AModelFailureAfterObservedFactsIsInsufficientEvidence) {
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.failure = Error::Unavailable("provider down");
  EXPECT_EQ(Release(execution).fallback->code, FallbackCode::kInsufficientEvidence);
}

TEST_F(ReleaseTest, AFailureBeforeAnyToolCallIsFailed) {
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.failure = Error::Internal("the diagnosis loop failed");
  ReleaseDecision decision = Release(execution);
  EXPECT_EQ(decision.fallback->code, FallbackCode::kFailed);
  EXPECT_TRUE(decision.fallback->checked.empty());
  EXPECT_TRUE(decision.fallback->observed_facts.empty());
}

// ---- What a fallback shows ----

TEST_F(FactsTest, FallbackShowsCheckedCallsObservedFactsAndLimitations) {
  run_->tracker().RecordCompleted(tools::logs::kQueryLogs, "identity:gone", "call_6",
                                  tools::EvidenceStatus::kEvidenceFound);  // never stored
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.stop_reason = harness::StopReason::kInformationSaturated;
  const SafeFallback f = *Release(execution).fallback;

  ASSERT_EQ(f.checked.size(), 6u);
  EXPECT_EQ(f.checked[0].tool_call_id, "call_1");
  EXPECT_EQ(f.checked[0].scope, "order-service: 500 (60m)");
  EXPECT_EQ(f.checked[4].evidence_status, tools::EvidenceStatus::kError);
  EXPECT_FALSE(f.checked[5].evidence_status.has_value());
  ASSERT_EQ(f.observed_facts.size(), 3u);
  EXPECT_EQ(f.observed_facts[0].fact, std::string("2026-11-29T10:29:00.000Z ") + kLogMessage);
  EXPECT_EQ(f.observed_facts[1].fact, std::string(kDocTitle) + ": " + kDocExcerpt);
  EXPECT_EQ(f.observed_facts[1].tool, tools::documents::kSearchDocuments);
  EXPECT_EQ(f.observed_facts[2].fact, "status=TIMEOUT, n=1500, ratio=0.125");
  EXPECT_THAT(f.limitations,
              ElementsAre("日志查询「payment: pool (60m)」执行失败，其结果没有作为事实使用。",
                          "日志查询（call_6）的结果已无法读取（可能已过期），没有作为事实使用。"));
  EXPECT_TRUE(f.findings.empty());
}

TEST_F(FactsTest, AFactWhoseRecordExpiredAfterTheSnapshotIsNotShown) {
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.stop_reason = harness::StopReason::kInformationSaturated;
  clock_.Advance(std::chrono::seconds(3601));
  ASSERT_TRUE(store_.Put(RecordOf("run-x", Logs("call_x", {"y"}), "x")));  // drops expired ones
  const SafeFallback f = *Release(execution).fallback;
  EXPECT_TRUE(f.observed_facts.empty());
  EXPECT_THAT(f.limitations, ::testing::Contains(HasSubstr("已无法读取")));
}

TEST_F(ReleaseTest, ObservedFactsAreBoundedPerCallInAllAndInLength) {
  std::vector<std::string> messages(5, "short event");
  messages[0] = std::string(400, 'x');
  Complete(Logs("call_1", messages), "a");
  for (int i = 2; i <= 8; ++i) {
    std::string id = "call_" + std::to_string(i);
    Complete(Logs(id, {"event one of " + id, "event two of " + id, "event three of " + id,
                       "event four of " + id}),
             id);
  }
  agent::DiagnosisAgentExecution execution = WithoutDraft();
  execution.stop_reason = harness::StopReason::kInformationSaturated;
  const SafeFallback f = *Release(execution).fallback;
  ASSERT_EQ(f.observed_facts.size(), 20u);
  EXPECT_EQ(text::CodePointCount(f.observed_facts[0].fact), 300u);
  EXPECT_THAT(f.observed_facts[0].fact, ::testing::EndsWith("…"));
  EXPECT_EQ(f.observed_facts[3].tool_call_id, "call_2");  // three per call
  EXPECT_THAT(f.limitations, ElementsAre("只列出了前 20 条观察到的事实。"));
}

TEST_F(FactsTest, EnglishRunsGetEnglishMessagesAndSentences) {
  agent::DiagnosisAgentExecution execution = WithDraft(
      NoConclusion(R"([{"tool_call_id":"call_1","kind":"NOT_FOUND","statement":"no errors"}])"));
  const SafeFallback f = *Release(execution, config::Language::kEn).fallback;
  EXPECT_EQ(f.message, FallbackMessage(FallbackCode::kInsufficientEvidence, config::Language::kEn));
  EXPECT_THAT(f.message, HasSubstr("did not find evidence"));
  EXPECT_THAT(
      f.limitations,
      ElementsAre("1 finding could not be checked against this investigation's results "
                  "and is not published.",
                  "The log query \"payment: pool (60m)\" failed; it is not used as a fact."));
}

TEST(FallbackMessages, AreFixedPerCodeAndLanguage) {
  for (auto code : {FallbackCode::kMissingRequiredContext, FallbackCode::kInsufficientEvidence,
                    FallbackCode::kFailed}) {
    EXPECT_FALSE(FallbackMessage(code, config::Language::kZh).empty());
    EXPECT_FALSE(FallbackMessage(code, config::Language::kEn).empty());
    EXPECT_NE(FallbackMessage(code, config::Language::kZh),
              FallbackMessage(code, config::Language::kEn));
  }
  EXPECT_NE(FallbackMessage(FallbackCode::kFailed, config::Language::kZh),
            FallbackMessage(FallbackCode::kInsufficientEvidence, config::Language::kZh));
}

// ---- What no published result ever holds ----

TEST_F(FactsTest, NoPublishedResultCarriesInternalContent) {
  std::vector<ReleaseDecision> decisions;
  auto release = [&](agent::DiagnosisAgentExecution execution) {
    decisions.push_back(Release(execution));
  };
  for (auto stop :
       {harness::StopReason::kInformationSaturated, harness::StopReason::kBudgetLimitReached,
        harness::StopReason::kProgressProtocolViolated}) {
    agent::DiagnosisAgentExecution execution = WithoutDraft();
    execution.stop_reason = stop;
    release(execution);
  }
  agent::DiagnosisAgentExecution rejected = WithoutDraft();
  rejected.rejected_output = agent::OutputRejection{agent::DraftRejection::kNotJson, 10};
  release(rejected);
  agent::DiagnosisAgentExecution failed = WithoutDraft();
  failed.failure = Error::Internal("stack at budget.cc:42 consecutive threshold");
  release(failed);
  release(WithDraft(
      NoConclusion(R"([{"tool_call_id":"call_4","kind":"NOT_FOUND","statement":"网关无异常"}])")));
  // A conclusion that the semantic guard rejects with reasons, and one that
  // passes after a repair answered with extra text first failing.
  model_->Answer(R"({"verdict":"UNSUPPORTED","reason":"MODEL-THOUGHT: budget is low"})");
  release(WithDraft(DraftCiting("call_1", "Connection is not available")));
  model_->Answer(DraftCiting("call_1", "Connection is not available")).Answer(kSupported);
  release(WithDraft(DraftCiting("call_1", "Connection refused")));
  ASSERT_EQ(decisions.back().outcome, ReleaseOutcome::kDiagnosis);

  const std::vector<std::string> forbidden = {
      "INFORMATION_SATURATED",
      "PROGRESS_PROTOCOL_VIOLATED",
      "BUDGET_LIMIT_REACHED",
      "stop_required",
      "consecutive",
      "threshold",
      "budget",
      "Budget",
      "score",
      "阈值",
      "预算",
      kRawPayload,
      "MODEL-THOUGHT",
      "stack at",
      "run-1",
      "run-2",
      "OTHER-RUN",
      EvidenceRepairSystemPrompt(config::Language::kZh).substr(0, 30),
      SemanticGuardSystemPrompt(config::Language::kZh).substr(0, 30),
      agent::DiagnosisSystemPrompt(config::Language::kZh).substr(0, 30)};
  for (const auto& decision : decisions) {
    const std::string text = RenderDecision(decision);
    for (const auto& word : forbidden) EXPECT_THAT(text, Not(HasSubstr(word))) << text;
  }
}

TEST_F(FactsTest, TheTraceNeverHoldsQuotesStatementsPromptsOrModelText) {
  model_->Answer(DraftCiting("call_1", "request timed out after 30000ms"))
      .Answer(R"({"verdict":"UNSUPPORTED","reason":"MODEL-THOUGHT"})");
  Release(WithDraft(
      DraftWith({{"call_1", "timed out after 30s"}},
                R"([{"tool_call_id":"call_4","kind":"NOT_FOUND","statement":"网关无异常"}])")));
  const std::string trace = Trace();
  for (const std::string& word : std::vector<std::string>{
           "timed out", "30000ms", "payment-db 连接池耗尽", "网关无异常", "MODEL-THOUGHT",
           EvidenceRepairSystemPrompt(config::Language::kZh).substr(0, 30),
           SemanticGuardSystemPrompt(config::Language::kZh).substr(0, 30)}) {
    EXPECT_THAT(trace, Not(HasSubstr(word)));
  }
  EXPECT_EQ(DecidedLine(),
            "RELEASE_DECIDED release_outcome=FALLBACK fallback_code=INSUFFICIENT_EVIDENCE "
            "evidence_guard=REPAIRED semantic_guard=FAILED subject_check=SKIPPED");
}

}  // namespace
}  // namespace diagd::release::testing
