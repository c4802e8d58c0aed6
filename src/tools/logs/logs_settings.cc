// query_logs' settings from [tools.logs]. The topics are the backend's to
// list (logs_backend.cc).
#include "config/config.h"
#include "tools/logs/logs_tool.h"
#include "tools/tool_boundary.h"

namespace diagd::tools::logs {

void QueryLogs::ConfigureCatalog(const config::ToolsConfig& tools, CatalogOptions& catalog) {
  catalog.logs.default_lookback_minutes = tools.logs.default_lookback_minutes;
  catalog.logs.max_lookback_minutes = tools.logs.max_lookback_minutes;
}

void QueryLogs::ConfigureBoundary(const config::ToolsConfig& tools, BoundaryOptions& boundary) {
  boundary.timeouts[kName] = std::chrono::milliseconds(tools.logs.timeout_ms);
  boundary.limits.max_events = static_cast<std::size_t>(tools.logs.max_events);
  boundary.limits.max_message_chars = static_cast<std::size_t>(tools.logs.max_message_chars);
}

}  // namespace diagd::tools::logs
