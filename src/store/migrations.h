// Schema migrations of the run stores (docs/run-store.md): the one
// algorithm both stores run, over the few things each database does in its
// own SQL (SchemaTarget).
//
// The database records every step it has taken in `schema_migrations`
// (version, name, applied_at). Opening applies, in order and each in its own
// transaction, only the steps whose version is missing. A database that
// already holds a version this build does not know was written by a newer
// diagd: it is refused, untouched, so an older binary never half-upgrades or
// misreads it. A database that belongs to another application is refused
// too, so a mistyped location never grows diagd tables inside someone's
// data.
//
// Thread safety: none; the caller holds the database alone. Two processes
// migrating the same database at once are safe: each step re-checks the
// version inside its write transaction.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "core/clock.h"
#include "core/result.h"

namespace diagd::store {

struct Migration {
  int version = 0;             // 1, 2, 3... with no gaps
  const char* name = nullptr;  // what the step does, kept in schema_migrations
  const char* sql = nullptr;   // constant DDL; runs inside the step's transaction
};

// One database as the migration runner sees it. Errors as the store's own:
// UNAVAILABLE when the database fails.
class SchemaTarget {
 public:
  virtual ~SchemaTarget() = default;
  // The highest applied version, 0 when there is no schema_migrations table.
  virtual Result<int> SchemaVersion() = 0;
  // Whether a database without schema_migrations may become a run store:
  // FAILED_PRECONDITION when it holds what is not diagd's.
  virtual Status CheckOwnership() = 0;
  // Creates schema_migrations (version, name, applied_at) when missing.
  virtual Status CreateVersionTable() = 0;
  // Runs `body` in one write transaction, committed when it returns OK and
  // rolled back otherwise.
  virtual Status InTransaction(const std::function<Status()>& body) = 0;
  // Runs a step's constant DDL.
  virtual Status Exec(const char* sql) = 0;
  // Adds the row for `step`, applied at `applied_at` (RFC 3339).
  virtual Status RecordVersion(const Migration& step, const std::string& applied_at) = 0;
};

// Brings `db` to the last version of `steps`. FAILED_PRECONDITION when the
// database is newer than `steps` or belongs to another application.
Status ApplyMigrations(SchemaTarget& db, std::span<const Migration> steps, const Clock& clock);

// What ApplyMigrations would refuse, found without writing: a database
// newer than `steps`, or one that belongs to another application.
Status CheckMigratable(SchemaTarget& db, std::span<const Migration> steps);

}  // namespace diagd::store
