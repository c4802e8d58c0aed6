// Release rule 1's subject check (docs/specs/release.md): a verified conclusion
// that does not reach what the question asked about is not published, and
// no model is asked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "release_fixture.h"

namespace diagd::release::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class SubjectReleaseTest : public ReleaseTest {
 protected:
  SubjectReleaseTest() { CompleteStandardCalls(); }

  ReleaseDecision Ask(const std::string& question, const std::string& draft,
                      config::Language language = config::Language::kZh,
                      const std::vector<std::string>& earlier = {}) {
    DiagnosisReleaseUseCase release({*model_, *store_ptr_, language, {}, {}, vocabulary_});
    return release.Release(*run_, question, WithDraft(draft), earlier);
  }

  SubjectVocabulary vocabulary_;
};

TEST_F(SubjectReleaseTest, AnAbsentConsumerGroupFallsBackNamingItAndAskingWhere) {
  ReleaseDecision decision = Ask("Why is the order-events consumer lag growing?",
                                 DraftCiting("call_1", "Connection is not available"),
                                 config::Language::kEn);

  ASSERT_EQ(decision.outcome, ReleaseOutcome::kFallback);
  const SafeFallback& fallback = *decision.fallback;
  EXPECT_EQ(fallback.code, FallbackCode::kInsufficientEvidence);
  EXPECT_THAT(fallback.limitations.at(0), HasSubstr("None of the data checked mentions "
                                                    "\"order-events\""));
  EXPECT_THAT(fallback.missing_info,
              ElementsAre(HasSubstr("Where is the data of \"order-events\"")));
  EXPECT_EQ(decision.subject_check, GuardResult::kFailed);
  EXPECT_EQ(decision.semantic_guard, GuardResult::kSkipped);
  EXPECT_THAT(ModelComponents(), IsEmpty());
  EXPECT_EQ(DecidedLine(),
            "RELEASE_DECIDED release_outcome=FALLBACK fallback_code=INSUFFICIENT_EVIDENCE "
            "evidence_guard=PASSED semantic_guard=SKIPPED subject_check=FAILED");
}

TEST_F(SubjectReleaseTest, TheSentencesFollowTheRunLanguage) {
  ReleaseDecision decision =
      Ask("order-events 为什么积压？", DraftCiting("call_1", "Connection is not available"));
  ASSERT_TRUE(decision.fallback.has_value());
  EXPECT_THAT(decision.fallback->limitations.at(0), HasSubstr("已检查的数据都没有提到问题所问的「order-events」"));
  EXPECT_THAT(decision.fallback->missing_info, ElementsAre(HasSubstr("「order-events」的数据在哪里")));
}

TEST_F(SubjectReleaseTest, WhatTheModelAskedForDoesNotMentionASubject) {
  tools::LogsResult asked = Logs("call_6", {"consumer lag 120000 on partition 3"});
  asked.query = "order-events lag";  // the model's own words
  Complete(asked, "order-service: order-events lag (60m)");
  ReleaseDecision decision =
      Ask("order-events 为什么积压？", DraftCiting("call_6", "consumer lag 120000"));
  EXPECT_EQ(decision.subject_check, GuardResult::kFailed);
  EXPECT_EQ(decision.outcome, ReleaseOutcome::kFallback);
}

TEST_F(SubjectReleaseTest, AConclusionCitingOnlyAnotherServiceFallsBackNamingTheSubject) {
  // call_2's runbook excerpt mentions payment-db; call_1 (order-service) does not.
  ReleaseDecision decision =
      Ask("payment-db 为什么变慢？", DraftCiting("call_1", "Connection is not available"));

  ASSERT_EQ(decision.outcome, ReleaseOutcome::kFallback);
  EXPECT_EQ(decision.fallback->code, FallbackCode::kInsufficientEvidence);
  EXPECT_THAT(decision.fallback->limitations.at(0),
              HasSubstr("结论引用的证据都与问题所问的「payment-db」无关"));
  EXPECT_THAT(decision.fallback->missing_info, ElementsAre(HasSubstr("「payment-db」")));
  EXPECT_EQ(decision.subject_check, GuardResult::kFailed);
  EXPECT_THAT(ModelComponents(), IsEmpty());
}

TEST_F(SubjectReleaseTest, CitingACallWhoseDataMentionsTheSubjectPasses) {
  model_->Answer(kSupported);
  ReleaseDecision decision =
      Ask("payment-db 为什么变慢？", DraftCiting("call_2", "检查 payment-db 的慢查询"));
  EXPECT_EQ(decision.outcome, ReleaseOutcome::kDiagnosis);
  EXPECT_EQ(decision.subject_check, GuardResult::kPassed);
  EXPECT_EQ(DecidedLine(),
            "RELEASE_DECIDED release_outcome=DIAGNOSIS fallback_code=null evidence_guard=PASSED "
            "semantic_guard=PASSED subject_check=PASSED");
}

TEST_F(SubjectReleaseTest, AChineseQuestionWithAnAliasReachesTheTopicItNames) {
  vocabulary_.aliases = {{"订单服务", "order-service"}, {"订单", "order-service"}};
  model_->Answer(kSupported);
  ReleaseDecision decision =
      Ask("订单服务为什么报 500？", DraftCiting("call_1", "Connection is not available"));
  EXPECT_EQ(decision.outcome, ReleaseOutcome::kDiagnosis);
  EXPECT_EQ(decision.subject_check, GuardResult::kPassed);
}

TEST_F(SubjectReleaseTest, AnAliasedSubjectIsNotReachedByAnotherDatasource) {
  vocabulary_.aliases = {{"订单服务", "order-service"}};
  ReleaseDecision decision = Ask("订单服务为什么报 500？", DraftCiting("call_3", "TIMEOUT"));
  EXPECT_EQ(decision.subject_check, GuardResult::kFailed);
  EXPECT_THAT(decision.fallback->limitations.at(0), HasSubstr("「订单服务」"));
}

TEST_F(SubjectReleaseTest, AChineseQuestionWithoutAliasesSkipsTheCheck) {
  model_->Answer(kSupported);
  ReleaseDecision decision =
      Ask("订单服务为什么报 500？", DraftCiting("call_3", "TIMEOUT"));
  EXPECT_EQ(decision.outcome, ReleaseOutcome::kDiagnosis);
  EXPECT_EQ(decision.subject_check, GuardResult::kSkipped);
  EXPECT_THAT(DecidedLine(), HasSubstr("subject_check=SKIPPED"));
}

TEST_F(SubjectReleaseTest, TheTopicDatasourceAndTablesACallReadMentionTheirNames) {
  for (int i = 0; i < 3; ++i) model_->Answer(kSupported);
  EXPECT_EQ(Ask("order-service 怎么了", DraftCiting("call_1", "Connection is not available"))
                .subject_check,
            GuardResult::kPassed);
  // call_3 read the table `timeouts` of the datasource `orders`; neither
  // name is in its rows.
  EXPECT_EQ(Ask("timeouts 表为什么变多", DraftCiting("call_3", "TIMEOUT")).subject_check,
            GuardResult::kPassed);
  vocabulary_.datasources = {"orders"};
  EXPECT_EQ(Ask("orders 库怎么了", DraftCiting("call_3", "TIMEOUT")).subject_check,
            GuardResult::kPassed);
}

TEST_F(SubjectReleaseTest, AFollowUpAsksAboutWhatTheEarlierQuestionsNamed) {
  ReleaseDecision decision =
      Ask("为什么又慢了？", DraftCiting("call_1", "Connection is not available"),
          config::Language::kZh, {"order-events 为什么积压？"});
  EXPECT_EQ(decision.subject_check, GuardResult::kFailed);
  EXPECT_THAT(decision.fallback->limitations.at(0), HasSubstr("「order-events」"));
}

TEST_F(SubjectReleaseTest, AVersionIsMentionedWithoutItsLeadingV) {
  tools::LogsResult deploy = Logs("call_6", {"rolled out payment-service 2.3.1 to 8 pods"});
  Complete(deploy, "deploys: rollout (60m)");
  model_->Answer(kSupported);
  EXPECT_EQ(Ask("V2.3.1 发布后为什么出错", DraftCiting("call_6", "rolled out")).subject_check,
            GuardResult::kPassed);
}

TEST_F(SubjectReleaseTest, AFailedCallMentionsNothing) {
  tools::LogsResult failed = Logs("call_7", {});
  failed.topic = "ledger";
  failed.evidence_status = tools::EvidenceStatus::kError;
  Complete(failed, "ledger: * (60m)");
  vocabulary_.topics = {"ledger"};
  ReleaseDecision decision =
      Ask("ledger 为什么失败", DraftCiting("call_1", "Connection is not available"));
  EXPECT_EQ(decision.subject_check, GuardResult::kFailed);
  EXPECT_THAT(decision.fallback->limitations.at(0), HasSubstr("没有提到"));
}

}  // namespace
}  // namespace diagd::release::testing
