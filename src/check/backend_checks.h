// The backend part of `diagd check` (docs/check.md): each tool's
// backend opened from the configuration as a run would open it, and asked
// what it holds.
//
// The http documents and MySQL/SQLite adapters come from wiring/ as a run
// opens them; the local documents and logs adapters are opened here, as
// their census needs them. Unlike OpenToolSet each is opened on its own, so
// that one broken backend is a row of the report, not the end of the check.
//
// Thread safety: pure functions apart from the reads they make (and the
// documents index they bring up to date).
#pragma once

#include <chrono>
#include <vector>

#include "check/check.h"
#include "config/config.h"
#include "core/clock.h"

namespace diagd::check {

// Local: the Markdown files under tools.documents.path and the sections
// indexed, after bringing the index up to date (within `max_time`). Http:
// whether tools.documents.url answers a small query with the documents
// shape. One row.
CheckItem CheckDocuments(const config::Config& config, const Clock& clock,
                         std::chrono::milliseconds max_time);

// A row for tools.logs.path (the topics found), then one per topic: its
// event count and time range, and whether a query can reach them from now
// (the configured `now`, else the clock's). Each topic file is read within
// `max_time`.
std::vector<CheckItem> CheckLogs(const config::Config& config, const Clock& clock,
                                 std::chrono::milliseconds max_time, CheckProgress* progress);

// One row per configured datasource: reachable, read-only enforced (a
// harmless write refused), number of tables and views; one row saying there
// is none when none is configured.
// One row for [tools.metrics] where it is configured: the endpoint answers
// the query API, and how many metric names it serves over the maximum
// lookback ending at now (GET /api/v1/label/__name__/values only).
std::vector<CheckItem> CheckMetrics(const config::Config& config, const Clock& clock,
                                    std::chrono::milliseconds max_time);

std::vector<CheckItem> CheckDatasources(const config::Config& config, const Clock& clock,
                                        std::chrono::milliseconds max_time,
                                        CheckProgress* progress);

}  // namespace diagd::check
