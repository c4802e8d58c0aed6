// Schema migrations of the PostgreSQL run store (docs/run-store.md).
//
// PostgreSQL's schema steps and its side of the migration runner
// (migrations.h). A schema is diagd's when it holds schema_migrations, or no
// tables at all. PostgreSQL's steps are their own list (version 1 is the
// whole schema the SQLite store reached in five).
//
// Several instances starting at once: the whole check-and-apply runs under
// a session advisory lock (pg_advisory_lock, one key per database), so one
// instance migrates and the others wait, then find nothing left to do.
//
// Thread safety: none; called with one connection before the store exists.
#pragma once

#include <span>

#include "core/clock.h"
#include "core/result.h"
#include "store/migrations.h"
#include "store/postgres_db.h"

namespace diagd::store {

// The advisory lock key the migrations hold: "diagd" in ASCII.
inline constexpr long long kPostgresMigrationLock = 0x6469616764LL;

// The PostgreSQL steps, oldest first. Append only.
std::span<const Migration> PostgresRunStoreMigrations();

// Brings the connection's database (its current schema) to the last version
// of `steps`, under the advisory lock. FAILED_PRECONDITION for a newer or
// foreign schema; UNAVAILABLE when the server fails.
Status ApplyPostgresMigrations(PgConn& conn, std::span<const Migration> steps,
                               const Clock& clock);

// The highest applied version, 0 when there is no schema_migrations table.
Result<int> PostgresSchemaVersion(PgConn& conn);

}  // namespace diagd::store
