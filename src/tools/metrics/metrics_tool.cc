#include "tools/metrics/metrics_tool.h"

#include <algorithm>
#include <boost/json.hpp>

#include "core/json.h"
#include "core/text.h"
#include "tools/metrics/promql_text.h"

namespace diagd::tools::metrics {

int MinimumStepSeconds(int lookback_minutes, std::size_t max_points) {
  const std::int64_t range = std::int64_t{lookback_minutes} * 60;
  const auto points = static_cast<std::int64_t>(std::max<std::size_t>(max_points, 1));
  return static_cast<int>(std::max<std::int64_t>((range + points - 1) / points, 1));
}

InputResult<MetricsRequest> ParseInput(const boost::json::object& input,
                                       const MetricsRules& rules) {
  if (auto keys = CheckKeys(input, {"query", "lookback_minutes", "step_seconds"}, {"query"});
      !keys) {
    return Unexpected(keys.error());
  }
  auto query = ReadString(input, "query", Blank::kRejected, kMaxQueryChars);
  if (!query) return Unexpected(query.error());
  auto lookback = ReadOptionalInteger(input, "lookback_minutes");
  if (!lookback) return Unexpected(lookback.error());
  std::int64_t minutes = lookback->value_or(rules.default_lookback_minutes);
  if (minutes < 1) return InputFailure(InputField("lookback_minutes"), "OUT_OF_RANGE");
  minutes = std::min<std::int64_t>(minutes, rules.max_lookback_minutes);
  auto step = ReadOptionalInteger(input, "step_seconds");
  if (!step) return Unexpected(step.error());
  if (*step && **step < 1) return InputFailure(InputField("step_seconds"), "OUT_OF_RANGE");
  const int least = MinimumStepSeconds(static_cast<int>(minutes), rules.max_points);
  // A step longer than the lookback gives one point, as a step of the whole
  // lookback does: one spelling for that range (and its seconds fit an int).
  std::int64_t seconds = std::clamp<std::int64_t>(step->value_or(least), least,
                                                  std::max<std::int64_t>(minutes * 60, least));
  return MetricsRequest{std::move(*query), static_cast<int>(minutes), static_cast<int>(seconds)};
}

Scope ScopeOf(const MetricsRequest& request) {
  boost::json::array identity{"query_metrics", NormalizePromql(request.query),
                              request.lookback_minutes, request.step_seconds};
  bool cut = false;
  std::string query = text::TruncateCodePoints(text::CollapseWhitespace(request.query), 80, &cut);
  std::string summary =
      query + (cut ? "…" : "") + " (" + std::to_string(request.lookback_minutes) + "m)";
  return {json::Canonical(identity), std::move(summary)};
}

boost::json::object InputSchema(const MetricsRules& rules) {
  return {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"query"}},
      {"properties",
       {{"query", {{"type", "string"}, {"minLength", 1}, {"maxLength", kMaxQueryChars}}},
        {"lookback_minutes",
         {{"type", "integer"}, {"minimum", 1}, {"default", rules.default_lookback_minutes}}},
        {"step_seconds", {{"type", "integer"}, {"minimum", 1}}}}},
  };
}

boost::json::object RequestJson(const MetricsRequest& request) {
  return {{"query", request.query},
          {"lookback_minutes", request.lookback_minutes},
          {"step_seconds", request.step_seconds}};
}

// Like every tool's description, it says what the tool is for and never
// how much it returns (no bounds, counters or budgets reach the model).
std::string Description(const MetricsRules&, bool english) {
  if (english) {
    return "Run one read-only PromQL range query on Prometheus; the range ends now and reaches "
           "back lookback_minutes. Returns the matching series, each with its labels, a summary "
           "line (first, last, minimum and maximum value, and when the largest change happened) "
           "and its points. step_seconds is the spacing of the points (by default chosen to "
           "fit). A metric shows what changed and when, rarely why: look for the cause in logs, "
           "documents or the database.";
  }
  return "在 Prometheus 上执行一条只读的 PromQL 区间查询，时间范围截止到当前时刻，向前回看 "
         "lookback_minutes 分钟。返回匹配的时间序列，每条带标签、一行摘要（首值、末值、最小值、"
         "最大值及变化最大的时刻）和数据点。step_seconds 为数据点间隔（默认自动选择）。"
         "指标说明发生了什么、何时发生，很少说明原因：原因请到日志、文档或数据库中查找。";
}

}  // namespace diagd::tools::metrics
