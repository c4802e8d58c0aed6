// MariadbDatasource against a real MariaDB started by the test: typed cells,
// typed params, the bounds, the time limit, the pool and the error codes.
#include "tools/mysql/mariadb_datasource.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <stop_token>
#include <thread>

#include "tools/mysql/test_databases.h"

namespace diagd::tools::mysql {
namespace {

using namespace std::chrono_literals;
using Row = std::vector<SqlValue>;
using testing::MariadbServer;

MonoTime In(std::chrono::milliseconds ms) { return std::chrono::steady_clock::now() + ms; }

class MariadbDatasourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = testing::SharedMariadbServer();
    ASSERT_TRUE(server) << server.error().message;
    server_ = *server;
    auto fixture = testing::EnsureMariadbFixture(*server_);
    ASSERT_TRUE(fixture) << fixture.error().message;
    source_ = Open(server_->ReaderUrl());
  }

  static std::unique_ptr<MariadbDatasource> Open(const std::string& url,
                                                 MariadbOptions options = {}) {
    auto location = ParseDatasourceUrl(url);
    EXPECT_TRUE(location);
    return std::make_unique<MariadbDatasource>(std::get<MysqlLocation>(*location), options);
  }

  Result<QueryOutput, AdapterFailure> Run(std::string_view sql, std::vector<SqlValue> params = {},
                                          QueryLimits limits = {}) {
    return source_->Query(sql, params, limits, In(5s));
  }

  MariadbServer* server_ = nullptr;
  std::unique_ptr<MariadbDatasource> source_;
};

TEST_F(MariadbDatasourceTest, ReturnsTypedCells) {
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
  EXPECT_EQ(out->rows[1][4], SqlValue(std::monostate{}));
  EXPECT_EQ(out->rows[1][6], SqlValue(std::monostate{}));
  EXPECT_EQ(out->rows[2][1], SqlValue(0.0));
  EXPECT_EQ(out->rows[2][3], SqlValue(std::monostate{}));
  EXPECT_EQ(out->rows[2][4], SqlValue(std::string("<binary 0 bytes>")));
  EXPECT_FALSE(out->truncated);
}

TEST_F(MariadbDatasourceTest, EveryTypeFamilyHasItsDocumentedCell) {
  auto out =
      Run("SELECT big, huge, small_float, flags, span, made, code, doc, kind, stamp, tiny, "
          "neg, label FROM wide_values");
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_EQ(out->rows.size(), 1u);
  EXPECT_EQ(
      out->rows[0],
      (Row{std::string("12345678901234567890.1234567890"),  // exact beyond 15 digits
           std::string("18446744073709551615"),             // above INT64_MAX
           0.1,                                             // FLOAT as the server prints it
           std::int64_t{21},                                // BIT(5) b'10101'
           std::string("-01:02:03"), std::int64_t{2024}, std::string("<binary 4 bytes>"),
           std::string("{\"a\": 1}"), std::string("b"), std::string("2026-11-29 10:30:00.123"),
           std::int64_t{-5}, std::numeric_limits<std::int64_t>::min(), std::string("中文")}));
}

TEST_F(MariadbDatasourceTest, BindsParamsByType) {
  auto out = Run("SELECT ?, ?, ?, ?, ?",
                 {std::string("PAID"), std::int64_t{42}, 2.5, true, std::monostate{}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->rows[0],
            (Row{std::string("PAID"), std::int64_t{42}, 2.5, std::int64_t{1}, std::monostate{}}));

  auto filtered = Run("SELECT id FROM orders WHERE status = ? AND amount > ? AND ? ORDER BY id",
                      {std::string("PAID"), std::int64_t{1}, true});
  ASSERT_TRUE(filtered) << filtered.error().message;
  EXPECT_EQ(filtered->rows, (std::vector<Row>{{std::int64_t{1}}}));

  auto chinese = Run("SELECT id FROM orders WHERE note LIKE ?", {std::string("%订单超时%")});
  ASSERT_TRUE(chinese);
  EXPECT_EQ(chinese->rows, (std::vector<Row>{{std::int64_t{1}}}));
}

TEST_F(MariadbDatasourceTest, AParamIsNeverSql) {
  auto out = Run("SELECT COUNT(*) FROM orders WHERE status = ?", {std::string("x' OR '1'='1")});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->rows[0][0], SqlValue(std::int64_t{0}));
}

TEST_F(MariadbDatasourceTest, WrongParamCountIsQueryFailed) {
  auto out = Run("SELECT ? + ?", {std::int64_t{1}});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(out.error().message, "the statement has 2 placeholders but 1 params were given");
}

TEST_F(MariadbDatasourceTest, MaxRowsCutsAndMarksTruncated) {
  QueryLimits limits;
  limits.max_rows = 30;
  auto cut =
      Run("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100000) "
          "SELECT x FROM n",
          {}, limits);
  ASSERT_TRUE(cut) << cut.error().message;
  EXPECT_EQ(cut->rows.size(), 30u);
  EXPECT_TRUE(cut->truncated);

  auto exact =
      Run("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 30) "
          "SELECT x FROM n",
          {}, limits);
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->rows.size(), 30u);
  EXPECT_FALSE(exact->truncated);
}

TEST_F(MariadbDatasourceTest, MaxCellCharsCutsByCodePoints) {
  QueryLimits limits;
  limits.max_cell_chars = 4;
  auto out = Run("SELECT note, status FROM orders WHERE id = 1", {}, limits);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->rows[0], (Row{std::string("订单超时"), std::string("PAID")}));
  EXPECT_TRUE(out->truncated);

  limits.max_cell_chars = 1000;
  auto huge = Run("SELECT REPEAT('订', 100000)", {}, limits);
  ASSERT_TRUE(huge) << huge.error().message;
  EXPECT_EQ(std::get<std::string>(huge->rows[0][0]).size(), 3000u);
  EXPECT_TRUE(huge->truncated);
}

TEST_F(MariadbDatasourceTest, ByteBoundStopsFetching) {
  QueryLimits limits;
  limits.max_rows = 1000;
  limits.max_bytes = 8 * 1024;
  auto out =
      Run("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 500) "
          "SELECT x, REPEAT('y', 200) FROM n",
          {}, limits);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_TRUE(out->truncated);
  EXPECT_GT(out->rows.size(), 20u);
  EXPECT_LT(out->rows.size(), 45u);
  // The connection is clean afterwards: the unread rows were dropped.
  auto next = Run("SELECT 1");
  ASSERT_TRUE(next) << next.error().message;
}

TEST_F(MariadbDatasourceTest, SleepIsStoppedByTheServerAtTheDeadline) {
  auto start = std::chrono::steady_clock::now();
  auto out = source_->Query("SELECT SLEEP(10)", {}, {}, In(500ms));
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
  EXPECT_TRUE(out.error().message.empty());
  EXPECT_LT(elapsed, 2s);
  auto next = Run("SELECT 1");  // the pooled connection still works
  ASSERT_TRUE(next) << next.error().message;
}

// Without the cancel SLEEP(30) would return its row half a minute on.
TEST_F(MariadbDatasourceTest, ACancelCutsARunningStatementAndThePoolRecovers) {
  std::stop_source cancel;
  std::jthread canceller([&cancel] {
    std::this_thread::sleep_for(200ms);
    cancel.request_stop();
  });
  auto out = source_->Query("SELECT SLEEP(30)", {}, {}, In(60s), cancel.get_token());
  ASSERT_FALSE(out) << "the statement ran to its end";
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolUnavailable) << "cut, not timed out";
  EXPECT_TRUE(out.error().message.empty());
  auto next = Run("SELECT 1");  // the cut connection is not pooled again
  ASSERT_TRUE(next) << next.error().message;
}

TEST_F(MariadbDatasourceTest, HeavyQueryIsStoppedAtTheDeadline) {
  auto start = std::chrono::steady_clock::now();
  // 10^9 rows (a recursive CTE would stop at max_recursive_iterations).
  auto out = source_->Query(
      "SELECT COUNT(*) FROM digits a, digits b, digits c, digits d, digits e, digits f, "
      "digits g, digits h, digits i",
      {}, {}, In(700ms));
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
  EXPECT_LT(elapsed, 2500ms);
}

TEST_F(MariadbDatasourceTest, ServerErrorsReachTheModelBoundedAndCredentialFree) {
  auto column = Run("SELECT statu FROM orders");
  ASSERT_FALSE(column);
  EXPECT_EQ(column.error().code, ToolErrorCode::kQueryFailed);
  // "in 'field list'" before MariaDB 10.11.x, "in 'SELECT'" after.
  EXPECT_EQ(column.error().message.rfind("Unknown column 'statu' in '", 0), 0u)
      << column.error().message;

  auto table = Run("SELECT * FROM x");
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().message, "Table 'diagd_test.x' doesn't exist");

  auto denied = Run("SELECT * FROM mysql.user");
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(denied.error().message.find("diagd_ro"), std::string::npos) << denied.error().message;
  EXPECT_EQ(denied.error().message.find("127.0.0.1"), std::string::npos);
  EXPECT_EQ(denied.error().message, "SELECT command denied for table `mysql`.`user`");
}

TEST_F(MariadbDatasourceTest, ConnectionFailuresAreUnavailableAndSayNothing) {
  std::string wrong_password =
      server_->Url(MariadbServer::kReader, "not-the-password-123", MariadbServer::kDatabase);
  std::string unknown_db =
      server_->Url(MariadbServer::kReader, MariadbServer::kReaderPassword, "no_such_db");
  // Port 1 on loopback: nothing listens there, the connection is refused.
  std::string closed_port =
      "mysql://diagd_ro:" + std::string(MariadbServer::kReaderPassword) + "@127.0.0.1:1/diagd_test";
  for (const std::string& url : {wrong_password, unknown_db, closed_port}) {
    auto source = Open(url);
    auto out = source->Query("SELECT 1", {}, {}, In(5s));
    ASSERT_FALSE(out) << url;
    EXPECT_EQ(out.error().code, ToolErrorCode::kToolUnavailable) << url;
    EXPECT_TRUE(out.error().message.empty()) << out.error().message;
  }
}

TEST_F(MariadbDatasourceTest, TheSessionIsReadOnlyAndTimeLimited) {
  auto out =
      Run("SELECT @@session.tx_read_only, @@session.max_statement_time > 0, "
          "@@session.max_statement_time <= 5, @@session.sql_select_limit, "
          "@@session.character_set_client");
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->rows[0], (Row{std::int64_t{1}, std::int64_t{1}, std::int64_t{1}, std::int64_t{31},
                               std::string("utf8mb4")}));
}

TEST_F(MariadbDatasourceTest, ShowDescribeAndExplainWork) {
  for (const char* sql : {"SHOW TABLES", "SHOW CREATE TABLE orders", "DESCRIBE orders",
                          "EXPLAIN SELECT * FROM orders WHERE id = 1",
                          "SHOW STATUS LIKE 'Threads%'", "SHOW PROCESSLIST"}) {
    auto out = Run(sql);
    ASSERT_TRUE(out) << sql << ": " << out.error().message;
    EXPECT_FALSE(out->rows.empty()) << sql;
  }
  // Needs the PROCESS privilege: the reader is refused, an account with it
  // gets the report.
  auto denied = Run("SHOW ENGINE INNODB STATUS");
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(denied.error().message, "access denied");
  auto status = Open(server_->WriterUrl())->Query("SHOW ENGINE INNODB STATUS", {}, {}, In(5s));
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ(status->columns, (std::vector<std::string>{"Type", "Name", "Status"}));
  EXPECT_TRUE(status->truncated);  // the report is longer than 1000 characters
}

TEST_F(MariadbDatasourceTest, PoolSurvivesConnectionsKilledByTheServer) {
  ASSERT_TRUE(Run("SELECT 1"));  // leaves an idle pooled connection
  auto ids = server_->Rows("SELECT id FROM information_schema.processlist WHERE user = 'diagd_ro'");
  ASSERT_TRUE(ids);
  ASSERT_FALSE(ids->empty());
  for (const auto& row : *ids) ASSERT_TRUE(server_->Execute("KILL CONNECTION " + row[0]));
  auto out = Run("SELECT 2");
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->rows[0][0], SqlValue(std::int64_t{2}));
}

TEST_F(MariadbDatasourceTest, ConcurrentQueriesShareABoundedPool) {
  MariadbOptions options;
  options.max_connections = 2;
  // The writer account: no other pool of this test uses it, so its
  // connections on the server are this pool's.
  auto source = Open(server_->WriterUrl(), options);
  std::atomic<int> ok{0};
  std::atomic<bool> done{false};
  int most_connections = 0;
  std::thread monitor([&] {
    while (!done) {
      auto count = server_->Rows(
          "SELECT COUNT(*) FROM information_schema.processlist WHERE user = 'diagd_rw'");
      if (count) most_connections = std::max(most_connections, std::stoi((*count)[0][0]));
      std::this_thread::sleep_for(5ms);
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        auto out =
            source->Query("SELECT ? + 1, SLEEP(0.02)", {std::int64_t{t * 10 + i}}, {}, In(10s));
        if (out && out->rows[0][0] == SqlValue(std::int64_t{t * 10 + i + 1})) ++ok;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  done = true;
  monitor.join();
  EXPECT_EQ(ok.load(), 30);
  EXPECT_GE(most_connections, 1);
  EXPECT_LE(most_connections, 2);
}

}  // namespace
}  // namespace diagd::tools::mysql
