// How the offline model finds its way around a datasource it knows nothing
// about: a datasource the tool description says speaks SQLite is asked
// sqlite_master for its tables and their columns; any other is asked
// information_schema (MySQL, MariaDB), and when that fails the way SQLite
// fails ("no such table: information_schema..."), sqlite_master instead. A
// failed query is an ordinary ERROR observation; the next step adapts to it.
//
// Then it looks for tables an engineer would: a change record (deployments,
// releases, changes...) ordered by time, and a business table of the failing
// chain (payments, orders...) grouped by status.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/offline/investigation_state.h"

namespace diagd::model::offline {

struct TableInfo {
  std::string name;
  std::vector<std::string> columns;
};

struct DatasourceSchema {
  std::string datasource;
  bool described_as_sqlite = false;  // by the tool description
  bool tried_information_schema = false;
  bool information_schema_failed = false;
  bool looks_like_sqlite = false;  // the failure named a missing information_schema
  bool tried_sqlite_master = false;
  bool sqlite_master_failed = false;
  bool known = false;  // a discovery returned the tables
  std::vector<TableInfo> tables;
};

extern const char* const kInformationSchemaSql;
extern const char* const kSqliteMasterSql;

// What the discovery calls made so far returned, per offered datasource.
std::vector<DatasourceSchema> ReadSchemas(const InvestigationState& state);

// Column names of a CREATE TABLE statement (comments and constraints skipped).
std::vector<std::string> ColumnsOfCreateTable(const std::string& create_sql);

// The column a table is ordered by time with ("deployed_at", "created_at"...);
// empty when none looks like a time.
std::string TimeColumnOf(const TableInfo& table);

// Column positions of a change record by role, from the column names; -1
// where no column plays the role.
struct ChangeColumns {
  int service = -1, version = -1, time = -1, summary = -1, ticket = -1, actor = -1, db_change = -1;
  int key = -1, old_value = -1, new_value = -1;  // a configuration change's
};
ChangeColumns ChangeColumnsOf(const std::vector<std::string>& columns,
                              const std::string& time_column);

// A record of changes: named like one (deployments, releases, changes...),
// or shaped like one whatever its name (ops_tickets, cmdb_events): a time,
// what was done in words, and a ticket, an actor or the thing changed.
bool IsChangeTable(const TableInfo& table);

// The change records of a datasource, at most two (deployments and
// config_changes: a release and a configuration push are both changes).
std::vector<const TableInfo*> ChangeTables(const DatasourceSchema& schema);
// The tables of `schema` that `text` names (a runbook's "check
// `vendor_status`"), change tables aside, each once.
std::vector<const TableInfo*> TablesNamedIn(const DatasourceSchema& schema,
                                            const std::string& text);
// Newest rows first when the table has a time column: what a resource table
// (certificates, disk usage, a partner's status) says now.
std::string ResourceQuerySql(const TableInfo& table);
// Whether `sql` is a ResourceQuerySql statement; its table.
bool ParseResourceQuery(const std::string& sql, std::string* table);
// A table named after one of `stems` (most important first) with a status
// column: "payments" for "payment".
const TableInfo* FindStatusTable(const DatasourceSchema& schema,
                                 const std::vector<std::string>& stems);

std::string ChangeQuerySql(const TableInfo& table);
// Whether `sql` is a ChangeQuerySql statement (by its form: the change
// query reads ten rows, the resource query twenty); its table and order
// column.
bool ParseChangeQuery(const std::string& sql, std::string* table, std::string* order_column);
// With `since` ("YYYY-MM-DD HH:MM:SS"), rows from then on (bound as the one
// parameter); otherwise every row.
std::string StatusQuerySql(const TableInfo& table, bool with_since);

}  // namespace diagd::model::offline
