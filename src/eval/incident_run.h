// One incident of a `diagd eval` suite, run as `diagd ask` would run its
// question (the router decides the route), in a workspace of its own: a
// temporary run store and documents index (eval/scratch.h), removed
// afterwards.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "app/chat_result.h"
#include "app/run_store.h"
#include "config/incident.h"
#include "core/clock.h"

namespace diagd::eval {

struct IncidentRun {
  const config::Incident* incident = nullptr;
  // Both set once the run released something; `record` is the stored run.
  std::optional<app::ChatResult> result;
  std::optional<app::RunRecord> record;
  // Why there is no result (the workspace could not be opened, the store
  // failed): for the report, in diagd's own words.
  std::string error;
  std::int64_t wall_ms = 0;
};

// Runs `incident` in a folder of its own inside `scratch_root` (removed
// afterwards); never throws. `clock` must be safe for concurrent use.
IncidentRun RunIncident(const config::Incident& incident, const Clock& clock,
                        const std::filesystem::path& scratch_root);

}  // namespace diagd::eval
