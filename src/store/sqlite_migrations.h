// The SQLite run store's schema steps and its side of the migration runner
// (migrations.h). A SQLite file is diagd's by its header (PRAGMA
// application_id), or when it holds no tables at all.
//
// Thread safety: none; called under the store's lock.
#pragma once

#include <cstdint>
#include <span>

#include "core/clock.h"
#include "core/result.h"
#include "store/migrations.h"
#include "store/sqlite_db.h"

namespace diagd::store {

// Written into the SQLite header (PRAGMA application_id) by the first step:
// "diag" in ASCII.
inline constexpr std::int32_t kRunStoreApplicationId = 0x64696167;

// The run store's steps, oldest first. Append only: a released step is
// never edited, a change is a new step.
std::span<const Migration> RunStoreMigrations();

// ApplyMigrations on `db`; UNAVAILABLE when SQLite fails (including a file
// that is no database).
Status ApplyMigrations(SqliteDb& db, std::span<const Migration> steps, const Clock& clock);

// CheckMigratable on `db`, without writing.
Status CheckMigratable(SqliteDb& db, std::span<const Migration> steps);

// The highest applied version, 0 for a database without migrations.
Result<int> SchemaVersion(SqliteDb& db);

}  // namespace diagd::store
