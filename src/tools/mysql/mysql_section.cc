#include "tools/mysql/mysql_section.h"

#include <algorithm>
#include <utility>

#include "config/toml_reader.h"

namespace diagd::tools::mysql {

using namespace config::internal;

namespace {

void ReadDatasources(TableReader datasources, std::vector<DatasourceConfig>& out) {
  for (const std::string& name : datasources.Keys()) {
    auto table = datasources.Table(name);
    if (!table) continue;
    if (Problem problem = CheckDatasourceName(name)) {
      datasources.AddProblem(name, *problem);
    }
    DatasourceConfig source;
    source.name = name;
    table->Read("url", source.url, CheckDatasourceUrl);
    table->Read("max_rows", source.max_rows);
    table->Read("timeout_ms", source.timeout_ms);
    table->Read("max_cell_chars", source.max_cell_chars);
    table->RejectUnknownKeys();
    // A datasource with no address cannot be queried; there is no default.
    if (!table->Has("url")) datasources.AddProblem(name, "missing the required key \"url\"");
    out.push_back(std::move(source));
  }
  std::sort(out.begin(), out.end(),
            [](const DatasourceConfig& a, const DatasourceConfig& b) { return a.name < b.name; });
}

}  // namespace

void MysqlSection::Read(TableReader& table, MysqlSection& out) {
  if (auto datasources = table.Table("datasources")) ReadDatasources(*datasources, out.datasources);
  table.RejectUnknownKeys();
}

void MysqlSection::ResolvePaths(const std::filesystem::path& base, MysqlSection& out) {
  for (DatasourceConfig& source : out.datasources) source.url = ResolveSqliteUrl(base, source.url);
}

std::vector<LocalPath> MysqlSection::LocalPaths(const MysqlSection& section) {
  constexpr std::string_view kSqlite = "sqlite:";
  std::vector<LocalPath> paths;
  for (const DatasourceConfig& source : section.datasources) {
    if (!source.url.starts_with(kSqlite)) continue;  // a server, not a file here
    paths.push_back({"[tools.mysql.datasources." + source.name + "] url",
                     source.url.substr(kSqlite.size()), false});
  }
  return paths;
}

}  // namespace diagd::tools::mysql
