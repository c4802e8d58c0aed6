// The query_mysql tool's adapter: the configured datasources (SQLite files
// and MySQL/MariaDB databases) behind one `ToolAdapter`.
//
// `Execute` runs the request's statement on the datasource it names (matched
// case-insensitively, as the input rules do) with that datasource's bounds:
// at most `max_rows` rows, text cells of at most `max_cell_chars` code points,
// at most `max_result_bytes` of fetched data (roughly its JSON size), and
// `timeout_ms` or the caller's deadline, whichever comes first. Anything cut
// sets `truncated`. The backends are read-only in depth, whatever the
// statement (docs/sql-safety.md, "The connection is read-only too").
//
// Cells: integers, YEAR and BIT as int64 (an unsigned value above INT64_MAX
// as its exact text), DOUBLE/FLOAT/REAL as double (infinities and NaN as
// text), DECIMAL as double when it has at most 15 significant digits and
// otherwise as its exact text, dates and times as the server's text
// ("2026-11-29 10:30:00"), NULL as monostate, BINARY/VARBINARY/BLOB/GEOMETRY
// as "<binary N bytes>", every other type (TEXT, JSON, ENUM, SET) as text.
//
// `raw_response` is a short JSON summary for the canonical record:
// `{"datasource", "columns", "row_count", "truncated"}`, no cell data.
//
// Thread safety: safe for concurrent use; MySQL connections are pooled per
// datasource.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/result.h"
#include "tools/tool_adapter.h"

namespace diagd::tools::mysql {

class Datasource;

struct MysqlAdapterOptions {
  std::size_t max_result_bytes = 256 * 1024;
  std::size_t max_connections_per_datasource = 8;
};

class MysqlAdapter final : public ToolAdapter {
 public:
  // Checks every url and name; connects to nothing (an unreachable
  // datasource answers TOOL_UNAVAILABLE when queried). An error names the
  // datasource, never its url (which may hold a password).
  static Result<std::unique_ptr<MysqlAdapter>> Open(
      const std::vector<tools::mysql::DatasourceConfig>& datasources, MysqlAdapterOptions options = {});
  ~MysqlAdapter() override;
  MysqlAdapter(const MysqlAdapter&) = delete;
  MysqlAdapter& operator=(const MysqlAdapter&) = delete;

 private:
  // ToolAdapter. An unknown datasource is QUERY_FAILED ("unknown
  // datasource"); a request of another tool is TOOL_UNAVAILABLE (a wiring
  // bug). A cancel interrupts the statement (TOOL_UNAVAILABLE): SQLite
  // between steps, MySQL by cutting the connection under it.
  Result<AdapterOutput, AdapterFailure> DoExecute(const ToolRequest& request, MonoTime deadline,
                                                  const std::stop_token& cancel) override;

  struct Source {
    tools::mysql::DatasourceConfig config;
    std::unique_ptr<Datasource> datasource;
  };
  MysqlAdapter(std::vector<Source> sources, MysqlAdapterOptions options);
  const Source* Find(const std::string& name) const;

  std::vector<Source> sources_;
  MysqlAdapterOptions options_;
};

}  // namespace diagd::tools::mysql
