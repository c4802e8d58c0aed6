// query_metrics' settings from [tools.metrics]; nothing where the table is
// absent (the tool is then not offered).
#include "config/config.h"
#include "tools/metrics/metrics_tool.h"
#include "tools/tool_boundary.h"

namespace diagd::tools::metrics {

MetricsSettings SettingsFrom(const MetricsToolConfig& config) {
  MetricsSettings settings;
  settings.url = config.url;
  settings.bearer_token = config.bearer_token;
  settings.rules.default_lookback_minutes = config.default_lookback_minutes;
  settings.rules.max_lookback_minutes = config.max_lookback_minutes;
  settings.rules.max_series = static_cast<std::size_t>(config.max_series);
  settings.rules.max_points = static_cast<std::size_t>(config.max_points);
  settings.timeout_ms = config.timeout_ms;
  return settings;
}

void QueryMetrics::ConfigureCatalog(const config::ToolsConfig& tools, CatalogOptions& catalog) {
  if (tools.metrics) catalog.metrics = SettingsFrom(*tools.metrics).rules;
}

void QueryMetrics::ConfigureBoundary(const config::ToolsConfig& tools, BoundaryOptions& boundary) {
  if (!tools.metrics) return;
  boundary.timeouts[kName] = std::chrono::milliseconds(tools.metrics->timeout_ms);
  boundary.limits.max_series = static_cast<std::size_t>(tools.metrics->max_series);
  boundary.limits.max_points = static_cast<std::size_t>(tools.metrics->max_points);
}

}  // namespace diagd::tools::metrics
