// Schema migrations of the SQLite run store (docs/run-store.md).
//
// The database records every step it has taken in `schema_migrations`
// (version, name, applied_at). Opening applies, in order and each in its own
// transaction, only the steps whose version is missing. A database that
// already holds a version this build does not know was written by a newer
// diagd: it is refused, untouched, so an older binary never half-upgrades or
// misreads it. A SQLite file that belongs to another application is refused
// too, so a mistyped path never grows diagd tables inside someone's data.
//
// Thread safety: none; called under the store's lock. Two processes opening
// the same file at once are safe: each step re-checks its version inside
// its write transaction.
#pragma once

#include <cstdint>
#include <span>

#include "core/clock.h"
#include "core/result.h"
#include "store/sqlite_db.h"

namespace diagd::store {

struct Migration {
  int version = 0;             // 1, 2, 3... with no gaps
  const char* name = nullptr;  // what the step does, kept in schema_migrations
  const char* sql = nullptr;   // constant DDL; runs inside the step's transaction
};

// Written into the SQLite header (PRAGMA application_id) by the first step:
// "diag" in ASCII.
inline constexpr std::int32_t kRunStoreApplicationId = 0x64696167;

// The run store's steps, oldest first. Append only: a released step is
// never edited, a change is a new step.
std::span<const Migration> RunStoreMigrations();

// Brings `db` to the last version of `steps`. FAILED_PRECONDITION when the
// database is newer than `steps` or belongs to another application;
// UNAVAILABLE when SQLite fails (including a file that is no database).
Status ApplyMigrations(SqliteDb& db, std::span<const Migration> steps, const Clock& clock);

// What ApplyMigrations would refuse, found without writing: a database
// newer than `steps`, or one that belongs to another application.
Status CheckMigratable(SqliteDb& db, std::span<const Migration> steps);

// The highest applied version, 0 for a database without migrations.
Result<int> SchemaVersion(SqliteDb& db);

}  // namespace diagd::store
