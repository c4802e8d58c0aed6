// query_metrics: the request, the result and the settings, as plain types.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/tool_types.h"

namespace diagd::tools::metrics {

inline constexpr ToolName kQueryMetrics{"query_metrics"};

// A query as it runs: the lookback and step after defaulting, clamping and
// raising (ParseInput), so the scope and the record name what was asked of
// the server.
struct MetricsRequest {
  std::string query;  // PromQL
  int lookback_minutes = 0;
  int step_seconds = 0;
};

struct MetricPoint {
  std::string time;  // RFC 3339, UTC, seconds
  double value = 0;  // always finite: JSON has no NaN or infinity
};

struct MetricSeries {
  // `__name__` first (when the series has one), then the others by name.
  std::vector<std::pair<std::string, std::string>> labels;
  std::string summary;              // SeriesSummary over every point received
  std::vector<MetricPoint> points;  // the newest at most max_points, oldest first
};

struct MetricsResult {
  EvidenceStatus evidence_status = EvidenceStatus::kNoEvidence;
  std::string tool_call_id;
  std::string query;
  int lookback_minutes = 0;
  int step_seconds = 0;
  std::vector<MetricSeries> series;  // at most max_series, in the server's order
  std::size_t returned_count = 0;    // series matched
  bool truncated = false;            // series or points were left out
};

struct MetricsRules {
  int default_lookback_minutes = 60;
  int max_lookback_minutes = 1440;
  std::size_t max_series = 10;
  std::size_t max_points = 60;  // per series
  bool operator==(const MetricsRules&) const = default;
};
// Its part of CatalogOptions (catalog_options.h): set where [tools.metrics]
// is configured, and the tool is offered only then.
struct MetricsCatalog {
  std::optional<MetricsRules> metrics;
  bool operator==(const MetricsCatalog&) const = default;
};
// Its bounds on a result, as a part of ResultLimits (tool_face.h).
struct MetricsLimits {
  std::size_t max_series = 10;
  std::size_t max_points = 60;  // per series
  bool operator==(const MetricsLimits&) const = default;
};

// What `[tools.metrics]` holds.
struct MetricsSettings {
  std::string url;           // required: the base of Prometheus's HTTP API
  std::string bearer_token;  // optional; a secret
  MetricsRules rules;
  int timeout_ms = 10000;  // one query, at most (the run's deadline may cut it shorter)
};

}  // namespace diagd::tools::metrics
