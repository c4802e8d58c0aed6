#include "tools/metrics/prometheus_response.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/text.h"
#include "tools/metrics/series_summary.h"

namespace diagd::tools::metrics {
namespace {

using Failure = Unexpected<AdapterFailure>;
using Labels = std::vector<std::pair<std::string, std::string>>;

Failure NotPrometheus() { return Failure(AdapterFailure{ToolErrorCode::kToolUnavailable, {}}); }

// The server's own words, fit for the model: control characters as spaces,
// bounded.
std::string CleanMessage(std::string_view message) {
  std::string clean;
  for (char c : message) {
    auto byte = static_cast<unsigned char>(c);
    clean += (byte < 0x20 || byte == 0x7F) ? ' ' : c;
  }
  bool cut = false;
  clean = text::TruncateCodePoints(text::CollapseWhitespace(clean), kMaxErrorChars - 1, &cut);
  return cut ? clean + "…" : clean;
}

// The envelope: `data` on success; the failure an error names; nothing when
// the body is not Prometheus's.
Result<boost::json::value, AdapterFailure> Envelope(int http_status, std::string_view body) {
  auto parsed = json::Parse(body);
  if (!parsed || !parsed->is_object()) return NotPrometheus();
  const auto& object = parsed->get_object();
  auto status = json::GetString(object, "status");
  if (status == "error") {
    auto message = json::GetString(object, "error");
    if (!message) return NotPrometheus();
    // A query the server gave up on in its own time is a timeout like ours.
    if (json::GetString(object, "errorType") == "timeout") {
      return Failure(AdapterFailure{ToolErrorCode::kToolTimeout, {}});
    }
    return Failure(AdapterFailure{ToolErrorCode::kQueryFailed, CleanMessage(*message)});
  }
  if (status != "success" || http_status < 200 || http_status >= 300) return NotPrometheus();
  const auto* data = object.if_contains("data");
  if (data == nullptr) return NotPrometheus();
  return *data;
}

// One `[unix seconds, "value"]` pair.
std::optional<Sample> ReadSample(const boost::json::value& pair) {
  const auto* array = pair.if_array();
  if (array == nullptr || array->size() != 2 || !(*array)[0].is_number() ||
      !(*array)[1].is_string()) {
    return std::nullopt;
  }
  double seconds = (*array)[0].to_number<double>();
  std::string text((*array)[1].get_string());
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  // A time outside years 0..9999 is no sample any server keeps (and would
  // not fit the integer it is read into).
  constexpr double kLatestSeconds = 253402300799;  // 9999-12-31T23:59:59Z
  if (text.empty() || end != text.c_str() + text.size() || !(seconds >= -62167219200.0) ||
      !(seconds <= kLatestSeconds)) {
    return std::nullopt;
  }
  return Sample{static_cast<std::int64_t>(std::floor(seconds)), value};
}

std::optional<Labels> ReadLabels(const boost::json::value& metric) {
  const auto* object = metric.if_object();
  if (object == nullptr) return std::nullopt;
  Labels labels;
  for (const auto& member : *object) {
    if (!member.value().is_string()) return std::nullopt;
    labels.emplace_back(std::string(member.key()), std::string(member.value().get_string()));
  }
  std::sort(labels.begin(), labels.end(), [](const auto& a, const auto& b) {
    bool a_name = a.first == "__name__";
    bool b_name = b.first == "__name__";
    return a_name != b_name ? a_name : a.first < b.first;
  });
  return labels;
}

// A series from its labels and every sample received: the summary over all
// of them, the newest `max_points` numbers as points.
MetricSeries MakeSeries(Labels labels, const std::vector<Sample>& samples, std::size_t max_points,
                        bool& truncated) {
  MetricSeries series;
  series.summary = SeriesSummary(labels, samples);
  series.labels = std::move(labels);
  for (const Sample& s : samples) {
    if (std::isfinite(s.value))
      series.points.push_back({FormatUnixSeconds(s.unix_seconds), s.value});
  }
  if (series.points.size() > max_points) {
    series.points.erase(series.points.begin(),
                        series.points.end() - static_cast<std::ptrdiff_t>(max_points));
    truncated = true;
  }
  return series;
}

// The `result` of a matrix or vector: each element's metric and samples.
Result<void, AdapterFailure> ReadSeriesList(const boost::json::value& list, bool matrix,
                                            const MetricsRules& rules, MetricsResult& out) {
  const auto* elements = list.if_array();
  if (elements == nullptr) return NotPrometheus();
  out.returned_count = elements->size();
  for (const auto& element : *elements) {
    if (out.series.size() == rules.max_series) {
      out.truncated = true;
      break;
    }
    const auto* object = element.if_object();
    if (object == nullptr || !object->contains("metric")) return NotPrometheus();
    auto labels = ReadLabels(object->at("metric"));
    if (!labels) return NotPrometheus();
    std::vector<Sample> samples;
    if (matrix) {
      const auto* values = object->if_contains("values");
      if (values == nullptr || !values->is_array()) return NotPrometheus();
      for (const auto& pair : values->get_array()) {
        auto sample = ReadSample(pair);
        if (!sample) return NotPrometheus();
        samples.push_back(*sample);
      }
    } else {
      const auto* value = object->if_contains("value");
      auto sample = value ? ReadSample(*value) : std::nullopt;
      if (!sample) return NotPrometheus();
      samples.push_back(*sample);
    }
    out.series.push_back(MakeSeries(std::move(*labels), samples, rules.max_points, out.truncated));
  }
  return {};
}

}  // namespace

Result<MetricsResult, AdapterFailure> ReadQueryRange(int http_status, std::string_view body,
                                                     const MetricsRequest& request,
                                                     const MetricsRules& rules) {
  auto data = Envelope(http_status, body);
  if (!data) return Unexpected(data.error());
  const auto* object = data->if_object();
  if (object == nullptr) return NotPrometheus();
  auto type = json::GetString(*object, "resultType");
  const auto* result = object->if_contains("result");
  if (!type || result == nullptr) return NotPrometheus();

  MetricsResult out;
  out.query = request.query;
  out.lookback_minutes = request.lookback_minutes;
  out.step_seconds = request.step_seconds;
  if (*type == "matrix" || *type == "vector") {
    if (auto read = ReadSeriesList(*result, *type == "matrix", rules, out); !read) {
      return Unexpected(read.error());
    }
  } else if (*type == "scalar") {
    auto sample = ReadSample(*result);
    if (!sample) return NotPrometheus();
    out.returned_count = 1;
    out.series.push_back(MakeSeries({}, {*sample}, rules.max_points, out.truncated));
  } else if (*type == "string") {
    return Failure(AdapterFailure{ToolErrorCode::kQueryFailed,
                                  "the query gives a string, not a series: query a metric"});
  } else {
    return NotPrometheus();
  }
  out.evidence_status =
      out.series.empty() ? EvidenceStatus::kNoEvidence : EvidenceStatus::kEvidenceFound;
  return out;
}

Result<std::size_t, AdapterFailure> ReadNameCount(int http_status, std::string_view body) {
  auto data = Envelope(http_status, body);
  if (!data) return Unexpected(data.error());
  const auto* names = data->if_array();
  if (names == nullptr) return NotPrometheus();
  return names->size();
}

}  // namespace diagd::tools::metrics
