// What one configured datasource answers when asked through the query_mysql
// adapter, the same path a run's statements take: whether it is reachable,
// whether it refuses a write, and how many tables and views it holds. For
// `diagd check` (docs/check.md).
//
// Two statements are sent: a count from the catalog (`sqlite_master`, or
// `information_schema.TABLES` of the url's database), and a harmless write
// (creating a temporary table), which every read-only layer of
// docs/sql-safety.md must refuse. Nothing else is read or written.
//
// Thread safety: safe for concurrent use, as the adapter is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "config/config.h"
#include "core/clock.h"
#include "tools/tool_adapter.h"

namespace diagd::tools::mysql {

enum class DatasourceKind { kSqlite, kMysql };

struct DatasourceCensus {
  DatasourceKind kind = DatasourceKind::kSqlite;
  bool reachable = false;
  // Why not reachable, or why the count failed, in words that hold no
  // password (empty when all went well).
  std::string problem;
  std::optional<std::int64_t> tables;  // tables and views; absent when not counted
  bool write_answered = false;         // the write probe got an answer (refused or not)
  bool write_refused = false;
  std::string refusal;  // the datasource's reason for refusing the write
};

// `adapter` answers query_mysql (MysqlAdapter); `config` must be one of the
// datasources it was opened with. Gives up by `deadline` or the
// datasource's own timeout_ms, whichever is first.
DatasourceCensus CensusDatasource(ToolAdapter& adapter, const tools::mysql::DatasourceConfig& config,
                                  MonoTime deadline);

}  // namespace diagd::tools::mysql
