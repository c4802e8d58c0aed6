// Scope normalization per tool (docs/specs/progress-protocol.md): equal
// scopes for requests that differ only in what normalization removes,
// different scopes for anything else. No natural-language rewriting is ever
// judged equal.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "tools/tool_catalog.h"

namespace diagd::tools {
namespace {

std::string Identity(const ToolRequest& request) { return ToolCatalog::ScopeOf(request).identity; }

TEST(DocumentsScope, TrimsAndCollapsesWhitespaceOnly) {
  EXPECT_EQ(Identity(DocumentsRequest{"  订单服务   500\t连接池 "}),
            Identity(DocumentsRequest{"订单服务 500 连接池"}));
  EXPECT_NE(Identity(DocumentsRequest{"订单服务 500 连接池"}),
            Identity(DocumentsRequest{"订单服务 连接池 500"}));
  EXPECT_NE(Identity(DocumentsRequest{"connection pool"}),
            Identity(DocumentsRequest{"Connection Pool"}))
      << "no case or language rewriting";
  EXPECT_NE(Identity(DocumentsRequest{"连接池耗尽"}), Identity(DocumentsRequest{"连接池 耗尽"}));
}

TEST(LogsScope, UsesTopicCollapsedQueryAndActualLookback) {
  EXPECT_EQ(Identity(LogsRequest{"gateway", " level:ERROR   timeout ", 60}),
            Identity(LogsRequest{"gateway", "level:ERROR timeout", 60}));
  EXPECT_NE(Identity(LogsRequest{"gateway", "timeout", 60}),
            Identity(LogsRequest{"order-service", "timeout", 60}));
  EXPECT_NE(Identity(LogsRequest{"gateway", "timeout", 60}),
            Identity(LogsRequest{"gateway", "timeout", 30}));
  EXPECT_NE(Identity(LogsRequest{"gateway", "timeout error", 60}),
            Identity(LogsRequest{"gateway", "error timeout", 60}));
}

TEST(LogsScope, TimeBoundsArePartOfTheScopeAsTheInstantsTheyName) {
  auto id = [](const std::string& query) { return Identity(LogsRequest{"gateway", query, 60}); };
  const std::string bounded = "timeout after:2026-11-29T09:55:00Z before:2026-11-29T10:10:00Z";
  EXPECT_EQ(id(bounded), id(bounded)) << "an identical query repeats";
  EXPECT_NE(id(bounded), id("timeout")) << "bounds narrow the scope";
  EXPECT_NE(id(bounded), id("timeout after:2026-11-29T09:56:00Z before:2026-11-29T10:10:00Z"));
  EXPECT_NE(id(bounded), id("timeout after:2026-11-29T09:55:00Z before:2026-11-29T10:11:00Z"));
  EXPECT_NE(id("timeout after:2026-11-29T09:55:00Z"), id("timeout before:2026-11-29T09:55:00Z"));
  EXPECT_EQ(id(bounded),
            id("before:2026-11-29T18:10:00+08:00   timeout AFTER:2026-11-29T09:55:00.000Z"))
      << "one instant in another zone or spelling, anywhere in the query";
  EXPECT_EQ(id(bounded), id(bounded + " after:2026-11-29T09:00:00Z")) << "the tightest holds";
  EXPECT_NE(id("timeout \"after:2026-11-29T09:55:00Z\""), id("timeout after:2026-11-29T09:55:00Z"))
      << "a phrase is text";
  EXPECT_EQ(id("timeout"), R"(["query_logs","gateway","timeout",60])")
      << "a query without bounds keeps its identity";
}

TEST(LogsScope, OmittedLookbackEqualsDefaultAndAboveMaximumEqualsMaximum) {
  CatalogOptions options;
  options.logs.topics = {"gateway"};
  ToolCatalog catalog(options);
  auto omitted = catalog.ParseInput(tools::logs::kQueryLogs, {{"topic", "gateway"}, {"query", "x"}});
  auto explicit60 = catalog.ParseInput(
      tools::logs::kQueryLogs, {{"topic", "gateway"}, {"query", "x"}, {"lookback_minutes", 60}});
  auto huge = catalog.ParseInput(
      tools::logs::kQueryLogs, {{"topic", "gateway"}, {"query", "x"}, {"lookback_minutes", 100000}});
  auto max = catalog.ParseInput(
      tools::logs::kQueryLogs, {{"topic", "gateway"}, {"query", "x"}, {"lookback_minutes", 1440}});
  ASSERT_TRUE(omitted && explicit60 && huge && max);
  EXPECT_EQ(Identity(*omitted), Identity(*explicit60));
  EXPECT_EQ(Identity(*huge), Identity(*max));
  EXPECT_EQ(std::get<LogsRequest>(*huge).lookback_minutes, 1440);
}

TEST(MysqlScope, FoldsDatasourceKeywordsWhitespaceAndTrailingSemicolon) {
  MysqlRequest a{"Orders", "select status,  count(*)\n from orders where id = ? ;", {std::int64_t{7}}};
  MysqlRequest b{"orders", "SELECT status, count(*) FROM orders WHERE id = ?", {std::int64_t{7}}};
  EXPECT_EQ(Identity(a), Identity(b));
}

TEST(MysqlScope, KeepsLiteralsIdentifiersAndParamsApart) {
  MysqlRequest base{"orders", "SELECT * FROM orders WHERE status = 'TIMEOUT'", {}};
  MysqlRequest literal_case{"orders", "SELECT * FROM orders WHERE status = 'timeout'", {}};
  MysqlRequest other_table{"orders", "SELECT * FROM payments WHERE status = 'TIMEOUT'", {}};
  MysqlRequest quoted{"orders", "SELECT * FROM `Orders` WHERE status = 'TIMEOUT'", {}};
  EXPECT_NE(Identity(base), Identity(literal_case));
  EXPECT_NE(Identity(base), Identity(other_table));
  EXPECT_NE(Identity(base), Identity(quoted));
  MysqlRequest p1{"orders", "SELECT * FROM orders WHERE id = ?", {std::int64_t{1}}};
  MysqlRequest p2{"orders", "SELECT * FROM orders WHERE id = ?", {std::int64_t{2}}};
  MysqlRequest p_text{"orders", "SELECT * FROM orders WHERE id = ?", {std::string("1")}};
  EXPECT_NE(Identity(p1), Identity(p2));
  EXPECT_NE(Identity(p1), Identity(p_text)) << "1 and \"1\" are different params";
  MysqlRequest other_db{"billing", "SELECT * FROM orders WHERE id = ?", {std::int64_t{1}}};
  EXPECT_NE(Identity(p1), Identity(other_db));
}

TEST(MysqlScope, SummaryNamesDatasourceButNeverParams) {
  Scope scope = ToolCatalog::ScopeOf(
      MysqlRequest{"orders", "SELECT * FROM users WHERE phone = ?", {std::string("13800138000")}});
  EXPECT_NE(scope.summary.find("orders"), std::string::npos);
  EXPECT_EQ(scope.summary.find("13800138000"), std::string::npos);
  EXPECT_NE(scope.summary.find("1 params"), std::string::npos);
}

TEST(Scope, IsPerToolSoEqualTextInTwoToolsDiffers) {
  EXPECT_NE(Identity(DocumentsRequest{"timeout"}), Identity(LogsRequest{"timeout", "", 60}));
}

}  // namespace
}  // namespace diagd::tools
