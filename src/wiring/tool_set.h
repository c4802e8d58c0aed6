// The tools a diagd process opens from its configuration: the adapters of
// the three tools (local or http documents, local logs, SQLite/MariaDB
// datasources), the canonical store, the catalog offered to models (with the
// topics found under tools.logs.path, listed again at most every
// `kTopicListingInterval`), and the boundary in front of them.
// wiring/ is the one place that names concrete implementations; cli/ and
// server/ call it.
//
// Thread safety: everything in a ToolSet is shared by concurrent runs and
// safe for concurrent use.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "config/config.h"
#include "core/clock.h"
#include "core/result.h"
#include "tools/canonical_store.h"
#include "tools/documents/local_documents_adapter.h"
#include "tools/logs/local_logs_adapter.h"
#include "tools/metrics/metrics_adapter.h"
#include "tools/tool_adapter.h"
#include "tools/tool_boundary.h"
#include "tools/tool_catalog.h"

namespace diagd::wiring {

// A topic file added to tools.logs.path is offered this long after, at most.
inline constexpr std::chrono::seconds kTopicListingInterval{5};

struct ToolSet {
  std::vector<std::unique_ptr<tools::ToolAdapter>> adapters;  // owned; the boundary borrows
  std::unique_ptr<tools::CanonicalInvocationStore> canonical_store;
  std::unique_ptr<tools::ToolCatalog> catalog;
  std::unique_ptr<tools::ToolBoundary> boundary;
};

// INVALID_ARGUMENT naming the key when a configured folder or URL cannot be
// used (the caller exits 2); nothing is searched or indexed yet.
Result<std::unique_ptr<ToolSet>> OpenToolSet(const config::Config& config, const Clock& clock);

// One tool's adapter as OpenToolSet opens it, for a caller that probes the
// backends one at a time (`diagd check`). The error is the adapter's own,
// without the key.
Result<std::unique_ptr<tools::ToolAdapter>> OpenDocumentsAdapter(const config::Config& config,
                                                                 const Clock& clock);
Result<std::unique_ptr<tools::ToolAdapter>> OpenMysqlAdapter(const config::Config& config);
// The local backends as their own types, for the census `diagd check` takes
// of them (the index it builds, the topics it lists). `refresh_interval`:
// how often a search looks at the tree again (check: 0, every time).
Result<std::unique_ptr<tools::documents::LocalDocumentsAdapter>> OpenLocalDocumentsAdapter(
    const config::Config& config, const Clock& clock,
    std::chrono::milliseconds refresh_interval = std::chrono::milliseconds(2000));
Result<std::unique_ptr<tools::logs::LocalLogsAdapter>> OpenLocalLogsAdapter(
    const config::Config& config, const Clock& clock);
// query_metrics' backend, where [tools.metrics] is configured (otherwise
// FAILED_PRECONDITION); its client takes the census `diagd check` reports.
Result<std::unique_ptr<tools::metrics::MetricsAdapter>> OpenMetricsAdapter(
    const config::Config& config, const Clock& clock);

}  // namespace diagd::wiring
