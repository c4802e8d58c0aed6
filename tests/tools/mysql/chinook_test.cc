// Real data: the Chinook sample store (../shared/data/mysql/chinook), built
// into a SQLite file from its SQLite script and loaded whole into the test
// MariaDB from its MySQL script, queried through the adapter with joins. Both
// backends must give the same answers.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>

#include "tools/mysql/mysql_adapter.h"
#include "tools/mysql/test_databases.h"

namespace diagd::tools::mysql {
namespace {

using namespace std::chrono_literals;
using Row = std::vector<SqlValue>;

// Questions an SRE agent would ask of an orders-like schema.
const char* const kTopCustomers =
    "SELECT c.CustomerId, c.FirstName, c.LastName, c.Country, ROUND(SUM(i.Total), 2) AS spent, "
    "COUNT(*) AS invoices FROM Customer c JOIN Invoice i ON i.CustomerId = c.CustomerId "
    "GROUP BY c.CustomerId, c.FirstName, c.LastName, c.Country "
    "ORDER BY spent DESC, c.CustomerId LIMIT 5";
const char* const kGenreRevenue =
    "SELECT g.Name AS genre, COUNT(*) AS line_count, "
    "ROUND(SUM(il.UnitPrice * il.Quantity), 2) AS revenue FROM InvoiceLine il "
    "JOIN Track t ON t.TrackId = il.TrackId JOIN Genre g ON g.GenreId = t.GenreId "
    "GROUP BY g.Name ORDER BY revenue DESC, g.Name LIMIT 5";
const char* const kTotals =
    "SELECT COUNT(*), ROUND(SUM(Total), 2), MIN(InvoiceDate), MAX(InvoiceDate) FROM Invoice";
const char* const kManagers =
    "SELECT e.EmployeeId, e.LastName, m.LastName AS manager FROM Employee e "
    "LEFT JOIN Employee m ON m.EmployeeId = e.ReportsTo ORDER BY e.EmployeeId LIMIT 3";
const char* const kByName =
    "SELECT c.FirstName, c.LastName, c.City, COUNT(i.InvoiceId) FROM Customer c "
    "JOIN Invoice i ON i.CustomerId = c.CustomerId WHERE c.LastName = ? "
    "GROUP BY c.CustomerId, c.FirstName, c.LastName, c.City";

tools::mysql::DatasourceConfig Source(std::string name, std::string url) {
  tools::mysql::DatasourceConfig config;
  config.name = std::move(name);
  config.url = std::move(url);
  config.max_rows = 30;
  config.timeout_ms = 10000;
  return config;
}

// One Chinook SQLite file per test program.
Result<std::filesystem::path> ChinookSqlite() {
  static testing::TempDir dir;
  static Result<std::filesystem::path> file = []() -> Result<std::filesystem::path> {
    std::filesystem::path script = testing::ChinookSqliteScript();
    std::ifstream in(script, std::ios::binary);
    std::string sql((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::path db = dir.path() / "chinook.db";
    if (auto status = testing::RunSqliteScript(db, sql); !status) return status.error();
    return db;
  }();
  return file;
}

MysqlResult Ask(MysqlAdapter& adapter, const std::string& datasource, const char* sql,
                std::vector<SqlValue> params = {}) {
  auto out = adapter.Execute(MysqlRequest{datasource, sql, std::move(params)},
                             std::chrono::steady_clock::now() + 10s);
  EXPECT_TRUE(out) << datasource << ": " << sql << ": " << out.error().message;
  return out ? std::get<MysqlResult>(out->result) : MysqlResult{};
}

class ChinookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::ChinookSqliteScript().empty() || testing::ChinookMysqlScript().empty()) {
      GTEST_SKIP() << "../shared/data/mysql/chinook: shared/data not present";
    }
  }

  std::unique_ptr<MysqlAdapter> SqliteAdapter() {
    auto file = ChinookSqlite();
    EXPECT_TRUE(file) << file.error().message;
    auto adapter = MysqlAdapter::Open({Source("chinook", "sqlite:" + file->string())});
    EXPECT_TRUE(adapter);
    return std::move(*adapter);
  }

  std::unique_ptr<MysqlAdapter> MariadbAdapter() {
    auto server = testing::SharedMariadbServer();
    EXPECT_TRUE(server) << server.error().message;
    if (!server) return nullptr;
    auto loaded = testing::EnsureMariadbChinook(**server);
    EXPECT_TRUE(loaded) << loaded.error().message;
    auto adapter = MysqlAdapter::Open({Source("chinook", (*server)->ReaderUrl("Chinook"))});
    EXPECT_TRUE(adapter);
    return std::move(*adapter);
  }
};

TEST_F(ChinookTest, SqliteAnswersJoinsOverTheWholeStore) {
  auto adapter = SqliteAdapter();
  ASSERT_NE(adapter, nullptr);
  MysqlResult totals = Ask(*adapter, "chinook", kTotals);
  ASSERT_EQ(totals.rows.size(), 1u);
  EXPECT_EQ(totals.rows[0], (Row{std::int64_t{412}, 2328.6, std::string("2021-01-01 00:00:00"),
                                 std::string("2025-12-22 00:00:00")}));

  MysqlResult top = Ask(*adapter, "chinook", kTopCustomers);
  EXPECT_EQ(top.columns, (std::vector<std::string>{"CustomerId", "FirstName", "LastName", "Country",
                                                   "spent", "invoices"}));
  ASSERT_EQ(top.rows.size(), 5u);
  EXPECT_EQ(top.rows[0][5], SqlValue(std::int64_t{7}));

  MysqlResult named = Ask(*adapter, "chinook", kByName, {std::string("Köhler")});
  EXPECT_EQ(named.rows, (std::vector<Row>{{std::string("Leonie"), std::string("Köhler"),
                                           std::string("Stuttgart"), std::int64_t{7}}}));

  MysqlResult managers = Ask(*adapter, "chinook", kManagers);
  ASSERT_EQ(managers.rows.size(), 3u);
  EXPECT_EQ(managers.rows[0][2], SqlValue(std::monostate{}));  // the general manager

  MysqlResult lines = Ask(*adapter, "chinook", "SELECT * FROM InvoiceLine");
  EXPECT_EQ(lines.rows.size(), 30u);  // of 2240
  EXPECT_TRUE(lines.truncated);
}

TEST_F(ChinookTest, MariadbLoadsTheMysqlScriptAndAnswersTheSame) {
  auto sqlite = SqliteAdapter();
  auto mariadb = MariadbAdapter();
  ASSERT_NE(sqlite, nullptr);
  ASSERT_NE(mariadb, nullptr);
  MysqlResult counts =
      Ask(*mariadb, "chinook",
          "SELECT (SELECT COUNT(*) FROM Track), (SELECT COUNT(*) FROM InvoiceLine), "
          "(SELECT COUNT(*) FROM PlaylistTrack)");
  EXPECT_EQ(counts.rows,
            (std::vector<Row>{{std::int64_t{3503}, std::int64_t{2240}, std::int64_t{8715}}}));
  for (const char* sql : {kTotals, kTopCustomers, kGenreRevenue, kManagers}) {
    MysqlResult from_sqlite = Ask(*sqlite, "chinook", sql);
    MysqlResult from_mariadb = Ask(*mariadb, "chinook", sql);
    EXPECT_EQ(from_mariadb.columns, from_sqlite.columns) << sql;
    EXPECT_EQ(from_mariadb.rows, from_sqlite.rows) << sql;
    EXPECT_FALSE(from_mariadb.rows.empty()) << sql;
  }
  MysqlResult named = Ask(*mariadb, "chinook", kByName, {std::string("Köhler")});
  EXPECT_EQ(named.rows, Ask(*sqlite, "chinook", kByName, {std::string("Köhler")}).rows);
  EXPECT_EQ(named.rows.size(), 1u);
}

}  // namespace
}  // namespace diagd::tools::mysql
