// MysqlAdapter: configured datasources behind the query_mysql tool, over a
// real SQLite file and the test MariaDB.
#include "tools/mysql/mysql_adapter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "runtime/fiber.h"
#include "tools/mysql/test_databases.h"

namespace diagd::tools::mysql {
namespace {

using namespace std::chrono_literals;
using Row = std::vector<SqlValue>;

MonoTime In(std::chrono::milliseconds ms) { return std::chrono::steady_clock::now() + ms; }

tools::mysql::DatasourceConfig Source(std::string name, std::string url, int max_rows = 30,
                                int timeout_ms = 3000, int max_cell_chars = 1000) {
  tools::mysql::DatasourceConfig config;
  config.name = std::move(name);
  config.url = std::move(url);
  config.max_rows = max_rows;
  config.timeout_ms = timeout_ms;
  config.max_cell_chars = max_cell_chars;
  return config;
}

ToolRequest Request(std::string datasource, std::string sql, std::vector<SqlValue> params = {}) {
  return MysqlRequest{std::move(datasource), std::move(sql), std::move(params)};
}

class MysqlAdapterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto file = testing::CreateSqliteFixture(dir_.path());
    ASSERT_TRUE(file) << file.error().message;
    sqlite_url_ = "sqlite:" + file->string();
  }

  std::unique_ptr<MysqlAdapter> Open(std::vector<tools::mysql::DatasourceConfig> sources,
                                     MysqlAdapterOptions options = {}) {
    auto adapter = MysqlAdapter::Open(sources, options);
    EXPECT_TRUE(adapter) << adapter.error().message;
    return adapter ? std::move(*adapter) : nullptr;
  }

  testing::TempDir dir_;
  std::string sqlite_url_;
};

TEST_F(MysqlAdapterTest, AnswersWithACompleteMysqlResultAndAShortSummary) {
  auto adapter = Open({Source("orders", sqlite_url_)});
  auto out =
      adapter->Execute(Request("orders", "SELECT id, note FROM orders WHERE status = ? ORDER BY id",
                               {std::string("PAID")}),
                       In(5s));
  ASSERT_TRUE(out) << out.error().message;
  const auto& result = std::get<MysqlResult>(out->result);
  EXPECT_EQ(result.datasource, "orders");
  EXPECT_EQ(result.sql, "SELECT id, note FROM orders WHERE status = ? ORDER BY id");
  EXPECT_EQ(result.params, (std::vector<SqlValue>{std::string("PAID")}));
  EXPECT_EQ(result.columns, (std::vector<std::string>{"id", "note"}));
  EXPECT_EQ(result.rows, (std::vector<Row>{{std::int64_t{1}, std::string("订单超时：支付网关 504")},
                                           {std::int64_t{3}, std::monostate{}}}));
  EXPECT_EQ(result.returned_count, 2u);
  EXPECT_EQ(result.evidence_status, EvidenceStatus::kEvidenceFound);
  EXPECT_FALSE(result.truncated);
  EXPECT_EQ(out->raw_response,
            R"({"datasource":"orders","columns":["id","note"],"column_count":2,"row_count":2,)"
            R"("truncated":false})");
}

TEST_F(MysqlAdapterTest, NoRowsIsNoEvidence) {
  auto adapter = Open({Source("orders", sqlite_url_)});
  auto out = adapter->Execute(Request("orders", "SELECT id FROM orders WHERE id < 0"), In(5s));
  ASSERT_TRUE(out);
  EXPECT_EQ(std::get<MysqlResult>(out->result).evidence_status, EvidenceStatus::kNoEvidence);
  EXPECT_EQ(std::get<MysqlResult>(out->result).columns, (std::vector<std::string>{"id"}));
}

TEST_F(MysqlAdapterTest, DatasourceNamesMatchCaseInsensitively) {
  auto adapter = Open({Source("Orders", sqlite_url_)});
  auto out = adapter->Execute(Request("ORDERS", "SELECT 1"), In(5s));
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(std::get<MysqlResult>(out->result).datasource, "ORDERS");  // as asked
}

TEST_F(MysqlAdapterTest, UnknownDatasourceIsQueryFailed) {
  auto adapter = Open({Source("orders", sqlite_url_)});
  auto out = adapter->Execute(Request("payments", "SELECT 1"), In(5s));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(out.error().message, "unknown datasource");
}

TEST_F(MysqlAdapterTest, ARequestOfAnotherToolIsUnavailable) {
  auto adapter = Open({Source("orders", sqlite_url_)});
  auto out = adapter->Execute(DocumentsRequest{"连接池"}, In(5s));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolUnavailable);
}

TEST_F(MysqlAdapterTest, EachDatasourceHasItsOwnBounds) {
  auto adapter = Open({Source("small", sqlite_url_, /*max_rows=*/2, 3000, /*max_cell_chars=*/4),
                       Source("large", sqlite_url_)});
  auto small = adapter->Execute(Request("small", "SELECT note FROM orders ORDER BY id"), In(5s));
  ASSERT_TRUE(small);
  const auto& cut = std::get<MysqlResult>(small->result);
  EXPECT_EQ(cut.rows, (std::vector<Row>{{std::string("订单超时")}, {std::string("conn")}}));
  EXPECT_TRUE(cut.truncated);
  auto large = adapter->Execute(Request("large", "SELECT note FROM orders ORDER BY id"), In(5s));
  ASSERT_TRUE(large);
  EXPECT_EQ(std::get<MysqlResult>(large->result).rows.size(), 3u);
  EXPECT_FALSE(std::get<MysqlResult>(large->result).truncated);
}

TEST_F(MysqlAdapterTest, TheDefaultByteBoundIs256KiB) {
  auto adapter = Open({Source("orders", sqlite_url_, /*max_rows=*/1000, 3000,
                              /*max_cell_chars=*/10000)});
  auto out =
      adapter->Execute(Request("orders",
                               "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n "
                               "WHERE x < 1000) SELECT x, printf('%.5000c', 'z') FROM n"),
                       In(5s));
  ASSERT_TRUE(out) << out.error().message;
  const auto& result = std::get<MysqlResult>(out->result);
  EXPECT_TRUE(result.truncated);
  EXPECT_EQ(result.rows.size(), 52u);  // 52 x ~5 KB fit in 256 KiB, 53 do not
}

TEST_F(MysqlAdapterTest, TimeoutMsLimitsEachQuery) {
  auto adapter = Open({Source("orders", sqlite_url_, 30, /*timeout_ms=*/200)});
  auto start = std::chrono::steady_clock::now();
  auto out = adapter->Execute(
      Request(
          "orders",
          "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n"),
      In(60s));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms);
}

TEST_F(MysqlAdapterTest, OnAServerRunAStatementHoldsNoWorker) {
  // One worker and one blocking thread (runtime/fiber.h): a statement running
  // for its whole 1 s timeout must leave the worker to the other run.
  auto adapter = Open({Source("orders", sqlite_url_, 30, /*timeout_ms=*/1000)});
  std::atomic<bool> statement_done{false};
  std::atomic<bool> other_ran_during_statement{false};
  std::optional<ToolErrorCode> code;
  {
    runtime::FiberPool pool(1, 256 * 1024, 1);
    pool.Spawn([&] {
      auto out = adapter->Execute(
          Request("orders",
                  "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
                  "SELECT COUNT(*) FROM n"),
          In(60s));
      if (!out) code = out.error().code;
      statement_done = true;
    });
    pool.Spawn([&] { other_ran_during_statement = !statement_done; });
  }
  EXPECT_TRUE(other_ran_during_statement.load());
  EXPECT_EQ(code, ToolErrorCode::kToolTimeout);
}

TEST_F(MysqlAdapterTest, TheCallersEarlierDeadlineWins) {
  auto adapter = Open({Source("orders", sqlite_url_, 30, /*timeout_ms=*/60000)});
  auto start = std::chrono::steady_clock::now();
  auto out = adapter->Execute(
      Request(
          "orders",
          "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n"),
      In(200ms));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms);
}

TEST_F(MysqlAdapterTest, AWriteThatReachesTheAdapterFails) {
  auto adapter = Open({Source("orders", sqlite_url_)});
  std::string before = testing::DirectoryFingerprint(dir_.path());
  auto out = adapter->Execute(Request("orders", "DELETE FROM orders"), In(5s));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(testing::DirectoryFingerprint(dir_.path()), before);
}

TEST_F(MysqlAdapterTest, OpenRefusesBadConfigurationWithoutRepeatingSecrets) {
  auto bad_url = MysqlAdapter::Open({Source("shop", "mysql://app:hunter2@/shop")});
  ASSERT_FALSE(bad_url);
  EXPECT_NE(bad_url.error().message.find("tools.mysql.datasources.shop.url"), std::string::npos);
  EXPECT_EQ(bad_url.error().message.find("hunter2"), std::string::npos);

  auto twice = MysqlAdapter::Open({Source("shop", sqlite_url_), Source("SHOP", sqlite_url_)});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("configured twice"), std::string::npos);
}

TEST_F(MysqlAdapterTest, ServesSqliteAndMariadbSideBySideConcurrently) {
  auto server = testing::SharedMariadbServer();
  ASSERT_TRUE(server) << server.error().message;
  ASSERT_TRUE(testing::EnsureMariadbFixture(**server));
  auto adapter = Open({Source("local", sqlite_url_), Source("shop", (*server)->ReaderUrl())});
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        auto out =
            adapter->Execute(Request(t % 2 == 0 ? "local" : "shop",
                                     "SELECT COUNT(*) FROM orders WHERE status = ? AND id > ?",
                                     {std::string("PAID"), std::int64_t{i % 2}}),
                             In(10s));
        // PAID orders are 1 and 3.
        SqlValue expected = std::int64_t{i % 2 == 0 ? 2 : 1};
        if (out && std::get<MysqlResult>(out->result).rows[0][0] == expected) {
          ++ok;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ok.load(), 80);
}

TEST_F(MysqlAdapterTest, AWrongPasswordIsUnavailableAndNamesNothing) {
  auto server = testing::SharedMariadbServer();
  ASSERT_TRUE(server) << server.error().message;
  auto adapter = Open({Source(
      "shop", (*server)->Url(testing::MariadbServer::kReader, "wrong-pass-42", "diagd_test"))});
  auto out = adapter->Execute(Request("shop", "SELECT 1"), In(5s));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolUnavailable);
  EXPECT_TRUE(out.error().message.empty());
}

}  // namespace
}  // namespace diagd::tools::mysql
