// Prometheus's HTTP API answers read into query_metrics results
// (https://prometheus.io/docs/prometheus/latest/querying/api/): the
// `{"status": ...}` envelope, its error, and the matrix, vector and scalar
// result types. Pure: no I/O, so every shape an answer may take is tested
// without a server.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string_view>

#include "core/result.h"
#include "tools/metrics/metrics_types.h"
#include "tools/tool_adapter.h"

namespace diagd::tools::metrics {

// The most of Prometheus's own error text a QUERY_FAILED carries, an
// ellipsis included: what the tool boundary keeps of any message.
inline constexpr std::size_t kMaxErrorChars = 200;

// An answer of status `http_status` to GET /api/v1/query_range, bounded by
// `rules`: the first max_series series in the server's order, the newest
// max_points points of each (NaN and infinities counted in the summary,
// left out of the points). `status: "error"` is QUERY_FAILED with the
// server's message (errorType `timeout`: TOOL_TIMEOUT); anything that is not
// Prometheus's JSON is TOOL_UNAVAILABLE. The result's query, lookback and
// step are `request`'s.
Result<MetricsResult, AdapterFailure> ReadQueryRange(int http_status, std::string_view body,
                                                     const MetricsRequest& request,
                                                     const MetricsRules& rules);

// An answer to GET /api/v1/label/__name__/values: how many names it lists.
Result<std::size_t, AdapterFailure> ReadNameCount(int http_status, std::string_view body);

}  // namespace diagd::tools::metrics
