// How one run maps onto its PostgreSQL rows (the tables of run_rows.h, the
// same columns). The JSON columns come from run_codec.h and the lost run's
// stream from run_rows.h, shared with the SQLite store. Callers hold a
// connection with an open transaction.
//
// Thread safety: none beyond the caller's connection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/run_store.h"
#include "core/result.h"
#include "store/postgres_db.h"
#include "store/run_rows.h"

namespace diagd::store {

// Inserts the run's row (with `replace`, inserts or replaces it unless the
// server already ended it), then replaces its steps, trace, events and
// observations. FAILED_PRECONDITION as SqliteRunStore.
Status WritePgRunRows(PgConn& conn, const app::RunRecord& run, const EncodedChildren& encoded,
                      bool replace);
// Inserts `events`; with `keep_stored`, an event whose id is stored
// already is left as it is (a retried append), else it is an error.
Status InsertPgEvents(PgConn& conn, const std::string& run_id,
                      const std::vector<app::RunEvent>& events, bool keep_stored);
// Deletes the run's events and inserts `events` in their place.
Status ReplacePgEvents(PgConn& conn, const std::string& run_id,
                       const std::vector<app::RunEvent>& events);
Result<std::vector<app::RunEvent>> ReadPgEvents(PgConn& conn, const std::string& run_id,
                                                std::int64_t after_id);
// The run with its steps and trace, not its events; empty when none.
Result<std::optional<app::RunRecord>> ReadPgRunRows(PgConn& conn, const std::string& run_id);
// A time cell; INTERNAL when it is not RFC 3339 (a damaged row).
Result<WallTime> ReadPgTime(const PgRows& rows, int row, int column);

}  // namespace diagd::store
