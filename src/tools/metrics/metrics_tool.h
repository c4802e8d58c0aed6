// query_metrics: its face (tool_face.h): input rules, schema, scope and
// description, and what release, the views and the store need of its results.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstddef>
#include <string>

#include "tools/metrics/metrics_section.h"
#include "tools/metrics/metrics_types.h"
#include "tools/tool_face.h"

namespace diagd::tools::metrics {

inline constexpr std::size_t kMaxQueryChars = 2000;

// What the backend is opened with, from [tools.metrics].
MetricsSettings SettingsFrom(const MetricsToolConfig& config);

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

// Bounds of a metrics result besides the series and points the rules allow:
// a summary line and a label value, in code points.
inline constexpr std::size_t kMaxSummaryChars = 1000;
inline constexpr std::size_t kMaxLabelChars = 300;

struct QueryMetrics {
  static constexpr ToolName kName = kQueryMetrics;
  using Request = MetricsRequest;
  using Result = MetricsResult;

  // Offered only where [tools.metrics] is configured.
  static bool Offered(const CatalogOptions& options) { return options.metrics.has_value(); }
  static std::string Description(const CatalogOptions& options) {
    return metrics::Description(*options.metrics, options.english);
  }
  static boost::json::object InputSchema(const CatalogOptions& options) {
    return metrics::InputSchema(*options.metrics);
  }
  static InputResult<Request> ParseInput(const boost::json::object& input,
                                         const CatalogOptions& options) {
    return metrics::ParseInput(input, *options.metrics);
  }
  static Scope ScopeOf(const Request& request) { return metrics::ScopeOf(request); }
  static boost::json::object RequestJson(const Request& request) {
    return metrics::RequestJson(request);
  }
  static void Bind(Result& result, const Request& request);
  // Series without summary are dropped; a series keeps its newest points.
  // returned_count stays what the server matched (at least what is kept).
  static void Canonicalize(Result& result, const ResultLimits& limits);
  static std::size_t Items(const Result& result) { return result.series.size(); }
  static const std::vector<std::string_view>& CanonicalKeys();
  static const std::vector<std::string_view>& ObservationKeys();
  static void WriteField(const Result& result, std::string_view key, const ResultView& view,
                         json::JsonWriter& w);
  // A quote is verified against a series' label values and its summary
  // line; a point's time or value alone is not citable.
  static bool AnyCitable(const Result& result, const TextTest& holds);
  static void MentionTexts(const Result& result, const TextSink& add);
  static void NamesRead(const Result&, const TextSink&) {}
  static void Facts(const Result& result, const TextSink& add);
  static const char* Label(bool english) { return english ? "metrics query" : "指标查询"; }
  static void EncodeResult(const Result& result, ByteWriter& w);
  static Result DecodeResult(ByteReader& r);
  // Its rules and bounds from its config section (NAME_settings.cc).
  static void ConfigureCatalog(const config::ToolsConfig& tools, CatalogOptions& catalog);
  static void ConfigureBoundary(const config::ToolsConfig& tools, BoundaryOptions& boundary);
  // The backend (NAME_backend.cc, in the backend library).
  static diagd::Result<OpenedBackend> OpenBackend(const BackendContext& context);
  // `diagd check` (NAME_check.cc, in the backend library).
  static std::vector<CheckRow> Check(const CheckContext& context);
  static std::span<const AdviceEntry> Advice();
};

}  // namespace diagd::tools::metrics
