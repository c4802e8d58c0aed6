// Opening query_logs' local backend from [tools.logs] (the face's
// OpenBackend defines the catalog's topic refresh on top of it).
#pragma once

#include <memory>
#include <optional>

#include "core/clock.h"
#include "core/result.h"
#include "tools/logs/local_logs_adapter.h"
#include "tools/logs/logs_section.h"

namespace diagd::tools::logs {

// `now`: the configured fixed clock, if any. The error is the adapter's own,
// without the key.
Result<std::unique_ptr<LocalLogsAdapter>> OpenLocalAdapter(const LogsToolConfig& logs,
                                                           std::optional<WallTime> now,
                                                           const Clock& clock);

}  // namespace diagd::tools::logs
