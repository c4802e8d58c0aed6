#include "tools/mysql/datasource_census.h"

#include <filesystem>
#include <system_error>
#include <variant>

#include "tools/mysql/datasource_url.h"

namespace diagd::tools::mysql {
namespace {

constexpr const char* kSqliteCount =
    "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') "
    "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'";
constexpr const char* kMysqlCount =
    "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()";
// Harmless even where it would run: a temporary table lives only as long
// as the connection.
constexpr const char* kSqliteWrite = "CREATE TEMP TABLE diagd_check_probe (x INTEGER)";
constexpr const char* kMysqlWrite = "CREATE TEMPORARY TABLE diagd_check_probe (x INT)";

Result<AdapterOutput, AdapterFailure> Run(ToolAdapter& adapter, const std::string& datasource,
                                          const char* sql, MonoTime deadline) {
  return adapter.Execute(MysqlRequest{datasource, sql, {}}, deadline);
}

std::optional<std::int64_t> FirstCell(const AdapterOutput& output) {
  const auto* result = std::get_if<MysqlResult>(&output.result);
  if (result == nullptr || result->rows.empty() || result->rows[0].empty()) return std::nullopt;
  const SqlValue& cell = result->rows[0][0];
  if (const auto* n = std::get_if<std::int64_t>(&cell)) return *n;
  if (const auto* d = std::get_if<double>(&cell)) return static_cast<std::int64_t>(*d);
  return std::nullopt;
}

std::string Unreachable(const DatasourceLocation& location, const AdapterFailure& failure) {
  if (failure.code == ToolErrorCode::kToolTimeout) return "no answer within its timeout_ms";
  if (const auto* sqlite = std::get_if<SqliteLocation>(&location)) {
    std::error_code error;
    if (!std::filesystem::exists(sqlite->path, error)) {
      return "the file " + sqlite->path + " does not exist";
    }
    return "the file " + sqlite->path + " cannot be opened as a SQLite database";
  }
  const auto& mysql = std::get<MysqlLocation>(location);
  // The server's own words may name the account: they were dropped below.
  return "cannot connect to " + mysql.host + ":" + std::to_string(mysql.port) +
         " or log in to database " + mysql.database;
}

}  // namespace

DatasourceCensus CensusDatasource(ToolAdapter& adapter, const tools::mysql::DatasourceConfig& config,
                                  MonoTime deadline) {
  DatasourceCensus census;
  auto location = ParseDatasourceUrl(config.url);
  if (!location) {  // the adapter opened it, so this does not happen
    census.problem = location.error().message;
    return census;
  }
  bool sqlite = std::holds_alternative<SqliteLocation>(*location);
  census.kind = sqlite ? DatasourceKind::kSqlite : DatasourceKind::kMysql;

  auto counted = Run(adapter, config.name, sqlite ? kSqliteCount : kMysqlCount, deadline);
  if (!counted) {
    if (counted.error().code == ToolErrorCode::kQueryFailed) {
      census.reachable = true;
      census.problem = "the table count failed: " + counted.error().message;
    } else {
      census.problem = Unreachable(*location, counted.error());
      return census;
    }
  } else {
    census.reachable = true;
    census.tables = FirstCell(*counted);
  }

  auto written = Run(adapter, config.name, sqlite ? kSqliteWrite : kMysqlWrite, deadline);
  census.write_answered = written || written.error().code == ToolErrorCode::kQueryFailed;
  if (!written && written.error().code == ToolErrorCode::kQueryFailed) {
    census.write_refused = true;
    census.refusal = written.error().message;
  } else if (!written) {
    census.problem =
        "the write probe got no answer: " + std::string(ToolErrorCodeString(written.error().code));
  }
  return census;
}

}  // namespace diagd::tools::mysql
