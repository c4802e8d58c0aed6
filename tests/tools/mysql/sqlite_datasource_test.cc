// SqliteDatasource on a real file: typed cells, typed params, the bounds,
// the time limit, a cancel and the error codes.
#include "tools/mysql/sqlite_datasource.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <stop_token>
#include <thread>

#include "tools/mysql/test_databases.h"

namespace diagd::tools::mysql {
namespace {

using namespace std::chrono_literals;
using Row = std::vector<SqlValue>;

MonoTime In(std::chrono::milliseconds ms) { return std::chrono::steady_clock::now() + ms; }

class SqliteDatasourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto file = testing::CreateSqliteFixture(dir_.path());
    ASSERT_TRUE(file) << file.error().message;
    source_ = std::make_unique<SqliteDatasource>(file->string());
  }

  Result<QueryOutput, AdapterFailure> Run(std::string_view sql, std::vector<SqlValue> params = {},
                                          QueryLimits limits = {}) {
    return source_->Query(sql, params, limits, In(5s));
  }

  testing::TempDir dir_;
  std::unique_ptr<SqliteDatasource> source_;
};

TEST_F(SqliteDatasourceTest, ReturnsTypedCells) {
  auto out =
      Run("SELECT id, amount, ratio, note, payload, created_at, shipped_on FROM orders "
          "ORDER BY id");
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->columns, (std::vector<std::string>{"id", "amount", "ratio", "note", "payload",
                                                    "created_at", "shipped_on"}));
  ASSERT_EQ(out->rows.size(), 3u);
  EXPECT_EQ(out->rows[0], (Row{std::int64_t{1}, 12.3, 0.5, std::string("订单超时：支付网关 504"),
                               std::string("<binary 5 bytes>"), std::string("2026-11-29 10:30:00"),
                               std::string("2026-11-30")}));
  EXPECT_EQ(out->rows[1][4], SqlValue(std::monostate{}));  // NULL blob
  EXPECT_EQ(out->rows[1][6], SqlValue(std::monostate{}));
  EXPECT_EQ(out->rows[2][1], SqlValue(std::int64_t{0}));  // NUMERIC 0 is stored as an integer
  EXPECT_EQ(out->rows[2][3], SqlValue(std::monostate{}));
  EXPECT_EQ(out->rows[2][4], SqlValue(std::string("<binary 0 bytes>")));
  EXPECT_FALSE(out->truncated);
}

TEST_F(SqliteDatasourceTest, BindsParamsByType) {
  auto out = Run("SELECT ?, ?, ?, ?, ?, typeof(?), typeof(?)",
                 {std::string("PAID"), std::int64_t{42}, 2.5, true, std::monostate{},
                  std::string("7"), std::int64_t{7}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->rows[0], (Row{std::string("PAID"), std::int64_t{42}, 2.5, std::int64_t{1},
                               std::monostate{}, std::string("text"), std::string("integer")}));

  auto filtered = Run("SELECT id FROM orders WHERE status = ? AND amount > ? ORDER BY id",
                      {std::string("PAID"), std::int64_t{1}});
  ASSERT_TRUE(filtered);
  EXPECT_EQ(filtered->rows, (std::vector<Row>{{std::int64_t{1}}}));
}

TEST_F(SqliteDatasourceTest, AParamIsNeverSql) {
  auto out = Run("SELECT COUNT(*) FROM orders WHERE status = ?", {std::string("PAID' OR '1'='1")});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->rows[0][0], SqlValue(std::int64_t{0}));
}

TEST_F(SqliteDatasourceTest, WrongParamCountIsQueryFailed) {
  auto out = Run("SELECT ? + ?", {std::int64_t{1}});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(out.error().message, "the statement has 2 placeholders but 1 params were given");
}

TEST_F(SqliteDatasourceTest, MaxRowsCutsAndMarksTruncated) {
  QueryLimits limits;
  limits.max_rows = 30;
  const char* kSeries =
      "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < %d) SELECT x FROM "
      "n";
  char sql[200];
  std::snprintf(sql, sizeof sql, kSeries, 100);
  auto cut = Run(sql, {}, limits);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->rows.size(), 30u);
  EXPECT_EQ(cut->rows.back()[0], SqlValue(std::int64_t{30}));
  EXPECT_TRUE(cut->truncated);

  std::snprintf(sql, sizeof sql, kSeries, 30);
  auto exact = Run(sql, {}, limits);
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->rows.size(), 30u);
  EXPECT_FALSE(exact->truncated);
}

TEST_F(SqliteDatasourceTest, MaxCellCharsCutsByCodePoints) {
  QueryLimits limits;
  limits.max_cell_chars = 4;
  auto out = Run("SELECT note, status FROM orders WHERE id = 1", {}, limits);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->rows[0], (Row{std::string("订单超时"), std::string("PAID")}));
  EXPECT_TRUE(out->truncated);

  limits.max_cell_chars = 1000;
  auto huge = Run("SELECT replace(hex(zeroblob(100000)), '00', '订')", {}, limits);
  ASSERT_TRUE(huge);
  EXPECT_EQ(std::get<std::string>(huge->rows[0][0]).size(), 3000u);  // 1000 x 3 bytes
  EXPECT_TRUE(huge->truncated);
}

TEST_F(SqliteDatasourceTest, ByteBoundStopsFetching) {
  QueryLimits limits;
  limits.max_rows = 1000;
  limits.max_bytes = 8 * 1024;
  auto out =
      Run("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 500) "
          "SELECT x, printf('%.200c', 'y') FROM n",
          {}, limits);
  ASSERT_TRUE(out);
  EXPECT_TRUE(out->truncated);
  EXPECT_GT(out->rows.size(), 20u);
  EXPECT_LT(out->rows.size(), 45u);  // ~210 bytes a row in 8 KiB
  std::size_t text_bytes = 0;
  for (const Row& row : out->rows) text_bytes += std::get<std::string>(row[1]).size();
  EXPECT_LE(text_bytes, limits.max_bytes);
}

TEST_F(SqliteDatasourceTest, SlowQueryIsInterruptedAtTheDeadline) {
  auto start = std::chrono::steady_clock::now();
  auto out = source_->Query(
      "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n", {},
      {}, In(300ms));
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
  EXPECT_TRUE(out.error().message.empty());
  EXPECT_LT(elapsed, 1500ms);
}

// Without the cancel the statement would run to its deadline a minute on
// and be TOOL_TIMEOUT.
TEST_F(SqliteDatasourceTest, ACancelInterruptsARunningStatement) {
  std::stop_source cancel;
  std::jthread canceller([&cancel] {
    std::this_thread::sleep_for(200ms);
    cancel.request_stop();
  });
  auto out = source_->Query(
      "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n", {},
      {}, In(60s), cancel.get_token());
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolUnavailable) << "interrupted, not timed out";
  EXPECT_TRUE(Run("SELECT 1")) << "the next statement runs";
}

TEST_F(SqliteDatasourceTest, PassedDeadlineIsTimeoutWithoutRunning) {
  auto out = source_->Query("SELECT 1", {}, {}, std::chrono::steady_clock::now() - 1ms);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
}

TEST_F(SqliteDatasourceTest, UnknownColumnIsQueryFailedWithTheEngineMessage) {
  auto out = Run("SELECT statu FROM orders");
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(out.error().message, "no such column: statu");
}

TEST_F(SqliteDatasourceTest, HugeValuesHitTheLengthLimit) {
  auto out = Run("SELECT length(zeroblob(1000000000))");
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(out.error().message, "string or blob too big");
}

TEST_F(SqliteDatasourceTest, SchemaCanBeRead) {
  auto columns = Run("SELECT name, type FROM pragma_table_info('orders') ORDER BY cid LIMIT 2");
  ASSERT_TRUE(columns) << columns.error().message;
  EXPECT_EQ(columns->rows, (std::vector<Row>{{std::string("id"), std::string("INTEGER")},
                                             {std::string("status"), std::string("TEXT")}}));
  auto tables = Run("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  ASSERT_TRUE(tables) << tables.error().message;
  EXPECT_EQ(tables->rows.size(), 2u);
  auto view = Run("SELECT COUNT(*) FROM paid");
  ASSERT_TRUE(view) << view.error().message;
  EXPECT_EQ(view->rows[0][0], SqlValue(std::int64_t{2}));
}

TEST_F(SqliteDatasourceTest, TrailingCommentAndSemicolonAreOneStatement) {
  auto out = Run("SELECT 1; -- done\n");
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->rows[0][0], SqlValue(std::int64_t{1}));
}

TEST_F(SqliteDatasourceTest, MissingFileIsUnavailableAndNeverCreated) {
  std::filesystem::path missing = dir_.path() / "missing.db";
  SqliteDatasource source(missing.string());
  auto out = source.Query("SELECT 1", {}, {}, In(5s));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolUnavailable);
  EXPECT_TRUE(out.error().message.empty());
  EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST_F(SqliteDatasourceTest, NotADatabaseIsUnavailable) {
  std::filesystem::path text = dir_.path() / "notes.txt";
  { std::ofstream(text) << "this is not a database, just some text that is long enough.......\n"; }
  SqliteDatasource source(text.string());
  auto out = source.Query("SELECT 1 FROM orders", {}, {}, In(5s));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolUnavailable);
}

}  // namespace
}  // namespace diagd::tools::mysql
