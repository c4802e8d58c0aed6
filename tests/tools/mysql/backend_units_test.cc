// The pure parts of the query_mysql backend: row bounds, cell conversions,
// the server-message scrubber and the datasource url.
#include <gtest/gtest.h>

#include <limits>

#include "tools/mysql/datasource_url.h"
#include "tools/mysql/row_collector.h"
#include "tools/mysql/server_message.h"

namespace diagd::tools::mysql {
namespace {

QueryLimits Limits(std::size_t rows, std::size_t cell_chars, std::size_t bytes = 256 * 1024) {
  QueryLimits limits;
  limits.max_rows = rows;
  limits.max_cell_chars = cell_chars;
  limits.max_bytes = bytes;
  return limits;
}

TEST(RowCollector, KeepsMaxRowsAndMarksTheRowPastThemAsTruncated) {
  RowCollector rows(Limits(2, 100));
  rows.SetColumns({"x"});
  EXPECT_TRUE(rows.Add({std::int64_t{1}}));
  EXPECT_TRUE(rows.Add({std::int64_t{2}}));
  EXPECT_FALSE(rows.Add({std::int64_t{3}}));
  QueryOutput output = std::move(rows).Finish();
  EXPECT_EQ(output.rows.size(), 2u);
  EXPECT_TRUE(output.truncated);
}

TEST(RowCollector, ExactlyMaxRowsIsNotTruncated) {
  RowCollector rows(Limits(2, 100));
  EXPECT_TRUE(rows.Add({std::int64_t{1}}));
  EXPECT_TRUE(rows.Add({std::int64_t{2}}));
  EXPECT_FALSE(std::move(rows).Finish().truncated);
}

TEST(RowCollector, CutsTextToCodePointsNotBytes) {
  RowCollector rows(Limits(10, 3));
  EXPECT_EQ(std::get<std::string>(rows.Text("订单超时")), "订单超");
  QueryOutput output = std::move(rows).Finish();
  EXPECT_TRUE(output.truncated);
}

TEST(RowCollector, TextThatFitsIsNotTruncatedUnlessTheBackendCutIt) {
  RowCollector whole(Limits(10, 4));
  EXPECT_EQ(std::get<std::string>(whole.Text("订单超时")), "订单超时");
  EXPECT_FALSE(std::move(whole).Finish().truncated);
  RowCollector cut(Limits(10, 4));
  cut.Text("abc", /*already_cut=*/true);
  EXPECT_TRUE(std::move(cut).Finish().truncated);
}

TEST(RowCollector, StopsBeforeTheRowThatWouldPassTheByteBound) {
  RowCollector rows(Limits(1000, 1000, 1000));
  std::size_t added = 0;
  while (rows.Add({std::string(100, 'x')})) ++added;
  QueryOutput output = std::move(rows).Finish();
  EXPECT_GT(added, 5u);
  EXPECT_LT(added, 10u);
  EXPECT_EQ(output.rows.size(), added);
  EXPECT_TRUE(output.truncated);
}

TEST(RowCollector, BoundsColumnNamesLikeCells) {
  RowCollector rows(Limits(10, 5));
  rows.SetColumns({"status", "id"});
  QueryOutput output = std::move(rows).Finish();
  EXPECT_EQ(output.columns, (std::vector<std::string>{"statu", "id"}));
  EXPECT_TRUE(output.truncated);
}

TEST(RowCollector, ReplacesInvalidUtf8) {
  RowCollector rows(Limits(10, 100));
  EXPECT_EQ(std::get<std::string>(rows.Text("a\xff")), "a\xEF\xBF\xBD");
}

TEST(Cells, DecimalIsADoubleUpToFifteenSignificantDigits) {
  EXPECT_EQ(std::get<double>(DecimalCell("12.30")), 12.3);
  EXPECT_EQ(std::get<double>(DecimalCell("-0.0500")), -0.05);
  EXPECT_EQ(std::get<double>(DecimalCell("0.00")), 0.0);
  EXPECT_EQ(std::get<double>(DecimalCell("123456789012345")), 123456789012345.0);
  EXPECT_EQ(std::get<double>(DecimalCell("1234567890.12345000")), 1234567890.12345);
}

TEST(Cells, DecimalKeepsItsExactTextBeyondFifteenDigits) {
  EXPECT_EQ(std::get<std::string>(DecimalCell("1234567890123456")), "1234567890123456");
  EXPECT_EQ(std::get<std::string>(DecimalCell("12345678901234567890.1234567890")),
            "12345678901234567890.1234567890");
  EXPECT_EQ(std::get<std::string>(DecimalCell("abc")), "abc");
}

TEST(Cells, UnsignedAboveInt64IsExactText) {
  EXPECT_EQ(std::get<std::int64_t>(UnsignedCell(42)), 42);
  EXPECT_EQ(std::get<std::string>(UnsignedCell(std::numeric_limits<std::uint64_t>::max())),
            "18446744073709551615");
}

TEST(Cells, NonFiniteDoublesBecomeText) {
  EXPECT_EQ(std::get<double>(DoubleCell(0.5)), 0.5);
  EXPECT_EQ(std::get<std::string>(DoubleCell(std::numeric_limits<double>::infinity())), "Infinity");
  EXPECT_EQ(std::get<std::string>(DoubleCell(-std::numeric_limits<double>::infinity())),
            "-Infinity");
  EXPECT_EQ(std::get<std::string>(DoubleCell(std::numeric_limits<double>::quiet_NaN())), "NaN");
}

TEST(Cells, BinaryIsAPlaceholderAndBitsAreIntegers) {
  EXPECT_EQ(std::get<std::string>(BinaryCell(2048)), "<binary 2048 bytes>");
  EXPECT_EQ(std::get<std::int64_t>(BitCell(std::string("\x01\x02", 2))), 258);
}

TEST(SafeServerMessage, KeepsWhatHelpsTheModel) {
  EXPECT_EQ(SafeServerMessage("Unknown column 'statu' in 'field list'"),
            "Unknown column 'statu' in 'field list'");
  EXPECT_EQ(SafeServerMessage("Table 'orders.x' doesn't exist"), "Table 'orders.x' doesn't exist");
  EXPECT_EQ(SafeServerMessage("near \"/\": syntax error"), "near \"/\": syntax error");
}

TEST(SafeServerMessage, AccessDeniedSaysNoMore) {
  EXPECT_EQ(SafeServerMessage("Access denied for user 'app'@'10.0.0.3' (using password: YES)"),
            "access denied");
  EXPECT_EQ(SafeServerMessage("Access denied for user 'app'@'%' to database 'secret'"),
            "access denied");
}

TEST(SafeServerMessage, DropsAccountsHostsAndPaths) {
  EXPECT_EQ(SafeServerMessage("SELECT command denied to user 'app'@'db-7.internal' for table "
                              "`shop`.`salaries`"),
            "SELECT command denied for table `shop`.`salaries`");
  EXPECT_EQ(SafeServerMessage("Can't create/write to file '/var/lib/mysql/x.txt' (Errcode: 13)"),
            "Can't create/write to file '<path>' (Errcode: 13)");
  EXPECT_EQ(SafeServerMessage("unable to open /srv/data/orders.db"), "unable to open <path>");
  EXPECT_EQ(SafeServerMessage("Host 10.1.2.3 is blocked"), "Host <host> is blocked");
}

TEST(SafeServerMessage, FirstLineOnlyBoundedAndNeverEmpty) {
  EXPECT_EQ(SafeServerMessage("boom\n  at frame 1\n  at frame 2"), "boom");
  std::string long_message(500, 'x');
  EXPECT_EQ(SafeServerMessage(long_message).size(), kMaxServerMessageChars);
  EXPECT_EQ(SafeServerMessage(""), "query failed");
}

TEST(DatasourceUrl, ReadsSqlite) {
  auto location = ParseDatasourceUrl("sqlite:/srv/data/orders.db");
  ASSERT_TRUE(location);
  EXPECT_EQ(std::get<SqliteLocation>(*location).path, "/srv/data/orders.db");
}

TEST(DatasourceUrl, ReadsMysqlWithAndWithoutPasswordAndPort) {
  auto full = ParseDatasourceUrl("mysql://app:p%40ss:w@rd@db.internal:3307/shop");
  ASSERT_TRUE(full);
  const auto& mysql = std::get<MysqlLocation>(*full);
  EXPECT_EQ(mysql.user, "app");
  EXPECT_EQ(mysql.password, "p@ss:w@rd");
  EXPECT_EQ(mysql.host, "db.internal");
  EXPECT_EQ(mysql.port, 3307);
  EXPECT_EQ(mysql.database, "shop");

  auto unencoded = ParseDatasourceUrl("mysql://app:50%off@db.internal/shop");
  ASSERT_TRUE(unencoded);
  EXPECT_EQ(std::get<MysqlLocation>(*unencoded).password, "50%off") << "taken as written";

  auto plain = ParseDatasourceUrl("mysql://reader@[::1]/Chinook");
  ASSERT_TRUE(plain);
  EXPECT_EQ(std::get<MysqlLocation>(*plain).host, "::1");
  EXPECT_EQ(std::get<MysqlLocation>(*plain).port, 3306);
  EXPECT_EQ(std::get<MysqlLocation>(*plain).password, "");
}

TEST(DatasourceUrl, RefusesBadUrlsWithoutRepeatingThem) {
  for (const char* url : {"mysql://:secret@h/db", "mysql://u:secret@h", "mysql://u:secret@h:0/db",
                          "mysql://u:secret@/db", "postgres://u:secret@h/db", "sqlite:"}) {
    auto location = ParseDatasourceUrl(url);
    ASSERT_FALSE(location) << url;
    EXPECT_EQ(location.error().message.find("secret"), std::string::npos);
  }
}

}  // namespace
}  // namespace diagd::tools::mysql
