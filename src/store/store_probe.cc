#include "store/store_probe.h"

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "store/db_file.h"
#include "store/postgres_db.h"
#include "store/postgres_migrations.h"
#include "store/redis_client.h"
#include "store/sqlite_db.h"
#include "store/sqlite_migrations.h"

namespace diagd::store {
namespace {

namespace fs = std::filesystem;

std::string Runs(std::int64_t count) {
  return std::to_string(count) + (count == 1 ? " run" : " runs");
}

// A file `serve` would create: the nearest folder that exists must let
// this user create the rest (serve creates the missing folders too).
Result<std::string> ProbeNewSqliteFile(const std::string& path) {
  fs::path folder = fs::path(path).parent_path();
  std::error_code ec;
  while (!folder.empty() && !fs::exists(folder, ec)) folder = folder.parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::is_directory(folder, ec) || access(folder.c_str(), W_OK | X_OK) != 0) {
    return Error::Unavailable("run store: cannot create " + path + ": " + folder.string() +
                              " is not a folder this user may write");
  }
  return std::string("SQLite, no file yet: created at the first start");
}

Result<std::string> ProbeSqlite(const std::string& path) {
  if (path == ":memory:") return std::string("SQLite in memory: runs are lost at exit");
  std::error_code ec;
  if (!fs::exists(path, ec)) return ProbeNewSqliteFile(path);
  if (Status usable = CheckDatabasePath(path); !usable) return usable.error();
  auto db = SqliteDb::Open(path, SqliteDb::OpenMode::kExisting);
  if (!db) return Error::Unavailable(db.error().message + " (" + path + ")");
  Status migratable = CheckMigratable(**db, RunStoreMigrations());
  if (!migratable) {
    if ((*db)->LastErrorCode() == SQLITE_NOTADB) {
      return Error::FailedPrecondition("run store: " + path + " is not a SQLite database");
    }
    return migratable.error();
  }
  Result<int> version = SchemaVersion(**db);
  if (!version) return version.error();
  if (*version == 0) {
    return std::string("SQLite, an empty file: becomes a run store at the first start");
  }
  auto count = (*db)->Prepare("SELECT count(*) FROM diagnosis_run", "count runs");
  if (!count) return count.error();
  Result<bool> row = count->Step();
  if (!row) return row.error();
  return "SQLite, schema " + std::to_string(*version) + ", " + Runs(count->Int(0));
}

Result<std::string> ProbePostgres(const std::string& url) {
  auto conn = PgConn::Connect(url);
  if (!conn) return conn.error();
  Result<int> version = PostgresSchemaVersion(**conn);
  if (!version) return version.error();
  int known = PostgresRunStoreMigrations().back().version;
  if (*version > known) {
    return Error::FailedPrecondition("run store: the database has schema version " +
                                     std::to_string(*version) + ", newer than this diagd knows (" +
                                     std::to_string(known) + ")");
  }
  if (*version == 0) {
    return std::string("PostgreSQL reachable, no schema yet: created at the first start");
  }
  auto count = (*conn)->Query("SELECT count(*) FROM diagnosis_run", "count runs");
  if (!count) return count.error();
  return "PostgreSQL reachable, schema " + std::to_string(*version) + ", " +
         Runs(count->Int(0, 0));
}

}  // namespace

Result<std::string> ProbeRunStore(const std::string& url) {
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) {
    return ProbePostgres(url);
  }
  constexpr std::string_view kScheme = "sqlite:";
  if (!url.starts_with(kScheme) || url.starts_with("sqlite://")) {
    return Error::InvalidArgument("expected sqlite:PATH, postgresql://... or postgres://...");
  }
  return ProbeSqlite(url.substr(kScheme.size()));
}

Result<std::string> ProbeRedis(const std::string& url) {
  auto endpoint = ParseRedisUrl(url);
  if (!endpoint) return endpoint.error();
  RedisConnection connection(*endpoint, RedisTimeouts{});
  auto pong = connection.Command({"PING"});
  if (!pong) return pong.error();
  return "Redis " + endpoint->Describe() + " answers";
}

}  // namespace diagd::store
