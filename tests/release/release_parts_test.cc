// The parts release is built from, each on its own: the exact verdict, what
// a quote may match, the prompts' words.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/text.h"
#include "release/cited_record.h"
#include "release/release_prompts.h"
#include "release/semantic_guard.h"
#include "release_fixture.h"

namespace diagd::release::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SemanticVerdict, OnlyExactlyTheSupportedObjectPasses) {
  EXPECT_TRUE(IsSupportedVerdict(R"({"verdict":"SUPPORTED"})"));
  EXPECT_TRUE(IsSupportedVerdict(" {\"verdict\": \"SUPPORTED\"}\n"));
  for (const char* answer :
       {"", "SUPPORTED", "支持", R"({"verdict":"UNSUPPORTED"})", R"({"verdict":"SUPPORTED","x":1})",
        R"({"verdict":"supported"})", R"({"verdict":true})", R"({"Verdict":"SUPPORTED"})",
        R"([{"verdict":"SUPPORTED"}])", R"({"verdict":"SUPPORTED"} ok)",
        "```json\n{\"verdict\":\"SUPPORTED\"}\n```", R"({"verdict":"SUPPORTED",})"}) {
    EXPECT_FALSE(IsSupportedVerdict(answer)) << answer;
  }
}

TEST(CitedRecordQuote, MatchesExcerptTitleMessageOrCellTextOnly) {
  tools::ToolResult docs = Docs("c", kDocTitle, kDocExcerpt);
  EXPECT_TRUE(QuoteOccursIn(docs, "payment-db 的慢查询"));
  EXPECT_TRUE(QuoteOccursIn(docs, "Runbook"));
  EXPECT_FALSE(QuoteOccursIn(docs, "runbooks/order.md"));  // source
  EXPECT_FALSE(QuoteOccursIn(docs, "Runbook > 连接池"));   // breadcrumb
  EXPECT_FALSE(QuoteOccursIn(docs, "Runbook连接池耗尽"));  // title and excerpt joined
  EXPECT_FALSE(QuoteOccursIn(docs, "PAYMENT-DB"));         // exact, not case-folded

  tools::ToolResult logs = Logs("c", {kLogMessage});
  EXPECT_TRUE(QuoteOccursIn(logs, "HikariPool-1 - Connection"));
  EXPECT_FALSE(QuoteOccursIn(logs, "2026-11-29T10:29"));  // timestamp
  EXPECT_FALSE(QuoteOccursIn(logs, "order-service"));     // service

  tools::ToolResult rows = Rows("c");
  EXPECT_TRUE(QuoteOccursIn(rows, "TIMEOUT"));
  EXPECT_TRUE(QuoteOccursIn(rows, "1500"));
  EXPECT_TRUE(QuoteOccursIn(rows, "0.125"));
  EXPECT_FALSE(QuoteOccursIn(rows, "status"));      // a column name is not a cell
  EXPECT_FALSE(QuoteOccursIn(rows, "2026-11-29"));  // a parameter is not a cell
  EXPECT_FALSE(QuoteOccursIn(rows, "1500.0"));
}

TEST(CitedRecordQuote, AMetricsQuoteIsALabelValueOrThePartOfASummaryLine) {
  tools::metrics::MetricsResult metrics;
  metrics.tool_call_id = "c";
  metrics.query = "hikaricp_connections_active";
  metrics.series.push_back(
      {{{"__name__", "hikaricp_connections_active"}, {"service", "payment-service"}},
       "hikaricp_connections_active{service=\"payment-service\"}: first 0 at "
       "2026-11-29T09:31:00Z, last 16 at 2026-11-29T10:30:00Z, min 0, max 16, largest change +12 "
       "at 2026-11-29T10:07:00Z",
       {{"2026-11-29T10:06:00Z", 3.5}, {"2026-11-29T10:07:00Z", 15.25}}});
  tools::ToolResult result = metrics;
  EXPECT_TRUE(QuoteOccursIn(result, "largest change +12 at 2026-11-29T10:07:00Z"));
  EXPECT_TRUE(QuoteOccursIn(result, "payment-service"));  // a label value
  EXPECT_FALSE(QuoteOccursIn(result, "15.25"));             // a point's value
  EXPECT_FALSE(QuoteOccursIn(result, "2026-11-29T10:06:00Z"));  // a point's time
  EXPECT_FALSE(QuoteOccursIn(result, "largest change +20"));   // not what the summary says
  EXPECT_FALSE(QuoteOccursIn(result, "__name__"));             // a label name
}

TEST(CitedRecordQuote, NeedsFourCodePointsThatAreNotAllWhiteSpace) {
  EXPECT_FALSE(QuoteLongEnough("Hik"));
  EXPECT_TRUE(QuoteLongEnough("Hika"));
  EXPECT_FALSE(QuoteLongEnough("连接池"));  // three characters, nine bytes
  EXPECT_TRUE(QuoteLongEnough("连接池耗"));
  EXPECT_FALSE(QuoteLongEnough("    "));
  EXPECT_FALSE(QuoteLongEnough(""));
}

TEST(ReleasePrompts, NameNoToolSchemaThresholdCounterProjectorOrBudget) {
  for (auto language : {config::Language::kZh, config::Language::kEn}) {
    for (const std::string& prompt :
         {EvidenceRepairSystemPrompt(language), SemanticGuardSystemPrompt(language)}) {
      EXPECT_TRUE(text::IsValidUtf8(prompt));
      for (const char* word :
           {"search_documents", "query_logs", "query_mysql", "schema", "Schema", "threshold",
            "counter", "consecutive", "projector", "budget", "阈值", "计数", "预算", "投影"}) {
        EXPECT_THAT(prompt, Not(HasSubstr(word))) << word;
      }
    }
  }
  EXPECT_THAT(SemanticGuardSystemPrompt(config::Language::kZh),
              HasSubstr(R"({"verdict": "SUPPORTED"})"));
  EXPECT_THAT(EvidenceRepairSystemPrompt(config::Language::kEn), HasSubstr("QUOTE_NOT_FOUND"));
  EXPECT_THAT(EvidenceRepairSystemPrompt(config::Language::kZh), HasSubstr("NO_CITATION"));
}

}  // namespace
}  // namespace diagd::release::testing
