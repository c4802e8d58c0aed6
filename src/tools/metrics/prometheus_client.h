// The Prometheus backend of query_metrics: one GET of Prometheus's range
// query API per call, and a census of the metric names for `diagd check`.
// Anything that serves that API works (Prometheus, VictoriaMetrics, Thanos).
//
// Read-only by construction: the only requests ever sent are
//   GET {url}/api/v1/query_range?query=&start=&end=&step=&timeout=
//   GET {url}/api/v1/label/__name__/values?start=&end=       (Census only)
// with `Authorization: Bearer` when a token is set. The range ends at the
// run's `now`.
//
// Failures: no connection, or an answer that is not Prometheus's JSON ->
// TOOL_UNAVAILABLE; no answer in time (ours or the server's) -> TOOL_TIMEOUT;
// the server refusing the query -> QUERY_FAILED with its own message,
// bounded; an answer above kMaxResponseBytes -> QUERY_FAILED asking for a
// narrower query. Neither the URL's credentials nor the token ever reach a
// message.
//
// Thread safety: `Query` and `Census` are safe for concurrent use.
#pragma once

#include <cstddef>
#include <stop_token>
#include <string>

#include "core/clock.h"
#include "core/result.h"
#include "tools/metrics/metrics_section.h"
#include "tools/metrics/metrics_types.h"
#include "tools/tool_adapter.h"

namespace diagd::tools::metrics {

// The largest answer read; a larger one is a query too wide to show anyway.
inline constexpr std::size_t kMaxResponseBytes = 4 * 1024 * 1024;

struct MetricsOutput {
  MetricsResult result;
  std::string raw_response;  // the body as received; the boundary caps it
};

struct MetricsCensus {
  std::size_t names = 0;  // metric names served over the range
};

// `url` present and http(s); lookbacks, series, points and timeout at least
// 1; the default lookback within the maximum, the maximum within
// kMaxLookbackMinutes. Messages name the field.
Status ValidateSettings(const MetricsSettings& settings);

class PrometheusClient {
 public:
  // `clock` gives the monotonic time deadlines are measured on; it must
  // outlive the client.
  PrometheusClient(MetricsSettings settings, const Clock& clock);

  // The range query `request` over the lookback ending at `now`, at most
  // max_points points a series: the newest point falls on `now` itself.
  // Abandoned once `cancel` is requested (TOOL_UNAVAILABLE).
  Result<MetricsOutput, AdapterFailure> Query(const MetricsRequest& request, WallTime now,
                                              MonoTime deadline,
                                              const std::stop_token& cancel = {}) const;

  // The metric names served over the maximum lookback ending at `now`. A
  // failure's message is for the operator (never the URL or the token).
  Result<MetricsCensus, AdapterFailure> Census(WallTime now, MonoTime deadline) const;

  const MetricsRules& rules() const { return settings_.rules; }
  // The URL without credentials, for `diagd check` and logs.
  std::string RedactedUrl() const;

 private:
  struct Answer {
    int status = 0;
    std::string body;
  };
  Result<Answer, AdapterFailure> Get(const std::string& path_and_query, MonoTime deadline,
                                     const std::stop_token& cancel) const;

  const MetricsSettings settings_;
  const std::string base_;  // the URL without a trailing '/'
  const Clock& clock_;
};

}  // namespace diagd::tools::metrics
