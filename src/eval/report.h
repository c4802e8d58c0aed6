// What `diagd eval` prints and writes (docs/eval.md): the table with
// totals, the one JSON document of --json, the self-contained HTML report
// of --report, and the progress line per incident on stderr.
#pragma once

#include <cstdint>
#include <string>

#include "eval/score.h"
#include "eval/suite.h"

namespace diagd::eval {

struct SuiteReport {
  std::string suite;  // the suite folder's name
  std::string model;  // the diagnosis agent's model label
  const SuiteRun& run;
  SuiteTotals totals;
  const std::vector<SkippedIncident>& skipped;
};

// {"suite", "model", "incidents": [...], "totals": {...}}: the contract's
// keys (12.6, and 13.2's `verdict`, `cause_right` and verdict counts), plus
// per incident `missing_checks`, `failure_reason` and `stop_reason`, in
// totals `tool_calls`, `model_calls`, `total_tokens` and `elapsed_ms`, and
// `skipped`: [{"name", "reason"}].
std::string ReportJson(const SuiteReport& report);
// One row per incident and a totals row, in columns.
std::string ReportTable(const SuiteReport& report);
// One HTML page: no script, no external asset, every text escaped.
std::string ReportHtml(const SuiteReport& report);
// "12.3 s": a wall time as the table and the report show it.
std::string FormatSeconds(std::int64_t ms);
// "[3/16] name  RIGHT  DIAGNOSIS  tools 4  model 6  tokens 1234  12.3 s"
std::string ProgressLine(const IncidentScore& score, int done, int total);

}  // namespace diagd::eval
