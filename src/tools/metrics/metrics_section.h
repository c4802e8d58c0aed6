// [tools.metrics]: query_metrics over anything that serves Prometheus's
// HTTP query API (tool_section.h). The tool is offered only where this
// table is present.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "tools/metrics/metrics_types.h"
#include "tools/tool_section.h"

namespace diagd::tools::metrics {

struct QueryMetrics;  // the face (metrics_tool.h)

// The longest lookback a configuration may allow: ten years, whose seconds
// still fit an int.
inline constexpr int kMaxLookbackMinutes = 10 * 365 * 24 * 60;

struct MetricsToolConfig {
  std::string url;                    // http(s), required
  std::string bearer_token;           // a secret; sent as `Authorization: Bearer`
  int default_lookback_minutes = 60;  // <= max_lookback_minutes
  int max_lookback_minutes = 1440;    // at most kMaxLookbackMinutes
  int max_series = 10;
  int max_points = 60;  // per series
  int timeout_ms = 10000;
};

struct MetricsSection {
  using Face = QueryMetrics;
  using Catalog = MetricsCatalog;
  using Limits = MetricsLimits;
  static constexpr const char* kTable = "metrics";

  std::optional<MetricsToolConfig> metrics;  // set where the file has the table

  static void Read(config::internal::TableReader& table, MetricsSection& out);
  static void ResolvePaths(const std::filesystem::path&, MetricsSection&) {}
  static std::vector<LocalPath> LocalPaths(const MetricsSection&) { return {}; }
  // url is required; the default lookback within the maximum.
  static void CheckRules(const MetricsSection& section, const config::internal::KeyLocations& at,
                         config::internal::Problems& problems);
};

}  // namespace diagd::tools::metrics
