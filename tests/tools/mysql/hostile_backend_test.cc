// Statements that should never reach a backend, sent to it directly (no
// classifier in front): on SQLite and on the real MariaDB with an account
// that may write everything, every one must fail, and afterwards every table,
// routine, account and file is exactly as before. This proves the backends'
// own read-only layers (docs/sql-safety.md, "The connection is read-only
// too").
#include <gtest/gtest.h>

#include <chrono>
#include <regex>

#include "tools/mysql/datasource_url.h"
#include "tools/mysql/mariadb_datasource.h"
#include "tools/mysql/sqlite_datasource.h"
#include "tools/mysql/test_databases.h"

namespace diagd::tools::mysql {
namespace {

using namespace std::chrono_literals;

struct Hostile {
  std::string sql;  // "{dir}" stands for a folder the test watches
  ToolErrorCode expected = ToolErrorCode::kQueryFailed;
};

const std::vector<Hostile> kCommon = {
    {"INSERT INTO orders (id, status) VALUES (9, 'EVIL')"},
    {"INSERT INTO orders (id, status) VALUES (9, 'EVIL') RETURNING id"},
    {"INSERT INTO orders (id, status) SELECT 10, 'EVIL'"},
    {"UPDATE orders SET status = 'EVIL'"},
    {"DELETE FROM orders"},
    {"DELETE FROM orders RETURNING id"},
    {"REPLACE INTO orders (id, status) VALUES (1, 'EVIL')"},
    {"CREATE TABLE evil (x INT)"},
    {"CREATE TABLE evil AS SELECT * FROM orders"},
    {"CREATE TEMPORARY TABLE evil (x INT)"},
    {"CREATE VIEW evil AS SELECT 1"},
    {"CREATE INDEX evil ON orders (status)"},
    {"DROP TABLE orders"},
    {"DROP TABLE audit"},
    {"ALTER TABLE orders ADD COLUMN evil INT"},
    {"ALTER TABLE orders RENAME TO evil"},
    {"SELECT 1; DELETE FROM orders"},
    {"DELETE FROM orders; SELECT 1"},
    {"SELECT 1; DROP TABLE orders;"},
};

const std::vector<Hostile> kSqlite = {
    {"UPDATE orders SET status = 'EVIL' RETURNING id"},
    {"WITH x AS (SELECT 1) DELETE FROM orders"},
    {"ATTACH DATABASE '{dir}/evil.db' AS evil"},
    {"VACUUM INTO '{dir}/copy.db'"},
    {"VACUUM"},
    {"PRAGMA query_only = OFF"},
    {"PRAGMA journal_mode = WAL"},
    {"PRAGMA writable_schema = ON"},
    {"PRAGMA user_version = 7"},
    {"BEGIN IMMEDIATE"},
    {"SAVEPOINT s"},
    {"ANALYZE"},
    {"REINDEX"},
    {"DROP VIEW paid"},
    {"CREATE TRIGGER evil AFTER INSERT ON orders BEGIN DELETE FROM audit; END"},
    {"SELECT load_extension('{dir}/evil.so')"},
    {"SELECT writefile('{dir}/w.txt', 'x')"},
    {"SELECT readfile('/etc/passwd')"},
    {"SELECT * FROM pragma_database_list"},  // would name the file's path
    {"WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n",
     ToolErrorCode::kToolTimeout},
};

const std::vector<Hostile> kMariadb = {
    {"REPLACE INTO orders (id, status) VALUES (1, 'EVIL') RETURNING id"},
    {"TRUNCATE TABLE orders"},
    {"RENAME TABLE orders TO evil"},
    {"CREATE DATABASE evil"},
    {"DROP DATABASE diagd_test"},
    {"SELECT * FROM orders INTO OUTFILE '{dir}/out.txt'"},
    {"SELECT * FROM orders INTO DUMPFILE '{dir}/dump.bin'"},
    {"SELECT id FROM orders LIMIT 1 INTO @v"},
    {"SELECT bump()"},  // a stored function that INSERTs: stopped by the READ ONLY transaction
    {"SELECT id, bump() FROM orders"},
    {"CREATE USER 'evil'@'%' IDENTIFIED BY 'x'"},
    {"GRANT ALL PRIVILEGES ON *.* TO 'diagd_ro'@'%'"},
    {"SET GLOBAL max_statement_time = 1000"},
    {"SET SESSION TRANSACTION READ WRITE"},
    {"SET @@session.sql_select_limit = DEFAULT"},
    {"START TRANSACTION"},
    {"COMMIT"},
    {"LOAD DATA INFILE '/etc/hostname' INTO TABLE audit"},
    {"LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE audit"},
    {"LOCK TABLES orders WRITE"},
    {"HANDLER orders OPEN"},
    {"DO SLEEP(5)"},
    {"PREPARE s FROM 'DELETE FROM orders'"},
    {"EXECUTE IMMEDIATE 'DELETE FROM orders'"},
    {"CREATE PROCEDURE evil() DELETE FROM orders"},
    {"CALL mysql.evil()"},
    {"INSTALL SONAME 'ha_blackhole'"},
    {"FLUSH TABLES"},
    {"KILL QUERY 1"},
    {"SHUTDOWN"},
    {"SELECT SLEEP(10)", ToolErrorCode::kToolTimeout},
};

std::string WithDir(const std::string& sql, const std::filesystem::path& dir) {
  return std::regex_replace(sql, std::regex("\\{dir\\}"), dir.string());
}

// Runs every case and checks it failed as expected, with a message that
// names no secret, account, host or path.
void ExpectAllRefused(Datasource& source, const std::vector<Hostile>& cases,
                      const std::filesystem::path& dir, const std::vector<std::string>& secrets) {
  for (const Hostile& hostile : cases) {
    std::string sql = WithDir(hostile.sql, dir);
    auto timeout = hostile.expected == ToolErrorCode::kToolTimeout ? 1s : 5s;
    auto start = std::chrono::steady_clock::now();
    auto out = source.Query(sql, {}, {}, std::chrono::steady_clock::now() + timeout);
    auto elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(out) << sql << " returned " << out->rows.size() << " rows";
    EXPECT_EQ(out.error().code, hostile.expected) << sql << ": " << out.error().message;
    EXPECT_LE(out.error().message.size(), 200u * 4) << sql;
    EXPECT_LT(elapsed, timeout + 1500ms) << sql;
    for (const std::string& secret : secrets) {
      EXPECT_EQ(out.error().message.find(secret), std::string::npos)
          << sql << ": " << out.error().message;
    }
  }
}

TEST(HostileSql, NothingIsWrittenToSqlite) {
  testing::TempDir dir;
  auto file = testing::CreateSqliteFixture(dir.path());
  ASSERT_TRUE(file) << file.error().message;
  std::string before = testing::DirectoryFingerprint(dir.path());
  SqliteDatasource source(file->string());

  ExpectAllRefused(source, kCommon, dir.path(), {dir.path().string()});
  ExpectAllRefused(source, kSqlite, dir.path(), {dir.path().string()});

  EXPECT_EQ(testing::DirectoryFingerprint(dir.path()), before);  // no byte, no new file
  auto still =
      source.Query("SELECT COUNT(*) FROM orders", {}, {}, std::chrono::steady_clock::now() + 5s);
  ASSERT_TRUE(still);
  EXPECT_EQ(still->rows[0][0], SqlValue(std::int64_t{3}));
}

TEST(HostileSql, NothingIsWrittenToMariadbEvenByAWriterAccount) {
  auto server = testing::SharedMariadbServer();
  ASSERT_TRUE(server) << server.error().message;
  ASSERT_TRUE(testing::EnsureMariadbFixture(**server));
  testing::TempDir dir;  // INTO OUTFILE targets; the server runs on this host
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
  auto before = testing::MariadbFingerprint(**server);
  ASSERT_TRUE(before) << before.error().message;

  auto location = ParseDatasourceUrl((*server)->WriterUrl());
  ASSERT_TRUE(location);
  MariadbDatasource source(std::get<MysqlLocation>(*location), {});
  std::vector<std::string> secrets = {std::string(testing::MariadbServer::kWriterPassword),
                                      std::string(testing::MariadbServer::kWriter), "127.0.0.1",
                                      dir.path().string()};
  ExpectAllRefused(source, kCommon, dir.path(), secrets);
  ExpectAllRefused(source, kMariadb, dir.path(), secrets);

  auto after = testing::MariadbFingerprint(**server);
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(*after, *before);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  // The same connection still answers questions afterwards.
  auto still =
      source.Query("SELECT COUNT(*) FROM orders", {}, {}, std::chrono::steady_clock::now() + 5s);
  ASSERT_TRUE(still) << still.error().message;
  EXPECT_EQ(still->rows[0][0], SqlValue(std::int64_t{3}));
}

}  // namespace
}  // namespace diagd::tools::mysql
