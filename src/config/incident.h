// One incident of a `diagd eval` suite (docs/eval.md): its
// incident.toml read over the team's configuration. The file holds the
// question, its language, an optional fixed clock, the workspace (the
// [tools] tables, paths relative to the incident's folder) and [expect]:
// what a right run releases. docs/eval.md has the format.
//
// The team's configuration gives everything else (the model, the harness,
// the limits). The incident's workspace replaces the team's tools whole, so
// no datasource or log folder of the team's own leaks into an incident.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "core/result.h"

namespace diagd::config {

enum class ExpectedOutcome { kDiagnosis, kFallback, kAnswer };
const char* ExpectedOutcomeName(ExpectedOutcome outcome);  // "DIAGNOSIS"...

struct IncidentExpectation {
  ExpectedOutcome outcome = ExpectedOutcome::kDiagnosis;
  // "INSUFFICIENT_EVIDENCE", "MISSING_REQUIRED_CONTEXT" or "FAILED".
  std::optional<std::string> fallback_code;
  // Phrases naming the mechanism (what is failing), of which at least one
  // must be in a released root cause (required, non-empty, when the
  // outcome is DIAGNOSIS).
  std::vector<std::string> root_cause_any;
  // Phrases naming the cause (the change, the expiry, the limit: why it
  // happened), of which at least one must be in the root cause too. Only
  // with DIAGNOSIS; empty when the incident does not check the cause.
  std::vector<std::string> cause_any;
  // Tool names ("query_logs"...) the investigation must have used.
  std::vector<std::string> must_check;
};

struct Incident {
  std::string name;  // the folder's name
  std::filesystem::path dir;
  std::string question;
  // `base` with the incident's language, clock and workspace.
  Config config;
  IncidentExpectation expect;
};

// Reads `dir`/incident.toml over `base`. Errors name the file, the line
// and the key, as the configuration's do; an unknown key or table is one.
Result<Incident> LoadIncident(const std::filesystem::path& dir, const Config& base);

// The same for `text`, the incident file of the folder `dir` (absolute and
// normal); relative paths resolve against `dir`.
Result<Incident> ParseIncident(std::string_view text, const std::filesystem::path& dir,
                               const Config& base);

}  // namespace diagd::config
