// Fixture databases for the query_mysql backend tests: the same small
// `orders` table (typed columns, Chinese text, NULLs, blobs, dates) in a SQLite
// file and in the test MariaDB, fingerprints that prove nothing was written,
// and the Chinook sample database built from ../shared/data.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.h"
#include "tools/mysql/mariadb_server.h"

namespace diagd::testing {

// A fresh folder under /tmp, deleted with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs a SQL script on a SQLite file (created when missing), with write
// access: fixture building only.
Status RunSqliteScript(const std::filesystem::path& file, std::string_view sql);

// `dir`/orders.db with the tables `orders` and `audit` and the view `paid`.
Result<std::filesystem::path> CreateSqliteFixture(const std::filesystem::path& dir);

// Every file in `dir` with its size and a hash of its bytes: equal before and
// after means nothing was written, created or deleted there.
std::string DirectoryFingerprint(const std::filesystem::path& dir);

// Creates `orders`, `wide_values` (every MariaDB type family), `digits` (0-9,
// for heavy cross joins), `audit` and the
// writing function `bump()` in the test database, once per server.
Status EnsureMariadbFixture(MariadbServer& server);

// Every database, table (with CHECKSUM TABLE and row count), routine and
// account of the server: equal before and after means nothing was written.
Result<std::string> MariadbFingerprint(MariadbServer& server);

// The shared data folder's Chinook scripts; empty when absent.
std::filesystem::path ChinookSqliteScript();
std::filesystem::path ChinookMysqlScript();

// Loads the MySQL Chinook script into the server (database `Chinook`), once.
Status EnsureMariadbChinook(MariadbServer& server);

}  // namespace diagd::testing
