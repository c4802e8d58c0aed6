// query_mysql's request, canonical result and rules (docs/specs/tool-contracts.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tools/tool_types.h"

namespace diagd::tools {

// A SQL parameter or cell: NULL, boolean, integer, floating point or text.
using SqlValue = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

namespace mysql {
inline constexpr ToolName kQueryMysql{"query_mysql"};

struct MysqlRules {
  std::vector<std::string> datasources;  // the configured logical names
  // Per datasource, the SQL it speaks ("SQLite", "MySQL"): the tool's
  // description names it, so that a model writes that dialect (SQLite has
  // no information_schema) instead of learning it from an error.
  std::vector<std::string> dialects;
  bool operator==(const MysqlRules&) const = default;
};
// Its part of CatalogOptions (catalog_options.h).
struct MysqlCatalog {
  MysqlRules mysql;
  bool operator==(const MysqlCatalog&) const = default;
};
// Its bounds on a result, as a part of ResultLimits (tool_face.h); each
// datasource's own (smaller) bounds are its backend's.
struct MysqlLimits {
  std::size_t max_rows = 30;
  std::size_t max_cell_chars = 1000;
  bool operator==(const MysqlLimits&) const = default;
};

// A cell as text, in the digits the observation's JSON shows; nothing for NULL.
std::optional<std::string> CellText(const SqlValue& cell);
}  // namespace mysql

struct MysqlRequest {
  std::string datasource;  // a configured logical name, as configured
  std::string sql;         // one read-only statement with `?` placeholders
  std::vector<SqlValue> params;
};

struct MysqlResult {
  EvidenceStatus evidence_status = EvidenceStatus::kNoEvidence;
  std::string tool_call_id;
  std::string datasource;
  std::string sql;
  std::vector<SqlValue> params;
  std::vector<std::string> columns;
  // Cells: numbers as numbers, text as strings, NULL as monostate, binary as a
  // short placeholder string such as "<binary 2048 bytes>".
  std::vector<std::vector<SqlValue>> rows;
  std::size_t returned_count = 0;
  bool truncated = false;
};

}  // namespace diagd::tools
