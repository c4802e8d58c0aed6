// The business requests of the three tools, after validation: what an adapter
// executes and what scope normalization reads. Built only by `ToolCatalog`
// (from a model's envelope input) or directly by product code that calls a
// tool without the envelope (the knowledge route).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace diagd::tools {

// A SQL parameter or cell: NULL, boolean, integer, floating point or text.
using SqlValue = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

struct DocumentsRequest {
  std::string query;  // 1..500 code points
};

struct LogsRequest {
  std::string topic;
  std::string query;         // the log query language (docs/log-query.md); may be empty
  int lookback_minutes = 0;  // the actual lookback: defaulted and clamped to the maximum
};

struct MysqlRequest {
  std::string datasource;  // a configured logical name, as configured
  std::string sql;         // one read-only statement with `?` placeholders
  std::vector<SqlValue> params;
};

using ToolRequest = std::variant<DocumentsRequest, LogsRequest, MysqlRequest>;

}  // namespace diagd::tools
