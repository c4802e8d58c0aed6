// `diagd check` (docs/check.md): opens every backend of a valid
// configuration and says what it found, sends one small tool-calling request
// to each distinct model endpoint, and names each problem with one line
// saying what to change (misconfigurations.h). Start here.
//
// The configuration itself is loaded and validated by the caller (a config
// error is exit 2 before anything here runs); everything found after that is
// a check: a row with `ok` and, when not ok, its advice. Nothing here writes
// anywhere but the documents index cache (which the first search would
// build anyway); no API key or bearer token appears in any row.
//
// Thread safety: `RunChecks` may run concurrently with itself; a
// CheckProgress is called from the calling thread only.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "core/clock.h"
#include "tools/tool_check.h"

namespace diagd::check {

// One row of the report (tools/tool_check.h): `part` is "config", a tool's
// ("documents", "logs", "datasource", "metrics"), "store" or "model".
using CheckItem = tools::CheckRow;

struct CheckReport {
  std::vector<CheckItem> checks;
  // Every check is ok.
  bool ok() const;
};

// Told of each part before it is checked (for progress on stderr).
class CheckProgress {
 public:
  virtual ~CheckProgress() = default;
  virtual void OnChecking(std::string_view part, std::string_view name) = 0;
};

struct CheckOptions {
  // The config's origin for the first row: the file, or "(defaults)".
  std::string config_source;
  // The environment the config was loaded with: advice names
  // DIAGD_MODEL_* where the value came from there.
  config::Environment environment;
  bool probe_models = true;  // false: --no-model
  // A model probe waits at most this long (or the endpoint's own
  // timeout_seconds when shorter).
  std::chrono::milliseconds max_model_timeout{15000};
  // Building the documents index, reading one topic file: at most this long.
  std::chrono::milliseconds max_backend_time{120000};
};

// The rows, in order: config; each registered tool's (documents, logs: the
// folder then one per topic, each datasource, metrics when configured); the
// run store and Redis (when configured); each model endpoint. `clock` must be a real
// clock: deadlines and latencies are measured with it.
CheckReport RunChecks(const config::Config& config, const CheckOptions& options, const Clock& clock,
                      CheckProgress* progress);

// `{"ok": bool, "checks": [{"part", "name", "ok", "detail", "advice"}]}`,
// one line, advice "" when there is none.
std::string ReportJson(const CheckReport& report);
// A table with a header line and one line per check (PART NAME OK DETAIL
// ADVICE), columns aligned, for a terminal.
std::string ReportTable(const CheckReport& report);

}  // namespace diagd::check
