#include "tools/tool_settings.h"

#include <gtest/gtest.h>

namespace diagd::tools {
namespace {

TEST(ToolSettings, TakeRulesAndBoundsFromConfiguration) {
  auto config = config::ParseConfig(R"(
language = "en"
[tools]
max_attempts = 3
[tools.logs]
default_lookback_minutes = 30
max_lookback_minutes = 120
max_events = 7
timeout_ms = 2500
[tools.documents]
max_evidence = 4
max_excerpt_chars = 300
[tools.mysql.datasources.orders]
url = "sqlite:orders.db"
max_rows = 12
timeout_ms = 900
[tools.mysql.datasources.billing]
url = "sqlite:billing.db"
max_rows = 40
max_cell_chars = 200
)",
                                    "/srv/diagd", {});
  ASSERT_TRUE(config.has_value()) << config.error().message;

  CatalogOptions catalog = CatalogOptionsFrom(*config);
  EXPECT_TRUE(catalog.logs.topics.empty()) << "the logs backend lists them (its refresh)";
  EXPECT_EQ(catalog.logs.default_lookback_minutes, 30);
  EXPECT_EQ(catalog.logs.max_lookback_minutes, 120);
  EXPECT_EQ(catalog.mysql.datasources, (std::vector<std::string>{"billing", "orders"}));
  EXPECT_TRUE(catalog.english);

  BoundaryOptions boundary = BoundaryOptionsFrom(*config);
  EXPECT_EQ(boundary.max_attempts, 3);
  EXPECT_EQ(boundary.timeouts.at(tools::logs::kQueryLogs), std::chrono::milliseconds(2500));
  EXPECT_EQ(boundary.timeouts.at(tools::mysql::kQueryMysql), std::chrono::milliseconds(3000))
      << "billing keeps the default 3000 ms, the larger of the two";
  EXPECT_EQ(boundary.limits.max_rows, 40u);
  EXPECT_EQ(boundary.limits.max_cell_chars, 1000u);
  EXPECT_EQ(boundary.limits.max_events, 7u);
  EXPECT_EQ(boundary.limits.max_evidence, 4u);
  EXPECT_EQ(boundary.limits.max_excerpt_chars, 300u);
}

}  // namespace
}  // namespace diagd::tools

namespace diagd::tools {
namespace {

TEST(ToolSettings, WithoutDatasourcesRowBoundsKeepTheirDefaults) {
  auto config = config::DefaultConfig("/srv/diagd", {});
  ASSERT_TRUE(config.has_value());
  BoundaryOptions boundary = BoundaryOptionsFrom(*config);
  EXPECT_EQ(boundary.limits.max_rows, ResultLimits{}.max_rows);
  EXPECT_EQ(boundary.timeouts.count(tools::mysql::kQueryMysql), 0u);
}

}  // namespace
}  // namespace diagd::tools
