// What release reads of a query_mysql result through its face: cells as
// the model saw them, and the tables a statement read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/mysql/mysql_tool.h"

namespace diagd::tools::mysql {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(MysqlFace, CellsReadAsTheirJsonForm) {
  EXPECT_EQ(CellText(SqlValue{std::int64_t{42}}), "42");
  EXPECT_EQ(CellText(SqlValue{0.5}), "0.5");
  EXPECT_EQ(CellText(SqlValue{2.0}), "2");
  EXPECT_EQ(CellText(SqlValue{true}), "true");
  EXPECT_EQ(CellText(SqlValue{std::string("<binary 2048 bytes>")}), "<binary 2048 bytes>");
  EXPECT_FALSE(CellText(SqlValue{std::monostate{}}).has_value());
}

TEST(MysqlFace, TablesReadAreTheNamesAfterFromAndJoin) {
  EXPECT_THAT(TablesRead("SELECT a FROM shop.Orders o JOIN `payment_record` p ON o.id = p.oid "
                         "WHERE x IN (SELECT y FROM refunds)"),
              ElementsAre("orders", "payment_record", "refunds"));
  EXPECT_THAT(TablesRead("SELECT 'FROM nowhere' /* FROM comment */"), IsEmpty());
}


}  // namespace
}  // namespace diagd::tools::mysql
