#include "model/offline/investigation_state.h"

#include <gtest/gtest.h>

#include "model/offline/conversation.h"

namespace diagd::model::offline {
namespace {

using testing::Conversation;

const char* const kFound =
    R"({"tool_call_id":"call_1","topic":"order-service","query":"level:ERROR","lookback_minutes":60,)"
    R"("evidence_status":"EVIDENCE_FOUND","events":[{"timestamp":"2026-11-29T10:29:59.728Z","level":"ERROR",)"
    R"("service":"order-service","message":"下单支付失败"}],"truncated":false})";

TEST(RebuildState, ReadsTopicsAndDatasourcesFromTheToolSchemas) {
  auto state = RebuildState(Conversation("订单服务报错").Request());
  EXPECT_EQ(state.topics, (std::vector<std::string>{"gateway", "order-service", "payment-db",
                                                    "payment-service"}));
  EXPECT_EQ(state.datasources, std::vector<std::string>{"orders"});
  EXPECT_TRUE(state.offers_documents && state.offers_logs && state.offers_mysql);
  EXPECT_EQ(state.question, "订单服务报错");
  EXPECT_EQ(state.lang, Lang::kZh);
  EXPECT_TRUE(state.calls.empty());
  EXPECT_FALSE(state.pending.has_value());
}

TEST(RebuildState, AnEnglishSystemPromptMeansEnglish) {
  auto state = RebuildState(Conversation("why", {"a"}, {}, true).Request());
  EXPECT_EQ(state.lang, Lang::kEn);
}

TEST(RebuildState, AResultWithEvidenceAwaitsItsGradeAndNoEvidenceDoesNot) {
  Conversation conversation("订单服务报错");
  conversation
      .Call("call_1", "query_logs", R"({"input":{"topic":"order-service","query":"level:ERROR"}})")
      .Observe("call_1", kFound);
  auto state = RebuildState(conversation.Request());
  ASSERT_EQ(state.calls.size(), 1u);
  EXPECT_EQ(state.calls[0].outcome, Outcome::kEvidence);
  EXPECT_EQ(state.calls[0].lookback_used, 60);
  EXPECT_EQ(state.calls[0].events.size(), 1u);
  EXPECT_EQ(state.pending, "call_1");

  conversation
      .Call("call_2", "query_logs",
            R"({"previous_observation":{"tool_call_id":"call_1","information_gain":"GAINED"},)"
            R"("input":{"topic":"gateway","query":"level:ERROR"}})")
      .Observe(
          "call_2",
          R"({"tool_call_id":"call_2","topic":"gateway","query":"level:ERROR",)"
          R"("lookback_minutes":60,"evidence_status":"NO_EVIDENCE","events":[],"truncated":false})");
  state = RebuildState(conversation.Request());
  EXPECT_TRUE(state.calls[1].graded);
  EXPECT_EQ(state.calls[1].outcome, Outcome::kNoEvidence);
  EXPECT_FALSE(state.pending.has_value()) << "graded by us, then graded by the harness";
}

TEST(RebuildState, AProtocolAnswerNamesTheCallStillPending) {
  Conversation conversation("订单服务报错");
  conversation
      .Call("call_1", "query_logs", R"({"input":{"topic":"order-service","query":"level:ERROR"}})")
      .Observe("call_1", kFound)
      .Call("call_2", "query_logs", R"({"input":{"topic":"gateway","query":"level:ERROR"}})")
      .Observe(
          "call_2",
          R"({"tool_call_id":"call_2","error_code":"INVALID_PROGRESS_PROTOCOL",)"
          R"("repair_required":true,"violation_type":"MISSING_PREVIOUS_OBSERVATION",)"
          R"("missing_field":"previous_observation","expected_previous_tool_call_id":"call_1",)"
          R"("allowed_information_gain":["GAINED","NO_GAIN"]})");
  auto state = RebuildState(conversation.Request());
  EXPECT_EQ(state.calls[1].outcome, Outcome::kViolation);
  EXPECT_EQ(state.pending, "call_1");
}

TEST(RebuildState, ReadsCellsTextCellsAsTextAndNumbersInJsonForm) {
  Conversation conversation("支付发布");
  conversation
      .Call("call_1", "query_mysql", R"({"input":{"datasource":"orders","sql":"SELECT 1"}})")
      .Observe("call_1",
               R"({"tool_call_id":"call_1","datasource":"orders","sql":"SELECT 1","params":[],)"
               R"("evidence_status":"EVIDENCE_FOUND","columns":["id","version","ratio"],)"
               R"("rows":[[11,"v2.3.1",0.5]],"truncated":false,"stop_required":true,)"
               R"("reason":"INFORMATION_SATURATED"})");
  auto state = RebuildState(conversation.Request());
  const auto& row = state.calls[0].rows.at(0);
  EXPECT_EQ(row[0].text, "11");
  EXPECT_FALSE(row[0].is_text);
  EXPECT_EQ(row[1].text, "v2.3.1");
  EXPECT_TRUE(row[1].is_text);
  EXPECT_TRUE(row[2].text.empty())
      << "a double's JSON text is not reproduced, so it is never quoted";
  EXPECT_TRUE(state.stop_required);
}

}  // namespace
}  // namespace diagd::model::offline
