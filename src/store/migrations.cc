#include "store/migrations.h"

namespace diagd::store {
namespace {

int Known(std::span<const Migration> steps) { return steps.empty() ? 0 : steps.back().version; }

Status RefuseNewer(int found, int known) {
  if (found <= known) return OkStatus();
  return Error::FailedPrecondition(
      "run store: the database has schema version " + std::to_string(found) +
      ", newer than this diagd knows (" + std::to_string(known) +
      "); refusing to touch it (upgrade diagd, or point storage.runs elsewhere)");
}

Status ApplyStep(SchemaTarget& db, const Migration& step, int known, const Clock& clock) {
  return db.InTransaction([&]() -> Status {
    // Another process may have migrated since we looked: decide again under
    // the write lock.
    Result<int> current = db.SchemaVersion();
    if (!current) return current.error();
    if (Status newer = RefuseNewer(*current, known); !newer) return newer;
    if (*current >= step.version) return OkStatus();  // nothing written
    if (*current != step.version - 1) {
      return Error::Internal("run store: migration steps are not consecutive");
    }
    if (Status ran = db.Exec(step.sql); !ran) return ran;
    return db.RecordVersion(step, FormatRfc3339Millis(clock.Now()));
  });
}

}  // namespace

Status CheckMigratable(SchemaTarget& db, std::span<const Migration> steps) {
  Result<int> current = db.SchemaVersion();
  if (!current) return current.error();
  if (Status newer = RefuseNewer(*current, Known(steps)); !newer) return newer;
  return *current == 0 ? db.CheckOwnership() : OkStatus();
}

Status ApplyMigrations(SchemaTarget& db, std::span<const Migration> steps, const Clock& clock) {
  int known = Known(steps);
  Result<int> current = db.SchemaVersion();
  if (!current) return current.error();
  // A newer database is refused before anything else, ownership included:
  // a later diagd may have changed its header.
  if (Status newer = RefuseNewer(*current, known); !newer) return newer;
  if (*current == known) return OkStatus();
  if (*current == 0) {
    if (Status ours = db.CheckOwnership(); !ours) return ours;
    if (Status created = db.CreateVersionTable(); !created) return created;
  }
  for (const Migration& step : steps) {
    if (step.version <= *current) continue;
    if (Status applied = ApplyStep(db, step, known, clock); !applied) return applied;
  }
  return OkStatus();
}

}  // namespace diagd::store
