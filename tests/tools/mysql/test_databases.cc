#include "tools/mysql/test_databases.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>

namespace diagd::testing {
namespace {

const char* const kSqliteFixture = R"sql(
CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT NOT NULL, amount NUMERIC, ratio REAL,
                     note TEXT, payload BLOB, created_at TEXT, shipped_on TEXT);
INSERT INTO orders VALUES
  (1, 'PAID', 12.30, 0.5, '订单超时：支付网关 504', X'0001020304', '2026-11-29 10:30:00', '2026-11-30'),
  (2, 'FAILED', 99.99, 0.25, 'connection pool exhausted', NULL, '2026-11-29 10:31:05', NULL),
  (3, 'PAID', 0, 1.5, NULL, X'', '2026-11-29 10:32:00', '2026-12-01');
CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT);
INSERT INTO audit (what) VALUES ('created');
CREATE VIEW paid AS SELECT * FROM orders WHERE status = 'PAID';
)sql";

const char* const kMariadbFixture = R"sql(
USE diagd_test;
CREATE TABLE orders (id INT PRIMARY KEY, status VARCHAR(20) NOT NULL, amount DECIMAL(10,2),
                     ratio DOUBLE, note TEXT, payload BLOB, created_at DATETIME, shipped_on DATE)
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO orders VALUES
  (1, 'PAID', 12.30, 0.5, '订单超时：支付网关 504', X'0001020304', '2026-11-29 10:30:00', '2026-11-30'),
  (2, 'FAILED', 99.99, 0.25, 'connection pool exhausted', NULL, '2026-11-29 10:31:05', NULL),
  (3, 'PAID', 0.00, 1.5, NULL, X'', '2026-11-29 10:32:00', '2026-12-01');
CREATE TABLE wide_values (id INT PRIMARY KEY, big DECIMAL(30,10), huge BIGINT UNSIGNED,
                          small_float FLOAT, flags BIT(5), span TIME, made YEAR,
                          code VARBINARY(16), doc JSON, kind ENUM('a','b'), stamp DATETIME(3),
                          tiny TINYINT, neg BIGINT, label CHAR(3))
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO wide_values VALUES
  (1, 12345678901234567890.1234567890, 18446744073709551615, 0.1, b'10101', '-01:02:03',
   2024, X'DEADBEEF', '{"a": 1}', 'b', '2026-11-29 10:30:00.123', -5, -9223372036854775808, '中文');
CREATE TABLE digits (d INT PRIMARY KEY) ENGINE=InnoDB;
INSERT INTO digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(50)) ENGINE=InnoDB;
INSERT INTO audit (what) VALUES ('created');
CREATE FUNCTION bump() RETURNS INT MODIFIES SQL DATA
BEGIN
  INSERT INTO audit (what) VALUES ('bumped');
  RETURN 1;
END;
)sql";

std::string ReadFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::filesystem::path SharedData() {
#ifdef DIAGD_SHARED_DATA_DIR
  return DIAGD_SHARED_DATA_DIR;
#else
  return {};
#endif
}

// Per server, what has been set up on it already.
std::map<const MariadbServer*, std::set<std::string>>& Done() {
  static std::map<const MariadbServer*, std::set<std::string>> done;
  return done;
}

Status Once(MariadbServer& server, const std::string& what, std::string_view sql) {
  auto& done = Done()[&server];
  if (done.count(what) != 0) return OkStatus();
  if (auto status = server.Execute(sql); !status) return status;
  done.insert(what);
  return OkStatus();
}

}  // namespace

TempDir::TempDir() {
  std::string pattern = "/tmp/diagd-mysql-test-XXXXXX";
  if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

Status RunSqliteScript(const std::filesystem::path& file, std::string_view sql) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  // Fixture building only: nothing to protect, and syncs cost 100 ms a file.
  std::string script =
      "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY;\n" + std::string(sql);
  char* message = nullptr;
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &message);
  std::string error = message != nullptr ? message : (db != nullptr ? sqlite3_errmsg(db) : "");
  sqlite3_free(message);
  sqlite3_close(db);
  if (rc != SQLITE_OK) return Error::Internal("sqlite script failed: " + error);
  return OkStatus();
}

Result<std::filesystem::path> CreateSqliteFixture(const std::filesystem::path& dir) {
  std::filesystem::path file = dir / "orders.db";
  if (auto status = RunSqliteScript(file, kSqliteFixture); !status) return status.error();
  return file;
}

std::string DirectoryFingerprint(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    std::string content = entry.is_regular_file() ? ReadFile(entry.path()) : "";
    files[entry.path().lexically_relative(dir).string()] =
        std::to_string(content.size()) + ":" + std::to_string(std::hash<std::string>()(content));
  }
  std::string fingerprint;
  for (const auto& [name, digest] : files) fingerprint += name + "=" + digest + "\n";
  return fingerprint;
}

Status EnsureMariadbFixture(MariadbServer& server) {
  return Once(server, "fixture", kMariadbFixture);
}

Result<std::string> MariadbFingerprint(MariadbServer& server) {
  std::string fingerprint;
  auto append = [&](std::string_view sql) -> Status {
    auto rows = server.Rows(sql);
    if (!rows) return rows.error();
    for (const auto& row : *rows) {
      for (const auto& cell : row) fingerprint += cell + "|";
      fingerprint += "\n";
    }
    return OkStatus();
  };
  const char* const kSystem = "('mysql','information_schema','performance_schema','sys')";
  auto tables =
      server.Rows(std::string("SELECT CONCAT('`', table_schema, '`.`', table_name, '`') "
                              "FROM information_schema.tables WHERE table_schema NOT IN ") +
                  kSystem + " ORDER BY 1");
  if (!tables) return tables.error();
  for (const auto& row : *tables) {
    if (auto s = append("CHECKSUM TABLE " + row[0] + " EXTENDED"); !s) return s.error();
    if (auto s = append("SELECT COUNT(*) FROM " + row[0]); !s) return s.error();
  }
  for (const char* sql :
       {"SELECT schema_name FROM information_schema.schemata ORDER BY 1",
        "SELECT routine_schema, routine_name FROM information_schema.routines ORDER BY 1, 2",
        "SELECT user, host FROM mysql.user ORDER BY 1, 2",
        "SELECT @@global.read_only, @@global.max_statement_time"}) {
    if (auto s = append(sql); !s) return s.error();
  }
  return fingerprint;
}

std::filesystem::path ChinookSqliteScript() {
  auto file = SharedData() / "mysql/chinook/ChinookDatabase/DataSources/Chinook_Sqlite.sql";
  return std::filesystem::exists(file) ? file : std::filesystem::path();
}

std::filesystem::path ChinookMysqlScript() {
  auto file = SharedData() / "mysql/chinook/ChinookDatabase/DataSources/Chinook_MySql.sql";
  return std::filesystem::exists(file) ? file : std::filesystem::path();
}

Status EnsureMariadbChinook(MariadbServer& server) {
  std::filesystem::path script = ChinookMysqlScript();
  if (script.empty()) return Error::NotFound("shared/data not present");
  return Once(server, "chinook", ReadFile(script));
}

}  // namespace diagd::testing
