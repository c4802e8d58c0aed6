// query_metrics' part of `diagd check`: where [tools.metrics] is configured,
// one row: the endpoint answers the query API, and how many metric names it
// serves over the maximum lookback ending at now (GET
// /api/v1/label/__name__/values only).
#include "config/config.h"
#include "http/http_client.h"
#include "tools/metrics/metrics_adapter.h"
#include "tools/metrics/metrics_tool.h"

namespace diagd::tools::metrics {
namespace {

// The advice table, in docs/check.md's order; the enum indexes it.
enum Misconfiguration { kUnreachable, kNoNames };
constexpr AdviceEntry kAdvice[] = {
    {"METRICS_UNREACHABLE", "metrics", "tools.metrics.url does not answer Prometheus's query API",
     "point tools.metrics.url at the base of a Prometheus-compatible API (the part before "
     "/api/v1), and check bearer_token ({reason})"},
    {"METRICS_NO_NAMES", "metrics",
     "the endpoint answers but serves no metric over the configured lookback",
     "check that the endpoint holds data up to now (or the configured now) and "
     "tools.metrics.max_lookback_minutes"},
};

}  // namespace

std::vector<CheckRow> QueryMetrics::Check(const CheckContext& context) {
  const auto& metrics = context.config.tools.metrics;
  if (!metrics) return {};
  std::string url = http::RedactUrl(metrics->url);
  context.Announce("metrics", url);
  CheckRow row{"metrics", url, true, "", ""};
  auto adapter = MetricsAdapter::Open(SettingsFrom(*metrics), context.config.now, context.clock);
  if (!adapter) {
    return {Problem(row, adapter.error().message, kAdvice[kUnreachable],
                    {{"reason", adapter.error().message}})};
  }
  const auto& client = (*adapter)->client();
  auto census = client.Census((*adapter)->Now(), context.clock.Monotonic() + context.max_time);
  if (!census) {
    return {Problem(row, "not reachable: " + census.error().message, kAdvice[kUnreachable],
                    {{"reason", census.error().message}})};
  }
  row.detail = "reachable, " + Plural(census->names, "metric name", "metric names") +
               " over the last " + std::to_string(client.rules().max_lookback_minutes) + " min";
  if (census->names == 0) return {Problem(row, row.detail, kAdvice[kNoNames], {})};
  return {row};
}

std::span<const AdviceEntry> QueryMetrics::Advice() { return kAdvice; }

}  // namespace diagd::tools::metrics
