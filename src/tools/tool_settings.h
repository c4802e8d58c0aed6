// The tools' settings taken from the validated configuration: one place
// where config keys become catalog rules, result bounds and boundary limits.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "tools/tool_boundary.h"
#include "tools/tool_catalog.h"

namespace diagd::tools {

// `known_topics`: the log topics found under tools.logs.path (empty when not
// known; any plain name is then accepted and the backend answers for it).
CatalogOptions CatalogOptionsFrom(const config::Config& config,
                                  std::vector<std::string> known_topics);

// Timeouts per tool, attempts, and the final result bounds. Rows and cell
// sizes are per datasource; the boundary applies the largest, so each
// datasource's own (smaller) bound is enforced by its backend.
BoundaryOptions BoundaryOptionsFrom(const config::Config& config);

// What query_metrics' backend is opened with.
metrics::MetricsSettings MetricsSettingsFrom(const config::MetricsToolConfig& config);

}  // namespace diagd::tools
