// query_mysql's settings from [tools.mysql]. Rows, cell sizes and timeouts
// are per datasource; the boundary applies the largest, so each
// datasource's own (smaller) bound is enforced by its backend.
#include <algorithm>

#include "config/config.h"
#include "tools/mysql/mysql_tool.h"
#include "tools/tool_boundary.h"

namespace diagd::tools::mysql {

void QueryMysql::ConfigureCatalog(const config::ToolsConfig& tools, CatalogOptions& catalog) {
  for (const DatasourceConfig& datasource : tools.datasources) {
    catalog.mysql.datasources.push_back(datasource.name);
    bool sqlite = datasource.url.starts_with("sqlite:");
    catalog.mysql.dialects.push_back(sqlite ? "SQLite" : "MySQL");
  }
}

void QueryMysql::ConfigureBoundary(const config::ToolsConfig& tools, BoundaryOptions& boundary) {
  if (tools.datasources.empty()) return;
  int timeout_ms = 0;
  std::size_t max_rows = 0;
  std::size_t max_cell_chars = 0;
  for (const DatasourceConfig& datasource : tools.datasources) {
    timeout_ms = std::max(timeout_ms, datasource.timeout_ms);
    max_rows = std::max(max_rows, static_cast<std::size_t>(datasource.max_rows));
    max_cell_chars = std::max(max_cell_chars, static_cast<std::size_t>(datasource.max_cell_chars));
  }
  boundary.timeouts[kName] = std::chrono::milliseconds(timeout_ms);
  boundary.limits.max_rows = max_rows;
  boundary.limits.max_cell_chars = max_cell_chars;
}

}  // namespace diagd::tools::mysql
