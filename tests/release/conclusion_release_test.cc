// Release rule 1: a draft with a conclusion is published only when every
// citation holds (after at most one repair) and the semantic guard answers
// exactly SUPPORTED; otherwise a fallback.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "core/json.h"
#include "release/release_prompts.h"
#include "release_fixture.h"
#include "tools/observation.h"

namespace diagd::release::testing {
namespace {

using model::Component;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

boost::json::object UserMessageOf(const model::ChatRequest& request) {
  auto parsed = json::Parse(request.messages.at(1).content);
  EXPECT_TRUE(parsed && parsed->is_object());
  return parsed ? parsed->as_object() : boost::json::object{};
}

// The `problem` of each violation the one repair request listed.
std::vector<std::string> RepairProblems(const model::testing::ScriptedModel& model) {
  std::vector<std::string> problems;
  for (const auto& request : model.Requests()) {
    if (request.component != Component::kEvidenceRepair) continue;
    const boost::json::object user = UserMessageOf(request);
    for (const auto& v : user.at("violations").as_array()) {
      problems.emplace_back(v.as_object().at("problem").as_string());
    }
  }
  return problems;
}

class ConclusionReleaseTest : public ReleaseTest {
 protected:
  ConclusionReleaseTest() { CompleteStandardCalls(); }
};

TEST_F(ConclusionReleaseTest, PublishesAConclusionWhoseEveryQuoteIsInItsRecord) {
  model_->Answer(kSupported);
  ReleaseDecision decision = Release(WithDraft(DraftWith({{"call_1", "Connection is not available"},
                                                          {"call_2", "检查 payment-db 的慢查询"},
                                                          {"call_2", kDocTitle}})));

  ASSERT_EQ(decision.outcome, ReleaseOutcome::kDiagnosis);
  ASSERT_TRUE(decision.diagnosis.has_value());
  EXPECT_FALSE(decision.fallback.has_value());
  const Diagnosis& d = *decision.diagnosis;
  EXPECT_EQ(d.root_cause, "payment-db 连接池耗尽导致订单服务超时");
  EXPECT_EQ(d.confidence, agent::Confidence::kHigh);
  ASSERT_EQ(d.evidence.size(), 3u);
  EXPECT_EQ(d.evidence[0].tool, tools::logs::kQueryLogs);
  EXPECT_EQ(d.evidence[0].scope, "order-service: 500 (60m)");
  EXPECT_EQ(d.evidence[1].tool, tools::documents::kSearchDocuments);
  EXPECT_THAT(d.next_steps, ElementsAre("扩容 payment-db 连接池"));
  EXPECT_THAT(d.limitations.notes, ElementsAre("只查看了最近 60 分钟"));
  EXPECT_EQ(decision.process.size(), 5u);
  EXPECT_EQ(decision.evidence_guard, GuardResult::kPassed);
  EXPECT_EQ(decision.semantic_guard, GuardResult::kPassed);
  EXPECT_EQ(DecidedLine(),
            "RELEASE_DECIDED release_outcome=DIAGNOSIS fallback_code=null evidence_guard=PASSED "
            "semantic_guard=PASSED subject_check=SKIPPED");
  EXPECT_THAT(ModelComponents(), ElementsAre(Component::kSemanticGuard));
  EXPECT_THAT(Trace(), HasSubstr("MODEL_CALL component=SEMANTIC_GUARD component_round=1 "
                                 "usage_available=true input_tokens=100 output_tokens=20 "
                                 "total_tokens=120"));
}

TEST_F(ConclusionReleaseTest, SemanticGuardSeesQuestionConclusionAndCitedObservationsOnly) {
  model_->Answer(kSupported);
  Release(WithDraft(DraftCiting("call_1", "Connection is not available")));

  const model::ChatRequest request = model_->Requests().at(0);
  ASSERT_EQ(request.messages.size(), 2u);
  EXPECT_EQ(request.messages[0].role, model::Role::kSystem);
  EXPECT_EQ(request.messages[0].content, SemanticGuardSystemPrompt(config::Language::kZh));
  EXPECT_TRUE(model::OfferedTools(request).empty());
  boost::json::object user = UserMessageOf(request);
  EXPECT_EQ(user.at("question").as_string(), kQuestion);
  EXPECT_EQ(json::Serialize(user.at("conclusion")),
            R"({"root_cause":"payment-db 连接池耗尽导致订单服务超时","confidence":"HIGH"})");
  const auto& item = user.at("evidence").as_array().at(0).as_object();
  EXPECT_EQ(item.at("tool_call_id").as_string(), "call_1");
  EXPECT_EQ(item.at("quote").as_string(), "Connection is not available");
  for (const auto& member : item.at("observation").as_object()) {
    EXPECT_THAT(tools::ObservationWhitelist(tools::logs::kQueryLogs),
                ::testing::Contains(member.key()));
  }
  EXPECT_THAT(request.messages[1].content, Not(HasSubstr(kRawPayload)));
  EXPECT_THAT(request.messages[1].content, Not(HasSubstr("run-1")));
}

TEST_F(ConclusionReleaseTest, NumberCellsAreQuotedInTheirJsonForm) {
  model_->Answer(kSupported);
  EXPECT_EQ(Release(WithDraft(DraftWith({{"call_3", "1500"}, {"call_3", "0.125"}}))).outcome,
            ReleaseOutcome::kDiagnosis);
  model_->Answer("not a draft");
  ReleaseDecision decision = Release(WithDraft(DraftCiting("call_3", "0.1250")));
  EXPECT_EQ(decision.outcome, ReleaseOutcome::kFallback);
  EXPECT_THAT(RepairProblems(*model_), ElementsAre("QUOTE_NOT_FOUND"));
}

// Each violation goes to the one repair with its problem code; a repair that
// answers no draft leaves the guard FAILED and a fallback.
struct ViolationCase {
  const char* name;
  std::string draft;
  const char* problem;
};

TEST_F(ConclusionReleaseTest, EachViolationIsSentToOneRepairWithItsProblem) {
  const std::vector<ViolationCase> cases = {
      {"quote not in the evidence", DraftCiting("call_1", "Connection pool is healthy"),
       "QUOTE_NOT_FOUND"},
      {"another run's call", DraftCiting("call_9", "OTHER-RUN secret"), "UNKNOWN_CALL"},
      {"a NO_EVIDENCE call", DraftCiting("call_4", "gateway timeout"), "NOT_EVIDENCE"},
      {"a failed call", DraftCiting("call_5", "payment pool"), "NOT_EVIDENCE"},
      {"an unknown id", DraftCiting("call_77", "Connection is not available"), "UNKNOWN_CALL"},
      {"a quote of 3 characters", DraftCiting("call_1", "Hik"), "QUOTE_TOO_SHORT"},
      {"a blank quote", DraftCiting("call_1", "    "), "QUOTE_TOO_SHORT"},
      {"a quote of a breadcrumb", DraftCiting("call_2", "订单服务 Runbook > 连接池"),
       "QUOTE_NOT_FOUND"},
      {"no citation", DraftWith({}), "NO_CITATION"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Reset(harness::BudgetLimits{});
    CompleteStandardCalls();
    model_->Answer("{not json");
    ReleaseDecision decision = Release(WithDraft(c.draft));
    EXPECT_EQ(decision.outcome, ReleaseOutcome::kFallback);
    ASSERT_TRUE(decision.fallback.has_value());
    EXPECT_EQ(decision.fallback->code, FallbackCode::kInsufficientEvidence);
    EXPECT_EQ(decision.evidence_guard, GuardResult::kFailed);
    EXPECT_EQ(decision.semantic_guard, GuardResult::kSkipped);
    EXPECT_THAT(RepairProblems(*model_), ElementsAre(c.problem));
    EXPECT_THAT(ModelComponents(), ElementsAre(Component::kEvidenceRepair));
    EXPECT_EQ(DecidedLine(),
              "RELEASE_DECIDED release_outcome=FALLBACK fallback_code=INSUFFICIENT_EVIDENCE "
              "evidence_guard=FAILED semantic_guard=SKIPPED subject_check=SKIPPED");
  }
}

// A store in front of the real one: every call goes through unless a test
// double below changes it.
class StoreInFront : public tools::CanonicalInvocationStore {
 public:
  explicit StoreInFront(tools::CanonicalInvocationStore& real) : real_(real) {}
  Status Put(tools::CanonicalRecord record) override { return real_.Put(std::move(record)); }
  Result<std::optional<tools::CanonicalRecord>> Get(const std::string& run_id,
                                                    const std::string& id) override {
    return real_.Get(run_id, id);
  }
  void ForgetRun(const std::string& run_id) override { real_.ForgetRun(run_id); }

 protected:
  tools::CanonicalInvocationStore& real_;
};

// A store that answers with another run's record under this run's key (a
// shared store with mixed-up keys). It has no Read of its own, so release
// reads it through Get.
class MixedUpStore final : public StoreInFront {
 public:
  using StoreInFront::StoreInFront;
  Result<std::optional<tools::CanonicalRecord>> Get(const std::string& run_id,
                                                    const std::string& id) override {
    if (fail_) return Error::Unavailable("store down");
    if (id == "call_8") return real_.Get("run-2", "call_9");
    return real_.Get(run_id, id);
  }
  bool fail_ = false;
};

// A store that counts the records copied out of it (Get) and the ones read
// in place (Read), reading the real memory store either way.
class CopyCountingStore final : public StoreInFront {
 public:
  using StoreInFront::StoreInFront;
  Result<std::optional<tools::CanonicalRecord>> Get(const std::string& run_id,
                                                    const std::string& id) override {
    ++copies_;
    return real_.Get(run_id, id);
  }
  Status Read(const std::string& run_id, const std::string& id,
              const RecordReader& read) override {
    ++reads_;
    return real_.Read(run_id, id, read);
  }
  int copies_ = 0;
  int reads_ = 0;
};

// At 30 log events a record is some 30 KiB: the guards, the repair, the
// finding check and the fallback each read the cited ones where they are.
TEST_F(ConclusionReleaseTest, ReleaseReadsTheCitedRecordsInPlaceAndCopiesNone) {
  CopyCountingStore counting(store_);
  store_ptr_ = &counting;
  model_->Answer(DraftCiting("call_1", "request timed out after 30000ms")).Answer(kSupported);
  ReleaseDecision repaired =
      Release(WithDraft(DraftCiting("call_1", "request timed out after 30s")));
  ASSERT_EQ(repaired.outcome, ReleaseOutcome::kDiagnosis);
  EXPECT_EQ(repaired.evidence_guard, GuardResult::kRepaired);

  Reset(harness::BudgetLimits{});
  CompleteStandardCalls();
  model_->Answer("{not json");
  ReleaseDecision fallback =
      Release(WithDraft(DraftCiting("call_1", "request timed out after 30s")));
  ASSERT_TRUE(fallback.fallback.has_value());
  EXPECT_FALSE(fallback.fallback->observed_facts.empty());

  // guard, repair, guard again, semantic guard; then guard, repair, and
  // the fallback's facts
  EXPECT_GE(counting.reads_, 7);
  EXPECT_EQ(counting.copies_, 0);
}

TEST_F(ConclusionReleaseTest, ARecordOfAnotherRunIsAForeignCallAndNeverShownToTheRepair) {
  MixedUpStore mixed(store_);
  store_ptr_ = &mixed;
  model_->Answer("{not json");
  Release(WithDraft(DraftCiting("call_8", "OTHER-RUN secret")));
  EXPECT_THAT(RepairProblems(*model_), ElementsAre("FOREIGN_CALL"));
  EXPECT_THAT(model_->Requests().at(0).messages[1].content, Not(HasSubstr("secret message text")));
}

TEST_F(ConclusionReleaseTest, AnUnreadableStoreFailsTheGuardWithoutAModelCall) {
  MixedUpStore broken(store_);
  agent::DiagnosisAgentExecution execution =
      WithDraft(DraftCiting("call_1", "Connection is not available"));
  broken.fail_ = true;
  store_ptr_ = &broken;
  ReleaseDecision decision = Release(execution);
  EXPECT_EQ(decision.evidence_guard, GuardResult::kFailed);
  EXPECT_EQ(decision.fallback->code, FallbackCode::kInsufficientEvidence);
  EXPECT_TRUE(model_->Requests().empty());
}

TEST_F(ConclusionReleaseTest, ARepairThatFixesTheQuoteIsPublishedAsRepaired) {
  model_->Answer(DraftCiting("call_1", "request timed out after 30000ms")).Answer(kSupported);
  ReleaseDecision decision =
      Release(WithDraft(DraftCiting("call_1", "request timed out after 30s")));

  ASSERT_EQ(decision.outcome, ReleaseOutcome::kDiagnosis);
  EXPECT_EQ(decision.diagnosis->evidence.at(0).quote, "request timed out after 30000ms");
  EXPECT_EQ(decision.evidence_guard, GuardResult::kRepaired);
  EXPECT_EQ(decision.semantic_guard, GuardResult::kPassed);
  EXPECT_THAT(ModelComponents(),
              ElementsAre(Component::kEvidenceRepair, Component::kSemanticGuard));
  EXPECT_THAT(Trace(), HasSubstr("MODEL_CALL component=EVIDENCE_REPAIR component_round=1"));
  EXPECT_THAT(Trace(), HasSubstr("MODEL_CALL component=SEMANTIC_GUARD component_round=1"));
  EXPECT_EQ(DecidedLine(),
            "RELEASE_DECIDED release_outcome=DIAGNOSIS fallback_code=null evidence_guard=REPAIRED "
            "semantic_guard=PASSED subject_check=SKIPPED");
  // The semantic guard judged the repaired conclusion.
  EXPECT_THAT(model_->Requests().at(1).messages[1].content, HasSubstr("30000ms"));
}

TEST_F(ConclusionReleaseTest, RepairRequestHoldsOnlyWhitelistedObservationsOfThisRunsCitedCalls) {
  model_->Answer("{not json");
  Release(WithDraft(DraftWith({{"call_1", "Connection refused"},
                               {"call_9", "OTHER-RUN secret"},
                               {"call_4", "gateway timeout"}})));

  const model::ChatRequest request = model_->Requests().at(0);
  EXPECT_EQ(request.component, Component::kEvidenceRepair);
  EXPECT_EQ(request.messages.at(0).content, EvidenceRepairSystemPrompt(config::Language::kZh));
  boost::json::object user = UserMessageOf(request);
  std::vector<std::string> keys;
  for (const auto& member : user) keys.emplace_back(member.key());
  EXPECT_THAT(keys, ElementsAre("question", "draft", "violations", "observations"));
  EXPECT_EQ(user.at("question").as_string(), kQuestion);
  EXPECT_EQ(json::Serialize(user.at("draft")),
            agent::DraftJson(*agent::ParseDraft(DraftWith({{"call_1", "Connection refused"},
                                                           {"call_9", "OTHER-RUN secret"},
                                                           {"call_4", "gateway timeout"}}))));
  const auto& observations = user.at("observations").as_object();
  std::vector<std::string> observed;
  for (const auto& [id, observation] : observations) {
    observed.emplace_back(id);
    for (const auto& member : observation.as_object()) {
      EXPECT_THAT(tools::ObservationWhitelist(tools::logs::kQueryLogs),
                  ::testing::Contains(member.key()));
    }
  }
  EXPECT_THAT(observed, ElementsAre("call_1", "call_4"));  // never another run's call
  EXPECT_EQ(json::Serialize(observations.at("call_1")),
            tools::ResultObservation(Logs("call_1", {kLogMessage}), {}));
  const std::string& text = request.messages[1].content;
  for (const char* forbidden :
       {kRawPayload, "returned_count", "run-1", "run-2", "secret message text"}) {
    EXPECT_THAT(text, Not(HasSubstr(forbidden)));
  }
}

TEST_F(ConclusionReleaseTest, RepairAnswersThatAreNoValidDraftWithAConclusionFail) {
  const std::vector<std::pair<const char*, std::string>> answers = {
      {"invalid JSON", R"({"conclusion": )"},
      {"a fenced draft",
       "```json\n" + DraftCiting("call_1", "Connection is not available") + "\n```"},
      {"prose around a draft", "修正如下：" + DraftCiting("call_1", "Connection is not available")},
      {"a valid draft, still wrong", DraftCiting("call_1", "Connection refused by peer")},
      {"a valid draft citing another run", DraftCiting("call_9", "OTHER-RUN secret")},
      {"conclusion null", NoConclusion()},
  };
  for (const auto& [name, answer] : answers) {
    SCOPED_TRACE(name);
    Reset(harness::BudgetLimits{});
    CompleteStandardCalls();
    model_->Answer(answer).Answer(kSupported);
    ReleaseDecision decision = Release(WithDraft(DraftCiting("call_1", "Connection refused")));
    EXPECT_EQ(decision.outcome, ReleaseOutcome::kFallback);
    EXPECT_EQ(decision.evidence_guard, GuardResult::kFailed);
    EXPECT_EQ(decision.semantic_guard, GuardResult::kSkipped);
    EXPECT_THAT(ModelComponents(), ElementsAre(Component::kEvidenceRepair));  // once, never twice
    EXPECT_THAT(decision.fallback->limitations,
                ::testing::Contains(HasSubstr("初步结论无法与查询结果逐字核对")));
  }
}

TEST_F(ConclusionReleaseTest, SemanticAnswersOtherThanExactlySupportedFailClosed) {
  const std::vector<std::string> answers = {
      "支持。这个结论有充分证据。",
      R"({"verdict":"UNSUPPORTED"})",
      R"({"verdict":"UNSUPPORTED","reason":"the quote does not show the pool"})",
      R"({"verdict":"SUPPORTED","x":1})",
      "```json\n{\"verdict\":\"SUPPORTED\"}\n```",
      R"({"verdict":"supported"})",
      R"(["SUPPORTED"])",
      "",
  };
  for (const auto& answer : answers) {
    SCOPED_TRACE(answer);
    Reset(harness::BudgetLimits{});
    CompleteStandardCalls();
    model_->Answer(answer);
    ReleaseDecision decision =
        Release(WithDraft(DraftCiting("call_1", "Connection is not available")));
    EXPECT_EQ(decision.outcome, ReleaseOutcome::kFallback);
    EXPECT_EQ(decision.fallback->code, FallbackCode::kInsufficientEvidence);
    EXPECT_EQ(decision.evidence_guard, GuardResult::kPassed);
    EXPECT_EQ(decision.semantic_guard, GuardResult::kFailed);
    EXPECT_EQ(DecidedLine(),
              "RELEASE_DECIDED release_outcome=FALLBACK fallback_code=INSUFFICIENT_EVIDENCE "
              "evidence_guard=PASSED semantic_guard=FAILED subject_check=SKIPPED");
  }
}

TEST_F(ConclusionReleaseTest, SemanticGuardAcceptsWhiteSpaceAroundTheExactVerdict) {
  model_->Answer("\n  { \"verdict\" : \"SUPPORTED\" }\n");
  EXPECT_EQ(Release(WithDraft(DraftCiting("call_1", "Connection is not available"))).outcome,
            ReleaseOutcome::kDiagnosis);
}

TEST_F(ConclusionReleaseTest, BudgetRefusingTheRepairFailsClosedWithoutACall) {
  harness::BudgetLimits limits;
  limits.max_model_calls = 0;
  Reset(limits);
  CompleteStandardCalls();
  model_->Answer(DraftCiting("call_1", "Connection is not available")).Answer(kSupported);
  ReleaseDecision decision = Release(WithDraft(DraftCiting("call_1", "Connection refused")));
  EXPECT_EQ(decision.outcome, ReleaseOutcome::kFallback);
  EXPECT_EQ(decision.evidence_guard, GuardResult::kFailed);
  EXPECT_EQ(decision.semantic_guard, GuardResult::kSkipped);
  EXPECT_TRUE(model_->Requests().empty());
  EXPECT_THAT(Trace(), Not(HasSubstr("MODEL_CALL")));
}

TEST_F(ConclusionReleaseTest, BudgetRefusingTheSemanticGuardFailsClosed) {
  harness::BudgetLimits limits;
  limits.max_model_calls = 1;  // room for the repair only
  Reset(limits);
  CompleteStandardCalls();
  model_->Answer(DraftCiting("call_1", "Connection is not available")).Answer(kSupported);
  ReleaseDecision decision = Release(WithDraft(DraftCiting("call_1", "Connection refused")));
  EXPECT_EQ(decision.outcome, ReleaseOutcome::kFallback);
  EXPECT_EQ(decision.evidence_guard, GuardResult::kRepaired);
  EXPECT_EQ(decision.semantic_guard, GuardResult::kFailed);
  EXPECT_THAT(ModelComponents(), ElementsAre(Component::kEvidenceRepair));
}

TEST_F(ConclusionReleaseTest, AModelFailureOfTheSemanticGuardFailsClosed) {
  model_->Fail(Error::Unavailable("provider down"));
  ReleaseDecision decision =
      Release(WithDraft(DraftCiting("call_1", "Connection is not available")));
  EXPECT_EQ(decision.outcome, ReleaseOutcome::kFallback);
  EXPECT_EQ(decision.semantic_guard, GuardResult::kFailed);
}

TEST_F(ConclusionReleaseTest, OnlyVerifiedFindingsOfAPublishedDiagnosisAreShown) {
  model_->Answer(kSupported);
  const std::string findings =
      R"([{"tool_call_id":"call_4","kind":"NOT_FOUND","statement":"网关无超时"},)"
      R"({"tool_call_id":"call_1","kind":"NOT_FOUND","statement":"订单服务无异常"},)"
      R"({"tool_call_id":"call_2","kind":"FOUND","statement":"Runbook 建议扩容","quote":"扩容连接池"}])";
  ReleaseDecision decision =
      Release(WithDraft(DraftWith({{"call_1", "Connection is not available"}}, findings)));
  ASSERT_EQ(decision.outcome, ReleaseOutcome::kDiagnosis);
  ASSERT_EQ(decision.diagnosis->findings.size(), 2u);
  EXPECT_EQ(decision.diagnosis->findings[0].statement, "网关无超时");
  EXPECT_EQ(decision.diagnosis->findings[1].quote, "扩容连接池");
  EXPECT_THAT(decision.diagnosis->limitations.notes,
              ElementsAre("只查看了最近 60 分钟", "有 1 条发现无法与本次查询结果核对，没有发布。"));
}

TEST_F(ConclusionReleaseTest, ADraftAfterAStopIsReleasedByTheDraftsOwnRule) {
  model_->Answer(kSupported);
  agent::DiagnosisAgentExecution execution =
      WithDraft(DraftCiting("call_1", "Connection is not available"));
  execution.stop_reason = harness::StopReason::kInformationSaturated;
  EXPECT_EQ(Release(execution).outcome, ReleaseOutcome::kDiagnosis);

  execution = WithDraft(NoConclusion("[]", R"(["时间范围"])"));
  execution.stop_reason = harness::StopReason::kProgressProtocolViolated;
  ReleaseDecision decision = Release(execution);
  EXPECT_EQ(decision.fallback->code, FallbackCode::kInsufficientEvidence);
  EXPECT_THAT(decision.fallback->missing_info, ElementsAre("时间范围"));
}

TEST(ConclusionWithNothingChecked, IsMissingContextWhenTheDraftNamesMissingInfoElseFailed) {
  ManualClock clock;
  tools::MemoryCanonicalStore store(std::chrono::seconds(3600), clock);
  for (const auto& [missing, code] :
       {std::pair{std::string(R"(["时间范围"])"), FallbackCode::kMissingRequiredContext},
        std::pair{std::string("[]"), FallbackCode::kFailed}}) {
    model::testing::ScriptedModel model;
    model.Answer("{not json");
    harness::RunContext run("run-1", {}, clock);
    agent::DiagnosisAgentExecution execution;
    execution.draft = *agent::ParseDraft(DraftWith({{"call_1", "Connection"}}, "[]", missing));
    DiagnosisReleaseUseCase release({model, store, config::Language::kZh, {}, {}});
    ReleaseDecision decision = release.Release(run, "为什么报错？", execution);
    ASSERT_TRUE(decision.fallback.has_value());
    EXPECT_EQ(decision.fallback->code, code);
    EXPECT_EQ(decision.evidence_guard, GuardResult::kFailed);
  }
}

}  // namespace
}  // namespace diagd::release::testing
