// Internal to the MariaDB backend: one prepared statement on an open
// connection, its typed parameters and result cells, and what a server or
// client error means to the model.
//
// Thread safety: one connection per call.
#pragma once

#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "tools/mysql/datasource.h"

// libmariadb's connection handle (`MYSQL`), kept out of this header.
struct st_mysql;

namespace diagd::tools::mysql {

// Prepares `sql` as a server-side statement, refuses it unless it returns a
// result set, binds `params` by type, executes it and fetches rows within
// `limits`. The caller has begun the transaction and ends it. Sets
// `*connection_ok` to false when the connection is broken and must not be
// reused.
Result<QueryOutput, AdapterFailure> RunStatement(st_mysql* mysql, std::string_view sql,
                                                 const std::vector<SqlValue>& params,
                                                 const QueryLimits& limits, MonoTime deadline,
                                                 bool* connection_ok);

// Client-side errors (CR_*, 2000..2999): the connection is gone or unusable.
bool IsClientError(unsigned int code);

// A server or client error as the model sees it: the statement's time limit
// is TOOL_TIMEOUT; a lost connection, a full or shutting-down server or a
// deadlock is TOOL_UNAVAILABLE (TOOL_TIMEOUT once `deadline` has passed);
// anything else is QUERY_FAILED with the server's text made safe
// (`SafeServerMessage`).
AdapterFailure MariadbFailure(unsigned int code, const char* message, MonoTime deadline);

}  // namespace diagd::tools::mysql
