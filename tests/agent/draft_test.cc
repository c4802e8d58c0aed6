#include "agent/draft.h"

#include <gtest/gtest.h>

#include "agent/prompts.h"
#include "agent/tool_call_ids.h"

namespace diagd::agent {
namespace {

TEST(Draft, ParsesTheFullContractShape) {
  auto draft = ParseDraft(R"({
    "conclusion": {"root_cause": "payment-db 连接池耗尽导致订单服务调用超时", "confidence": "HIGH",
                   "evidence": [{"tool_call_id": "call_3", "quote": "HikariPool-1 - Connection is not available"}]},
    "findings": [
      {"tool_call_id": "call_2", "kind": "FOUND", "statement": "网关 504 增多", "quote": "upstream timed out"},
      {"tool_call_id": "call_5", "kind": "NOT_FOUND", "statement": "网关无异常"}
    ],
    "limitations": {"missing_info": [], "notes": ["仅查看了 60 分钟"]},
    "next_steps": ["扩容连接池"]
  })");
  ASSERT_TRUE(draft.has_value());
  EXPECT_EQ(draft->conclusion->confidence, Confidence::kHigh);
  EXPECT_EQ(draft->findings[1].kind, FindingKind::kNotFound);
  EXPECT_FALSE(draft->findings[1].quote.has_value());
  EXPECT_EQ(draft->limitations.notes.size(), 1u);
  // Round trip through the canonical form.
  auto again = ParseDraft(DraftJson(*draft));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(DraftJson(*again), DraftJson(*draft));
}

TEST(Draft, OnlyConclusionIsRequiredAndNullIsLegal) {
  auto draft = ParseDraft(" {\"conclusion\": null} \n");
  ASSERT_TRUE(draft.has_value());
  EXPECT_FALSE(draft->conclusion.has_value());
  EXPECT_TRUE(draft->findings.empty());
}

TEST(Draft, RejectsWrongTypesAndUnknownKeysAnywhere) {
  for (const char* text : {
           R"({"conclusion": "连接池"})",
           R"({"conclusion": {"root_cause": "x", "confidence": "HIGH"}})",
           R"({"conclusion": {"root_cause": "x", "confidence": "HIGH", "evidence": [{"tool_call_id": "c", "quote": 5}]}})",
           R"({"conclusion": {"root_cause": "x", "confidence": "HIGH", "evidence": [], "score": 0.9}})",
           R"({"conclusion": null, "findings": [{"tool_call_id": "c", "kind": "MAYBE", "statement": "s"}]})",
           R"({"conclusion": null, "findings": [{"tool_call_id": "c", "kind": "FOUND"}]})",
           R"({"conclusion": null, "limitations": {"missing_info": "time"}})",
           R"({"conclusion": null, "limitations": {"missing": []}})",
           R"({"conclusion": null, "next_steps": [1]})",
           R"({"conclusion": null, "reasoning": "..."})",
       }) {
    auto draft = ParseDraft(text);
    ASSERT_FALSE(draft.has_value()) << text;
    EXPECT_EQ(draft.error(), DraftRejection::kSchemaViolation) << text;
  }
}

TEST(Draft, RejectsOversizedOutputs) {
  std::string huge = R"({"conclusion": null, "next_steps": [")" + std::string(70000, 'x') + "\"]}";
  auto draft = ParseDraft(huge);
  ASSERT_FALSE(draft.has_value());
  EXPECT_EQ(draft.error(), DraftRejection::kTooLarge);
}

TEST(Prompts, NameNoToolSchemaThresholdCounterProjectorOrBudget) {
  for (auto language : {config::Language::kZh, config::Language::kEn}) {
    std::string prompt = DiagnosisSystemPrompt(language);
    for (const char* word :
         {"search_documents", "query_logs", "query_mysql", "previous_observation", "schema",
          "Schema", "threshold", "counter", "projector", "budget", "next_action", "阈值", "计数",
          "预算", "投影", "Projector", "NO_GAIN_THRESHOLD", "max_"}) {
      EXPECT_EQ(prompt.find(word), std::string::npos) << word;
    }
    // What the prompt must say.
    EXPECT_NE(prompt.find("GAINED"), std::string::npos);
    EXPECT_NE(prompt.find("NO_GAIN"), std::string::npos);
    EXPECT_NE(prompt.find("missing_info"), std::string::npos);
    EXPECT_NE(prompt.find("stop_required"), std::string::npos);
    EXPECT_NE(prompt.find("\"conclusion\""), std::string::npos);
  }
  EXPECT_NE(DiagnosisSystemPrompt(config::Language::kZh).find("conclusion 写 null"),
            std::string::npos);
}

TEST(ToolCallIds, KeepsUniqueSafeIdsAndReplacesTheRest) {
  ToolCallIdAssigner ids;
  std::vector<model::ToolCall> calls{{"call_1", "a", "{}"}, {"call_1", "b", "{}"},
                                     {"", "c", "{}"}, {std::string(100, 'x'), "d", "{}"},
                                     {"id with space", "e", "{}"}};
  ids.Assign(calls);
  EXPECT_EQ(calls[0].id, "call_1");
  EXPECT_EQ(calls[1].id, "call_2");
  EXPECT_EQ(calls[2].id, "call_3");
  EXPECT_EQ(calls[3].id, "call_4");
  EXPECT_EQ(calls[4].id, "call_5");
  std::vector<model::ToolCall> later{{"call_3", "f", "{}"}};
  ids.Assign(later);
  EXPECT_EQ(later[0].id, "call_6") << "an id used earlier in the run is never reused";
}

}  // namespace
}  // namespace diagd::agent
