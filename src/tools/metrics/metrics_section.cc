#include "tools/metrics/metrics_section.h"

#include "config/toml_reader.h"

namespace diagd::tools::metrics {

using namespace config::internal;

void MetricsSection::Read(TableReader& table, MetricsSection& out) {
  MetricsToolConfig& metrics = out.metrics.emplace();
  // "prometheus" names the API (Prometheus, VictoriaMetrics, Thanos serve it).
  table.ReadChoice("backend", {"prometheus"});
  table.Read("url", metrics.url, CheckOptionalHttpUrl);
  table.Read("bearer_token", metrics.bearer_token, CheckSecret);
  table.Read("default_lookback_minutes", metrics.default_lookback_minutes, 1, kMaxLookbackMinutes);
  table.Read("max_lookback_minutes", metrics.max_lookback_minutes, 1, kMaxLookbackMinutes);
  table.Read("max_series", metrics.max_series, 1, 1000);
  table.Read("max_points", metrics.max_points, 1, 10000);
  table.Read("timeout_ms", metrics.timeout_ms);
  table.RejectUnknownKeys();
}

void MetricsSection::CheckRules(const MetricsSection& section, const KeyLocations& at,
                                Problems& problems) {
  if (!section.metrics) return;
  CheckLookback("tools.metrics", section.metrics->default_lookback_minutes,
                section.metrics->max_lookback_minutes, at, problems);
  if (section.metrics->url.empty()) {
    problems.Add(at.Label("tools.metrics"),
                 "requires url (the http:// or https:// base of the Prometheus query API)");
  }
}

}  // namespace diagd::tools::metrics
