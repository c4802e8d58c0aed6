// Internal to the query_mysql backend: one configured datasource (a SQLite
// file or a MySQL/MariaDB database) that runs one read-only statement and
// returns bounded rows.
//
// Every statement reaching a datasource has passed `ClassifyStatement`, but a
// datasource does not rely on it: each implementation is read-only on its own
// (read-only connection or transaction, one statement only, a statement that
// returns no rows is never executed), so a statement that somehow skipped the
// classifier still cannot write. docs/sql-safety.md lists the layers.
//
// Thread safety: implementations are safe for concurrent use.
#pragma once

#include <cstddef>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "tools/tool_adapter.h"
#include "tools/tool_request.h"

namespace diagd::tools::mysql {

// What a query may return. The backend stops fetching at the first bound it
// reaches and reports `truncated`.
struct QueryLimits {
  std::size_t max_rows = 30;
  std::size_t max_cell_chars = 1000;  // code points per text cell and column name
  // Total size of the fetched data, counted roughly as its JSON size.
  std::size_t max_bytes = 256 * 1024;
};

struct QueryOutput {
  std::vector<std::string> columns;
  // Cells: int64 or double for numbers, text as string, NULL as monostate,
  // binary as the placeholder "<binary N bytes>".
  std::vector<std::vector<SqlValue>> rows;
  bool truncated = false;
};

class Datasource {
 public:
  virtual ~Datasource() = default;
  // Runs `sql` with `params` bound to its `?` placeholders, by type. Gives up
  // by `deadline` with TOOL_TIMEOUT. A refused or failing statement is
  // QUERY_FAILED with a bounded, credential-free message; an unreachable or
  // broken datasource is TOOL_UNAVAILABLE with no message. Once `cancel` is
  // requested the statement is interrupted where it runs (TOOL_UNAVAILABLE).
  virtual Result<QueryOutput, AdapterFailure> Query(std::string_view sql,
                                                    const std::vector<SqlValue>& params,
                                                    const QueryLimits& limits, MonoTime deadline,
                                                    const std::stop_token& cancel = {}) = 0;
};

}  // namespace diagd::tools::mysql
