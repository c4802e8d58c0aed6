#include "tools/tool_settings.h"

#include <algorithm>

namespace diagd::tools {

CatalogOptions CatalogOptionsFrom(const config::Config& config,
                                  std::vector<std::string> known_topics) {
  CatalogOptions options;
  std::sort(known_topics.begin(), known_topics.end());
  options.logs.topics = std::move(known_topics);
  options.logs.default_lookback_minutes = config.tools.logs.default_lookback_minutes;
  options.logs.max_lookback_minutes = config.tools.logs.max_lookback_minutes;
  for (const auto& datasource : config.tools.datasources) {
    options.mysql.datasources.push_back(datasource.name);
    bool sqlite = datasource.url.rfind("sqlite:", 0) == 0;
    options.mysql.dialects.push_back(sqlite ? "SQLite" : "MySQL");
  }
  if (config.tools.metrics) options.metrics = MetricsSettingsFrom(*config.tools.metrics).rules;
  options.english = config.language == config::Language::kEn;
  return options;
}

metrics::MetricsSettings MetricsSettingsFrom(const config::MetricsToolConfig& config) {
  metrics::MetricsSettings settings;
  settings.url = config.url;
  settings.bearer_token = config.bearer_token;
  settings.rules.default_lookback_minutes = config.default_lookback_minutes;
  settings.rules.max_lookback_minutes = config.max_lookback_minutes;
  settings.rules.max_series = static_cast<std::size_t>(config.max_series);
  settings.rules.max_points = static_cast<std::size_t>(config.max_points);
  settings.timeout_ms = config.timeout_ms;
  return settings;
}

BoundaryOptions BoundaryOptionsFrom(const config::Config& config) {
  BoundaryOptions options;
  const auto& tools = config.tools;
  options.max_attempts = tools.max_attempts;
  options.timeouts[tools::documents::kSearchDocuments] = std::chrono::milliseconds(tools.documents.timeout_ms);
  options.timeouts[tools::logs::kQueryLogs] = std::chrono::milliseconds(tools.logs.timeout_ms);
  int mysql_timeout = 0;
  if (!tools.datasources.empty()) {
    options.limits.max_rows = 0;
    options.limits.max_cell_chars = 0;
  }
  for (const auto& datasource : tools.datasources) {
    mysql_timeout = std::max(mysql_timeout, datasource.timeout_ms);
    options.limits.max_rows =
        std::max(options.limits.max_rows, static_cast<std::size_t>(datasource.max_rows));
    options.limits.max_cell_chars = std::max(options.limits.max_cell_chars,
                                             static_cast<std::size_t>(datasource.max_cell_chars));
  }
  if (mysql_timeout > 0) {
    options.timeouts[tools::mysql::kQueryMysql] = std::chrono::milliseconds(mysql_timeout);
  }
  options.limits.max_evidence = static_cast<std::size_t>(tools.documents.max_evidence);
  options.limits.max_excerpt_chars = static_cast<std::size_t>(tools.documents.max_excerpt_chars);
  options.limits.max_events = static_cast<std::size_t>(tools.logs.max_events);
  options.limits.max_message_chars = static_cast<std::size_t>(tools.logs.max_message_chars);
  if (tools.metrics) {
    options.timeouts[metrics::kQueryMetrics] = std::chrono::milliseconds(tools.metrics->timeout_ms);
    options.limits.max_series = static_cast<std::size_t>(tools.metrics->max_series);
    options.limits.max_points = static_cast<std::size_t>(tools.metrics->max_points);
  }
  return options;
}

}  // namespace diagd::tools
