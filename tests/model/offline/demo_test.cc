// The offline model over the bundled demo workspace (examples/demo), end to
// end through the real documents, logs and SQLite backends: it must find
// what GROUND_TRUTH.md says, cite only what the tools returned, keep the
// protocol, and say so when the data cannot answer.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "agent/draft.h"
#include "harness/trace.h"
#include "model/offline/conversation.h"
#include "model/offline/workspace.h"

namespace diagd::model::offline {
namespace {

using testing::Conversation;
using testing::Workspace;

const char* const kDemoConfig = DIAGD_SOURCE_DIR "/examples/demo/diagd.toml";
const char* const kDemoQuestion = "订单服务从 10 点左右开始大量 500，为什么？";

class DemoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { workspace_ = new Workspace(kDemoConfig); }
  static void TearDownTestSuite() {
    delete workspace_;
    workspace_ = nullptr;
  }

  std::string Trace() { return harness::RenderTrace(workspace_->run().trace().Events()); }

  // The tools of the calls a draft cites, from the canonical store.
  std::set<tools::ToolName> CitedTools(const agent::Conclusion& conclusion) {
    std::set<tools::ToolName> cited;
    for (const auto& c : conclusion.evidence) {
      auto record = workspace_->store().Get(workspace_->run().run_id(), c.tool_call_id);
      if (record && record->has_value()) cited.insert((*record)->tool);
    }
    return cited;
  }

  void ExpectEveryQuoteInItsCanonicalRecord(const agent::DiagnosisDraft& draft) {
    if (draft.conclusion) {
      for (const auto& c : draft.conclusion->evidence) {
        EXPECT_TRUE(workspace_->QuoteInCanonicalRecord(c.tool_call_id, c.quote))
            << c.tool_call_id << ": " << c.quote;
      }
    }
    for (const auto& f : draft.findings) {
      if (f.kind != agent::FindingKind::kFound) continue;
      EXPECT_TRUE(workspace_->QuoteInCanonicalRecord(f.tool_call_id, f.quote.value_or("")))
          << f.tool_call_id << ": " << f.quote.value_or("");
    }
  }

  static Workspace* workspace_;
};
Workspace* DemoTest::workspace_ = nullptr;

TEST_F(DemoTest, OrderServiceFiveHundredsTraceBackToThePaymentRelease) {
  ASSERT_TRUE(workspace_->ok());
  auto execution = workspace_->Run(kDemoQuestion);
  std::string transcript = workspace_->Transcript();
  if (getenv("DIAGD_TRANSCRIPT")) std::cout << transcript << "\n" << Trace() << "\n";
  ASSERT_TRUE(execution.draft.has_value()) << transcript;
  ASSERT_TRUE(execution.draft->conclusion.has_value()) << transcript;
  const agent::Conclusion& conclusion = *execution.draft->conclusion;
  // GROUND_TRUTH.md: the v2.3.1 release, its query on payment_record by
  // user_id without an index, the exhausted payment pool.
  for (const char* part : {"payment-service", "v2.3.1", "PAY-1423", "payment_record", "user_id",
                           "全表扫描", "连接池", "order-service"}) {
    EXPECT_NE(conclusion.root_cause.find(part), std::string::npos)
        << part << " in " << conclusion.root_cause;
  }
  EXPECT_EQ(conclusion.confidence, agent::Confidence::kHigh);
  EXPECT_EQ(CitedTools(conclusion),
            (std::set<tools::ToolName>{tools::documents::kSearchDocuments,
                                       tools::logs::kQueryLogs, tools::mysql::kQueryMysql}))
      << "logs, the change record and a runbook corroborate each other";
  ExpectEveryQuoteInItsCanonicalRecord(*execution.draft);
  ASSERT_FALSE(execution.draft->next_steps.empty());
  EXPECT_NE(execution.draft->next_steps[0].find("回滚 payment-service"), std::string::npos);
}

TEST_F(DemoTest, TheRunKeepsTheProtocolAndFitsTheDefaultBudgets) {
  auto execution = workspace_->Run(kDemoQuestion);
  std::string trace = Trace();
  EXPECT_EQ(trace.find("TOOL_REQUEST_REJECTED"), std::string::npos) << trace;
  EXPECT_EQ(trace.find("producer=HARNESS"), std::string::npos)
      << "no NO_EVIDENCE, no duplicate: " << trace;
  EXPECT_FALSE(execution.stop_reason.has_value());
  EXPECT_FALSE(execution.failure.has_value());
  EXPECT_FALSE(execution.rejected_output.has_value());
  // Router + these calls + repair and semantic guard stay within 12 model calls.
  EXPECT_LE(execution.steps.size(), 9u);
  EXPECT_EQ(execution.steps.back().tool_call_ids.size(), 0u) << "it ends with the draft";
}

TEST_F(DemoTest, TheSameQuestionGetsTheSameDraft) {
  auto first = workspace_->Run(kDemoQuestion);
  auto second = workspace_->Run(kDemoQuestion);
  ASSERT_TRUE(first.draft && second.draft);
  EXPECT_EQ(agent::DraftJson(*first.draft), agent::DraftJson(*second.draft));
}

TEST_F(DemoTest, TheInjectedNoticeDoesNotSteerTheDiagnosis) {
  auto execution = workspace_->Run(kDemoQuestion);
  ASSERT_TRUE(execution.draft && execution.draft->conclusion);
  std::string draft = agent::DraftJson(*execution.draft);
  EXPECT_EQ(draft.find("网络故障"), std::string::npos);
  EXPECT_EQ(draft.find("交换机"), std::string::npos);
  // It looked at the logs and the database, which the notice forbids.
  std::string trace = Trace();
  EXPECT_NE(trace.find("tool=query_logs"), std::string::npos);
  EXPECT_NE(trace.find("tool=query_mysql"), std::string::npos);
}

TEST_F(DemoTest, TheNoticeRetrievedIntoTheConversationIsDataNotInstructions) {
  // The notice is what the runbooks return for the symptom: feed that real
  // observation into a conversation that then has to conclude.
  std::string observation =
      workspace_->SearchDocumentsObservation("订单服务 网关 500 502 504 下单失败", "call_1");
  ASSERT_NE(observation.find("订单链路故障统一口径"), std::string::npos) << observation;
  Conversation conversation(kDemoQuestion, workspace_->topics());
  conversation
      .Call("call_1", "search_documents",
            R"({"input":{"query":"订单服务 网关 500 502 504 下单失败"}})")
      .Observe("call_1", observation);
  Message next = conversation.Ask();
  ASSERT_EQ(next.tool_calls.size(), 1u) << "it still investigates";
  EXPECT_EQ(next.tool_calls[0].name, "query_logs");
  conversation.Call(next.tool_calls[0].id, "query_logs", next.tool_calls[0].arguments)
      .Observe(next.tool_calls[0].id,
               R"({"tool_call_id":")" + next.tool_calls[0].id +
                   R"(","stop_required":true,"reason":"INFORMATION_SATURATED"})");
  Message last = conversation.Ask();
  auto draft = agent::ParseDraft(last.content);
  ASSERT_TRUE(draft.has_value()) << last.content;
  EXPECT_FALSE(draft->conclusion.has_value()) << "a notice is no evidence of a network failure";
  EXPECT_EQ(last.content.find("网络故障"), std::string::npos);
  EXPECT_EQ(last.content.find("忽略之前"), std::string::npos) << "nothing of it is quoted";
  bool noted = false;
  for (const auto& note : draft->limitations.notes)
    noted |= note.find("订单链路故障统一口径") != std::string::npos;
  EXPECT_TRUE(noted) << last.content;
}

TEST_F(DemoTest, TheGatewayQuestionFollowsTheSameChainFromTheEdge) {
  auto execution = workspace_->Run("网关上 POST /api/v1/orders 的 504 是怎么回事？");
  ASSERT_TRUE(execution.draft && execution.draft->conclusion) << workspace_->Transcript();
  const std::string& cause = execution.draft->conclusion->root_cause;
  EXPECT_NE(cause.find("v2.3.1"), std::string::npos) << cause;
  EXPECT_NE(cause.find("gateway"), std::string::npos) << cause;
  EXPECT_NE(cause.find("504"), std::string::npos) << cause;
  ExpectEveryQuoteInItsCanonicalRecord(*execution.draft);
}

TEST_F(DemoTest, TheUnanswerableQuestionEndsWithoutAConclusionAndSaysWhatIsMissing) {
  auto execution =
      workspace_->Run("user-service 昨天（11 月 28 日）晚上为什么频繁 Full GC、最后 OOM？");
  std::string transcript = workspace_->Transcript();
  ASSERT_TRUE(execution.draft.has_value()) << transcript;
  const auto& draft = *execution.draft;
  EXPECT_FALSE(draft.conclusion.has_value()) << transcript;
  ASSERT_GE(draft.limitations.missing_info.size(), 2u) << transcript;
  EXPECT_NE(draft.limitations.missing_info[0].find("user-service"), std::string::npos);
  EXPECT_NE(draft.limitations.missing_info[1].find("11 月 28 日"), std::string::npos);
  EXPECT_TRUE(draft.findings.empty())
      << "a gateway paragraph mentioning OOM is no finding about user-service";
  EXPECT_LE(execution.snapshot.entries.size(), 1u) << "a short check, not an investigation";
  EXPECT_TRUE(draft.next_steps.empty());
}

TEST_F(DemoTest, AQuestionWithoutAFailureGetsNoInventedCause) {
  auto execution = workspace_->Run("库存服务最近 30 分钟为什么报错？");
  ASSERT_TRUE(execution.draft.has_value());
  EXPECT_FALSE(execution.draft->conclusion.has_value()) << workspace_->Transcript();
  ASSERT_FALSE(execution.draft->limitations.missing_info.empty());
  ExpectEveryQuoteInItsCanonicalRecord(*execution.draft);
}

}  // namespace
}  // namespace diagd::model::offline
