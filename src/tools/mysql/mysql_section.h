// [tools.mysql]: the datasources query_mysql may read (tool_section.h).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tools/mysql/mysql_types.h"
#include "tools/tool_section.h"

namespace diagd::tools::mysql {

struct QueryMysql;  // the face (mysql_tool.h)

// One [tools.mysql.datasources.NAME] table.
struct DatasourceConfig {
  std::string name;  // [A-Za-z0-9_-]+
  // "sqlite:/abs/path" (absolute after loading) or
  // "mysql://user[:pass]@host[:port]/db".
  std::string url;
  int max_rows = 30;
  int timeout_ms = 3000;
  int max_cell_chars = 1000;
};

struct MysqlSection {
  using Face = QueryMysql;
  using Catalog = MysqlCatalog;
  using Limits = MysqlLimits;
  static constexpr const char* kTable = "mysql";

  std::vector<DatasourceConfig> datasources;  // sorted by name

  static void Read(config::internal::TableReader& table, MysqlSection& out);
  static void ResolvePaths(const std::filesystem::path& base, MysqlSection& out);
  static std::vector<LocalPath> LocalPaths(const MysqlSection& section);
  static void CheckRules(const MysqlSection&, const config::internal::KeyLocations&,
                         config::internal::Problems&) {}
};

}  // namespace diagd::tools::mysql
