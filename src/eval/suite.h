// A `diagd eval` suite (docs/eval.md): a folder whose subfolders holding
// an incident.toml are its incidents, run in name order, `jobs` at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "config/incident.h"
#include "core/clock.h"
#include "core/result.h"
#include "eval/score.h"

namespace diagd::eval {

// An incident whose workspace is not on this machine (a suite over
// ../shared/data on a clone without it): not run, not scored, named.
struct SkippedIncident {
  std::string name;
  std::string reason;  // "the logs folder /x/y does not exist"
};

struct Suite {
  std::string name;  // the folder's name
  std::vector<config::Incident> incidents;
  std::vector<SkippedIncident> skipped;
};

// Every incident of `dir` read over `base`, sorted by name; with `only`,
// just those (each must exist). An incident's documents, logs and SQLite
// paths must lie inside its folder or one of `data_roots` (symlinks and
// ".." resolved). An incident whose documents or logs folder or SQLite file
// is missing is skipped. INVALID_ARGUMENT names the file, line and key of
// the first incident that does not read, a path that leaves its folder, or
// the unknown name, or a suite with no incident at all.
Result<Suite> LoadSuite(const std::filesystem::path& dir, const config::Config& base,
                        const std::vector<std::string>& only,
                        const std::vector<std::filesystem::path>& data_roots = {});

struct SuiteRun {
  std::vector<IncidentScore> scores;  // in the suite's order
  std::int64_t elapsed_ms = 0;        // the whole suite's wall time
};

// Called as each incident ends (from the worker that ran it, one at a
// time): its score, how many have ended, and how many there are.
using ProgressFn = std::function<void(const IncidentScore&, int done, int total)>;

// Each incident's run store and index live in a folder of `scratch_root`.
SuiteRun RunSuite(const Suite& suite, int jobs, const Clock& clock,
                  const std::filesystem::path& scratch_root, const ProgressFn& progress);

}  // namespace diagd::eval
