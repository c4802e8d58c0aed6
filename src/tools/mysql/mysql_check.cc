// query_mysql's part of `diagd check`: one row per configured datasource
// (reachable, read-only enforced by a harmless write refused, number of
// tables and views); one row saying there is none when none is configured.
#include "config/config.h"
#include "tools/mysql/datasource_census.h"
#include "tools/mysql/mysql_adapter.h"
#include "tools/mysql/mysql_tool.h"

namespace diagd::tools::mysql {
namespace {

// The advice table, in docs/check.md's order; the enum indexes it.
enum Misconfiguration {
  kDatasourcesInvalid,
  kUnreachable,
  kCountFailed,
  kNoTables,
  kWritable,
};
constexpr AdviceEntry kAdvice[] = {
    {"DATASOURCES_INVALID", "datasource",
     "the configured datasources could not be opened (a name or url the adapter refuses)",
     "fix the tools.mysql.datasources key the detail names"},
    {"DATASOURCE_UNREACHABLE", "datasource",
     "the SQLite file cannot be opened, or the MySQL server cannot be reached or logged in to",
     "fix tools.mysql.datasources.{name}.url, or the database it points at ({reason})"},
    {"DATASOURCE_COUNT_FAILED", "datasource",
     "reachable, but its catalog of tables could not be read",
     "let the account of tools.mysql.datasources.{name}.url read the database's catalog "
     "(information_schema for MySQL)"},
    {"DATASOURCE_NO_TABLES", "datasource",
     "reachable, with no table or view: probably the wrong database",
     "point tools.mysql.datasources.{name}.url at the database that holds your data"},
    {"DATASOURCE_WRITABLE", "datasource", "a harmless write was not refused",
     "do not use tools.mysql.datasources.{name} until this is fixed: report it as a diagd bug "
     "(docs/sql-safety.md)"},
};

CheckRow CheckDatasource(ToolAdapter& adapter, const DatasourceConfig& datasource,
                         const Clock& clock, std::chrono::milliseconds max_time) {
  CheckRow row{"datasource", datasource.name, true, "", ""};
  auto census = CensusDatasource(adapter, datasource, clock.Monotonic() + max_time);
  AdviceValues values{{"name", datasource.name}, {"reason", census.problem}};
  const char* kind = census.kind == DatasourceKind::kSqlite ? "SQLite" : "MySQL";
  if (!census.reachable) {
    return Problem(row, std::string("not reachable (") + kind + "): " + census.problem,
                   kAdvice[kUnreachable], values);
  }
  if (!census.write_answered) {
    return Problem(row, std::string("reachable (") + kind + "), " + census.problem,
                   kAdvice[kUnreachable], values);
  }
  std::string read_only = census.write_refused
                              ? "read-only enforced (a write was refused: " + census.refusal + ")"
                              : "A WRITE WAS NOT REFUSED";
  std::string tables = census.tables ? Plural(static_cast<std::size_t>(*census.tables),
                                              "table or view", "tables and views")
                                     : census.problem;
  row.detail = std::string("reachable (") + kind + "), " + read_only + ", " + tables;
  if (!census.write_refused) return Problem(row, row.detail, kAdvice[kWritable], values);
  if (!census.tables) return Problem(row, row.detail, kAdvice[kCountFailed], values);
  if (*census.tables == 0) return Problem(row, row.detail, kAdvice[kNoTables], values);
  return row;
}

}  // namespace

std::vector<CheckRow> QueryMysql::Check(const CheckContext& context) {
  const auto& datasources = context.config.tools.datasources;
  if (datasources.empty()) {
    return {{"datasource", "(none)", true, "no tools.mysql.datasources configured", ""}};
  }
  auto adapter = MysqlAdapter::Open(datasources);
  if (!adapter) {
    // The config's own validation makes this unreachable; say it plainly if not.
    return {Problem({"datasource", "tools.mysql.datasources", true, "", ""},
                    adapter.error().message, kAdvice[kDatasourcesInvalid], {})};
  }
  std::vector<CheckRow> rows;
  for (const DatasourceConfig& datasource : datasources) {
    context.Announce("datasource", datasource.name);
    rows.push_back(CheckDatasource(**adapter, datasource, context.clock, context.max_time));
  }
  return rows;
}

std::span<const AdviceEntry> QueryMysql::Advice() { return kAdvice; }

}  // namespace diagd::tools::mysql
