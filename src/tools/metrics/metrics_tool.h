// query_metrics: business input rules, schema, scope and description.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstddef>
#include <string>

#include "tools/input_rules.h"
#include "tools/metrics/metrics_types.h"
#include "tools/scope.h"

namespace diagd::tools::metrics {

inline constexpr std::size_t kMaxQueryChars = 2000;

// `query` is 1..kMaxQueryChars code points, not blank. A missing lookback
// takes the default; one above the maximum is clamped to it; one below 1 is
// OUT_OF_RANGE. A missing step is the smallest whole number of seconds that
// keeps a series within max_points; an explicit one below that is raised to
// it, one above the whole lookback lowered to it, one below 1 is
// OUT_OF_RANGE.
InputResult<MetricsRequest> ParseInput(const boost::json::object& input, const MetricsRules& rules);
// The smallest step that keeps a series of `lookback_minutes` within
// `max_points` points.
int MinimumStepSeconds(int lookback_minutes, std::size_t max_points);
// Identity: the query normalized (NormalizePromql), the lookback and step.
Scope ScopeOf(const MetricsRequest& request);
boost::json::object InputSchema(const MetricsRules& rules);
boost::json::object RequestJson(const MetricsRequest& request);
// What the model reads about the tool, in Chinese or English.
std::string Description(const MetricsRules& rules, bool english);

}  // namespace diagd::tools::metrics
