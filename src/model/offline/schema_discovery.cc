#include "model/offline/schema_discovery.h"

#include <algorithm>

#include "core/text.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {

const char* const kInformationSchemaSql =
    "SELECT table_name, GROUP_CONCAT(column_name ORDER BY ordinal_position) AS column_names "
    "FROM information_schema.columns WHERE table_schema = DATABASE() "
    "GROUP BY table_name ORDER BY table_name";
const char* const kSqliteMasterSql =
    "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name";

namespace {

bool IsPlainIdentifier(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::vector<std::string> SplitCsv(const std::string& csv) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : csv) {
    if (c == ',') {
      parts.emplace_back(Trim(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!Trim(current).empty()) parts.emplace_back(Trim(current));
  return parts;
}

std::string StripComments(const std::string& sql) {
  std::string out;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    if (sql.compare(i, 2, "--") == 0) {
      while (i < sql.size() && sql[i] != '\n') ++i;
      out.push_back('\n');
    } else if (sql.compare(i, 2, "/*") == 0) {
      auto end = sql.find("*/", i + 2);
      i = end == std::string::npos ? sql.size() : end + 1;
    } else {
      out.push_back(sql[i]);
    }
  }
  return out;
}

void ReadDiscovery(const CallRecord& call, DatasourceSchema& schema) {
  bool information_schema = call.input.sql == kInformationSchemaSql;
  bool sqlite_master = call.input.sql == kSqliteMasterSql;
  if (!information_schema && !sqlite_master) return;
  if (information_schema) schema.tried_information_schema = true;
  if (sqlite_master) schema.tried_sqlite_master = true;
  if (call.outcome == Outcome::kError || call.outcome == Outcome::kInvalidInput) {
    if (information_schema) {
      schema.information_schema_failed = true;
      schema.looks_like_sqlite =
          ContainsFold(call.message, "no such table") || ContainsFold(call.message, "sqlite");
    } else {
      schema.sqlite_master_failed = true;
    }
    return;
  }
  if (call.outcome != Outcome::kEvidence && call.outcome != Outcome::kNoEvidence) return;
  schema.known = true;
  for (const auto& row : call.rows) {
    if (row.empty() || !row[0].is_text) continue;
    TableInfo table{row[0].text, {}};
    if (table.name.rfind("sqlite_", 0) == 0) continue;
    if (row.size() > 1 && row[1].is_text) {
      table.columns = sqlite_master ? ColumnsOfCreateTable(row[1].text) : SplitCsv(row[1].text);
    }
    schema.tables.push_back(std::move(table));
  }
}

}  // namespace

std::vector<DatasourceSchema> ReadSchemas(const InvestigationState& state) {
  std::vector<DatasourceSchema> schemas;
  for (const auto& name : state.datasources) {
    DatasourceSchema schema;
    schema.datasource = name;
    schema.described_as_sqlite =
        std::find(state.sqlite_datasources.begin(), state.sqlite_datasources.end(), name) !=
        state.sqlite_datasources.end();
    for (const auto& call : state.calls) {
      if (call.tool == ToolKind::kMysql && call.input.datasource == name)
        ReadDiscovery(call, schema);
    }
    schemas.push_back(std::move(schema));
  }
  return schemas;
}

std::vector<std::string> ColumnsOfCreateTable(const std::string& create_sql) {
  std::string sql = StripComments(create_sql);
  auto open = sql.find('(');
  auto close = sql.rfind(')');
  std::vector<std::string> columns;
  if (open == std::string::npos || close == std::string::npos || close <= open) return columns;
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    char c = sql[i];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  parts.push_back(current);
  static const char* const kConstraints[] = {"PRIMARY", "UNIQUE", "CONSTRAINT", "FOREIGN",
                                             "CHECK",   "KEY",    "INDEX",      "FULLTEXT"};
  for (const auto& part : parts) {
    std::string_view item = Trim(part);
    std::size_t end = 0;
    while (end < item.size() && item[end] != ' ' && item[end] != '\t' && item[end] != '\n') ++end;
    std::string name(item.substr(0, end));
    name.erase(std::remove_if(name.begin(), name.end(),
                              [](char c) { return c == '`' || c == '"' || c == '[' || c == ']'; }),
               name.end());
    std::string upper = text::AsciiUpper(name);
    bool constraint = std::any_of(std::begin(kConstraints), std::end(kConstraints),
                                  [&](const char* word) { return upper == word; });
    if (!name.empty() && !constraint) columns.push_back(name);
  }
  return columns;
}

std::string TimeColumnOf(const TableInfo& table) {
  static const char* const kPreferred[] = {"deployed_at", "released_at", "changed_at", "applied_at",
                                           "executed_at", "started_at",  "created_at", "start_time",
                                           "timestamp",   "time"};
  for (const char* preferred : kPreferred) {
    for (const auto& column : table.columns) {
      if (text::AsciiLower(column) == preferred) return column;
    }
  }
  for (const auto& column : table.columns) {
    std::string lower = text::AsciiLower(column);
    if (lower.ends_with("_at") || lower.ends_with("_time")) return column;
  }
  return {};
}

namespace {

int FindColumn(const std::vector<std::string>& columns, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (text::AsciiLower(columns[i]) == name) return static_cast<int>(i);
    }
  }
  return -1;
}

bool NamedLikeChanges(const std::string& table) {
  std::string name = text::AsciiLower(table);
  for (const char* mark : {"deploy", "release", "change", "rollout", "publish"}) {
    if (name.find(mark) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

ChangeColumns ChangeColumnsOf(const std::vector<std::string>& columns,
                              const std::string& time_column) {
  ChangeColumns roles;
  roles.service = FindColumn(columns, {"service", "service_name", "app", "application", "component",
                                       "system", "target", "module", "ci_name", "ci", "resource",
                                       "name", "data_id"});
  roles.version = FindColumn(columns, {"version", "tag", "release", "revision", "build"});
  roles.summary = FindColumn(
      columns, {"change_summary", "summary", "description", "desc", "details", "detail",
                "change_text", "content", "comment", "title", "message", "change", "note", "notes",
                "action"});
  roles.key = FindColumn(columns, {"config_key", "key", "setting", "parameter", "param", "item"});
  roles.old_value = FindColumn(columns, {"old_value", "old", "before", "from_value"});
  roles.new_value = FindColumn(columns, {"new_value", "new", "after", "to_value"});
  roles.ticket = FindColumn(columns, {"ticket", "ticket_id", "change_id", "jira", "issue",
                                      "request_id", "ref", "reference"});
  roles.actor = FindColumn(columns, {"operator", "author", "owner", "requester", "requested_by",
                                     "changed_by", "created_by", "executor", "assignee", "by",
                                     "user", "who"});
  for (std::size_t i = 0; i < columns.size(); ++i) {
    std::string lower = text::AsciiLower(columns[i]);
    if (lower == text::AsciiLower(time_column)) roles.time = static_cast<int>(i);
    bool db = lower.find("db") != std::string::npos || lower.find("ddl") != std::string::npos ||
              lower.find("schema") != std::string::npos;
    if (db && roles.db_change < 0) roles.db_change = static_cast<int>(i);
  }
  return roles;
}

bool IsChangeTable(const TableInfo& table) {
  if (NamedLikeChanges(table.name)) return true;
  std::string time = TimeColumnOf(table);
  if (time.empty()) return false;
  ChangeColumns roles = ChangeColumnsOf(table.columns, time);
  return roles.summary >= 0 && (roles.ticket >= 0 || roles.actor >= 0 || roles.key >= 0);
}

std::vector<const TableInfo*> ChangeTables(const DatasourceSchema& schema) {
  constexpr std::size_t kMaxChangeTables = 2;
  std::vector<const TableInfo*> tables;
  for (const auto& table : schema.tables) {
    if (tables.size() == kMaxChangeTables) break;
    if (IsChangeTable(table) && IsPlainIdentifier(table.name)) tables.push_back(&table);
  }
  return tables;
}

std::vector<const TableInfo*> TablesNamedIn(const DatasourceSchema& schema,
                                            const std::string& text) {
  std::vector<const TableInfo*> tables;
  for (const auto& table : schema.tables) {
    if (!IsChangeTable(table) && IsPlainIdentifier(table.name) && ContainsName(text, table.name)) {
      tables.push_back(&table);
    }
  }
  return tables;
}

namespace {
constexpr std::size_t kResourceRows = 20;
constexpr std::size_t kChangeRows = 10;
}  // namespace

std::string ResourceQuerySql(const TableInfo& table) {
  std::string time = TimeColumnOf(table);
  std::string sql = "SELECT * FROM " + table.name;
  if (IsPlainIdentifier(time)) sql += " ORDER BY " + time + " DESC";
  return sql + " LIMIT " + std::to_string(kResourceRows);
}

bool ParseResourceQuery(const std::string& sql, std::string* table) {
  static const std::string kPrefix = "SELECT * FROM ";
  if (sql.rfind(kPrefix, 0) != 0) return false;
  auto space = sql.find(' ', kPrefix.size());
  *table = sql.substr(kPrefix.size(), space - kPrefix.size());
  return sql.ends_with(" LIMIT " + std::to_string(kResourceRows));
}

const TableInfo* FindStatusTable(const DatasourceSchema& schema,
                                 const std::vector<std::string>& stems) {
  for (const auto& stem : stems) {
    for (const auto& table : schema.tables) {
      std::string name = text::AsciiLower(table.name);
      if (!IsPlainIdentifier(table.name) || IsChangeTable(table)) continue;
      if (name != stem && name != stem + "s" && name != stem + "_record" &&
          name != stem + "_records") {
        continue;
      }
      bool has_status =
          std::any_of(table.columns.begin(), table.columns.end(),
                      [](const std::string& c) { return text::AsciiLower(c) == "status"; });
      if (has_status) return &table;
    }
  }
  return nullptr;
}

// "SELECT * FROM t ORDER BY c DESC LIMIT 10" -> t and c.
bool ParseChangeQuery(const std::string& sql, std::string* table, std::string* order_column) {
  static const std::string kPrefix = "SELECT * FROM ";
  if (sql.rfind(kPrefix, 0) != 0) return false;
  auto space = sql.find(' ', kPrefix.size());
  *table = sql.substr(kPrefix.size(), space - kPrefix.size());
  auto order = sql.find(" ORDER BY ");
  if (order != std::string::npos) {
    auto start = order + 10;
    *order_column = sql.substr(start, sql.find(' ', start) - start);
  }
  return sql.ends_with(" DESC LIMIT " + std::to_string(kChangeRows));
}

std::string ChangeQuerySql(const TableInfo& table) {
  std::string time = TimeColumnOf(table);
  if (!IsPlainIdentifier(time)) time.clear();
  return "SELECT * FROM " + table.name + " ORDER BY " + (time.empty() ? "1" : time) +
         " DESC LIMIT " + std::to_string(kChangeRows);
}

std::string StatusQuerySql(const TableInfo& table, bool with_since) {
  std::string time = TimeColumnOf(table);
  std::string where;
  if (with_since && IsPlainIdentifier(time)) where = " WHERE " + time + " >= ?";
  // A code column next to the status says why rows failed, not only how many.
  std::string group = "status";
  for (const auto& column : table.columns) {
    std::string lower = text::AsciiLower(column);
    if ((lower == "error_code" || lower == "reason_code" || lower == "fail_reason") &&
        IsPlainIdentifier(column)) {
      group += ", " + column;
      break;
    }
  }
  return "SELECT " + group + ", COUNT(*) AS n FROM " + table.name + where + " GROUP BY " + group +
         " ORDER BY n DESC";
}

}  // namespace diagd::model::offline
