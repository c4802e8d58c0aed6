// query_mysql: business input rules, schema and scope.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "tools/input_rules.h"
#include "tools/scope.h"
#include "tools/tool_request.h"

namespace diagd::tools::mysql {

inline constexpr std::size_t kMaxSqlBytes = 10000;

struct MysqlRules {
  std::vector<std::string> datasources;  // the configured logical names
  // Per datasource, the SQL it speaks ("SQLite", "MySQL"): the tool's
  // description names it, so that a model writes that dialect (SQLite has
  // no information_schema) instead of learning it from an error.
  std::vector<std::string> dialects;
};

// The datasource is matched case-insensitively and stored as configured; the
// statement must pass the read-only classifier (docs/sql-safety.md), and the
// number of params must equal the number of `?` placeholders.
InputResult<MysqlRequest> ParseInput(const boost::json::object& input, const MysqlRules& rules);
// Identity: lower-cased datasource, normalized SQL text, params as canonical
// JSON. The summary names the datasource and the statement, never the params.
Scope ScopeOf(const MysqlRequest& request);
boost::json::object InputSchema(const MysqlRules& rules);
boost::json::object RequestJson(const MysqlRequest& request);

boost::json::value SqlValueJson(const SqlValue& value);

}  // namespace diagd::tools::mysql
