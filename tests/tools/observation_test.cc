// The model view of results, and two scenarios of
// docs/specs/tool-contracts.md (RAG evidence serialized; RAG query with no evidence).
#include "tools/observation.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/json_writer.h"
#include "core/text.h"
#include "tools/documents/upstream_projector.h"
#include "tools/result_json.h"

namespace diagd::tools {
namespace {

// An upstream answer full of what must never pass on.
constexpr const char* kUpstream = R"({
  "relevanceLevel": "high",
  "documents": [
    {"document_id": "doc-7", "source": "runbooks/order.md", "title": "订单服务 Runbook",
     "breadcrumb": "订单服务 Runbook > 连接池耗尽", "score": 0.93, "rerank_score": 0.88,
     "content": "前言：这一段很长的背景介绍与故障本身毫无关系，只是为了让摘录必须从中间截取而写得足够长。当出现 HikariPool-1 - Connection is not available 时，说明连接池耗尽，需检查 payment-db 慢查询。后记。",
     "metadata": {"owner": "sre", "acl": ["internal"]}, "full_text": "FULL BODY OF THE DOCUMENT"}
  ],
  "context_pack": {"chunks": ["CONTEXT PACK CHUNK"]},
  "retrieval_trace": [{"stage": "bm25", "took_ms": 3}],
  "rerank_trace": {"model": "bge-reranker"},
  "fallback_attempts": [{"backend": "es", "error": "timeout"}],
  "raw_scores": [0.93]
})";

DocumentsResult Projected(const char* upstream, const std::string& query) {
  auto parsed = json::Parse(upstream);
  EXPECT_TRUE(parsed.has_value());
  auto result = documents::ProjectUpstream(*parsed, query, 60);
  EXPECT_TRUE(result.has_value());
  return result.value_or(DocumentsResult{});
}

TEST(RagEvidence, SerializedKeepsBoundedEvidenceAndNormalizedRelevanceOnly) {
  ToolResult result = Projected(kUpstream, "HikariPool 连接池");
  std::get<DocumentsResult>(result).tool_call_id = "call_3";
  Canonicalize(result, ResultLimits{});
  std::string canonical = CanonicalResultText(result);
  std::string observation = ResultObservation(result, ObservationLimits{});
  for (const std::string& text : {canonical, observation}) {
    for (const char* forbidden :
         {"score", "rerank", "CONTEXT PACK", "context_pack", "retrieval_trace", "bm25",
          "fallback", "metadata", "owner", "FULL BODY", "full_text", "0.93", "前言"}) {
      EXPECT_EQ(text.find(forbidden), std::string::npos) << forbidden << " in " << text;
    }
  }
  auto view = json::Parse(observation)->as_object();
  EXPECT_EQ(view.at("relevance_level"), "HIGH");
  EXPECT_EQ(view.at("evidence_status"), "EVIDENCE_FOUND");
  EXPECT_EQ(view.at("tool_call_id"), "call_3");
  const auto& item = view.at("evidence").as_array().at(0).as_object();
  EXPECT_EQ(item.size(), 5u);
  std::string excerpt(item.at("excerpt").as_string());
  EXPECT_NE(excerpt.find("HikariPool-1 - Connection"), std::string::npos) << excerpt;
  EXPECT_FALSE(view.contains("returned_count")) << "counts are harness-only";
  EXPECT_TRUE(json::Parse(canonical)->as_object().contains("returned_count"));
}

TEST(RagEvidence, AcceptsSnakeCaseRelevanceAndDropsUnknownLevels) {
  auto snake = Projected(R"({"relevance_level":" Reference ","documents":[]})", "q");
  EXPECT_EQ(snake.relevance_level, RelevanceLevel::kReference);
  auto unknown = Projected(R"({"relevanceLevel":"VERY_HIGH","documents":[]})", "q");
  EXPECT_FALSE(unknown.relevance_level.has_value());
}

TEST(RagEvidence, NoUsableExcerptIsNoEvidenceKeepingQueryAndIdDespiteRelevance) {
  ToolResult result = Projected(
      R"({"relevanceLevel":"HIGH","documents":[{"document_id":"d1","title":"t","excerpt":"  "},
          {"title":"no id","excerpt":"x"}]})",
      "订单 超时");
  std::get<DocumentsResult>(result).tool_call_id = "call_9";
  Canonicalize(result, ResultLimits{});
  auto view = json::Parse(ResultObservation(result, ObservationLimits{}))->as_object();
  EXPECT_EQ(view.at("evidence_status"), "NO_EVIDENCE") << "relevance never upgrades to evidence";
  EXPECT_EQ(view.at("query"), "订单 超时");
  EXPECT_EQ(view.at("tool_call_id"), "call_9");
  EXPECT_EQ(view.at("evidence"), boost::json::array{});
}

TEST(RagEvidence, ExcerptCutFromContentIsAnExactSubstringCentredOnTheMatch) {
  std::string content;
  for (int i = 0; i < 50; ++i) content += "无关的背景文字。";
  content += "订单服务超时是因为 payment-db 连接池耗尽。";
  for (int i = 0; i < 50; ++i) content += "其他内容。";
  std::string excerpt = documents::CutExcerpt(content, "连接池", 60);
  EXPECT_NE(content.find(excerpt), std::string::npos);
  EXPECT_NE(excerpt.find("连接池耗尽"), std::string::npos);
  EXPECT_EQ(text::CodePointCount(excerpt), 60u);
}

TEST(RagEvidence, RejectsAnUpstreamAnswerWithoutDocuments) {
  auto parsed = json::Parse(R"({"results":[]})");
  EXPECT_FALSE(documents::ProjectUpstream(*parsed, "q", 100).has_value());
}

TEST(Canonicalize, BoundsListsAndStringsAndSaysSo) {
  LogsResult logs;
  for (int i = 0; i < 50; ++i) logs.events.push_back({"t", std::nullopt, std::nullopt, "msg"});
  logs.events.push_back({"t", std::nullopt, std::nullopt, std::string(5000, 'x')});
  ToolResult result = logs;
  ResultLimits limits;
  limits.max_events = 30;
  Canonicalize(result, limits);
  const auto& bounded = std::get<LogsResult>(result);
  EXPECT_EQ(bounded.events.size(), 30u);
  EXPECT_EQ(bounded.returned_count, 30u);
  EXPECT_TRUE(bounded.truncated);
  EXPECT_EQ(bounded.events.back().message.size(), 2000u) << "the newest event is kept, cut";

  MysqlResult mysql;
  mysql.columns = {"body"};
  mysql.rows.push_back({std::string(3000, 'y')});
  ToolResult rows = mysql;
  Canonicalize(rows, limits);
  EXPECT_EQ(std::get<std::string>(std::get<MysqlResult>(rows).rows[0][0]).size(), 1000u);
  EXPECT_TRUE(TruncatedOf(rows));
  EXPECT_EQ(EvidenceStatusOf(rows), EvidenceStatus::kEvidenceFound);
}

TEST(Canonicalize, MoreEventsThanMaxKeepTheEarliestFifthAndTheNewest) {
  LogsResult logs;
  for (int i = 0; i < 12; ++i) {
    logs.events.push_back({"t", std::nullopt, std::nullopt, "e" + std::to_string(i)});
  }
  ToolResult result = logs;
  ResultLimits limits;
  limits.max_events = 10;
  Canonicalize(result, limits);
  std::vector<std::string> kept;
  for (const auto& event : std::get<LogsResult>(result).events) kept.push_back(event.message);
  EXPECT_EQ(kept, (std::vector<std::string>{"e0", "e1", "e4", "e5", "e6", "e7", "e8", "e9", "e10",
                                            "e11"}));
  EXPECT_TRUE(TruncatedOf(result));
  EXPECT_EQ(EarliestShare(30), 6u);
  EXPECT_EQ(EarliestShare(2), 1u);
  EXPECT_EQ(EarliestShare(1), 1u);
}

TEST(ResultObservation, DropsEventsFromTheMiddleUntilItFitsTheByteBound) {
  LogsResult logs;
  logs.tool_call_id = "c1";
  for (int i = 0; i < 20; ++i) {
    logs.events.push_back({"2026-11-29T10:00:00.000Z", "ERROR", "svc", std::string(500, 'a' + i)});
  }
  ToolResult result = logs;
  Canonicalize(result, ResultLimits{});
  std::string observation = ResultObservation(result, ObservationLimits{4000});
  EXPECT_LE(observation.size(), 4000u);
  auto view = json::Parse(observation)->as_object();
  EXPECT_EQ(view.at("truncated"), true);
  const auto& events = view.at("events").as_array();
  ASSERT_GT(events.size(), 1u);
  EXPECT_LT(events.size(), 20u);
  EXPECT_EQ(events.front().at("message").as_string()[0], 'a') << "the earliest event is kept";
  EXPECT_EQ(events.back().at("message").as_string()[0], 'a' + 19) << "and the newest";
}

TEST(ResultObservation, MysqlCellsAreTypedJson) {
  MysqlResult mysql;
  mysql.tool_call_id = "c1";
  mysql.datasource = "orders";
  mysql.sql = "SELECT ?";
  mysql.params = {std::string("p")};
  mysql.columns = {"n", "ratio", "name", "missing", "blob"};
  mysql.rows.push_back({std::int64_t{42}, 0.5, std::string("超时"), std::monostate{},
                        std::string("<binary 2048 bytes>")});
  ToolResult result = mysql;
  Canonicalize(result, ResultLimits{});
  EXPECT_EQ(ResultObservation(result, ObservationLimits{}),
            R"({"tool_call_id":"c1","datasource":"orders","sql":"SELECT ?","params":["p"],)"
            R"("evidence_status":"EVIDENCE_FOUND","columns":["n","ratio","name","missing","blob"],)"
            R"("rows":[[42,0.5,"超时",null,"<binary 2048 bytes>"]],"truncated":false})");
}

TEST(ErrorObservation, CarriesAMessageOnlyForQueryFailedAndBoundsIt) {
  auto timeout = json::Parse(ErrorObservation("c1", ToolErrorCode::kToolTimeout, "host db1:3306"));
  EXPECT_FALSE(timeout->as_object().contains("message"));
  auto failed = json::Parse(ErrorObservation("c1", ToolErrorCode::kQueryFailed, std::string(500, 'e')));
  EXPECT_EQ(failed->at("message").as_string().size(), 200u);
}

}  // namespace
}  // namespace diagd::tools
