// query_metrics' results as the face presents them (metrics_tool.h).
#include <algorithm>
#include <bit>

#include "core/text.h"
#include "tools/metrics/metrics_tool.h"

namespace diagd::tools::metrics {

void QueryMetrics::Bind(Result& r, const Request& q) {
  r.query = q.query;
  r.lookback_minutes = q.lookback_minutes;
  r.step_seconds = q.step_seconds;
}

void QueryMetrics::Canonicalize(Result& r, const ResultLimits& limits) {
  std::erase_if(r.series, [](const MetricSeries& s) { return text::IsBlank(s.summary); });
  std::size_t matched = std::max(r.returned_count, r.series.size());
  face::BoundList(r.series, limits.max_series, r.truncated);
  for (auto& series : r.series) {
    face::BoundText(series.summary, kMaxSummaryChars, r.truncated);
    for (auto& [name, value] : series.labels) {
      face::BoundText(name, kMaxLabelChars, r.truncated);
      face::BoundText(value, kMaxLabelChars, r.truncated);
    }
    if (series.points.size() > limits.max_points) {  // the newest stay
      series.points.erase(series.points.begin(),
                          series.points.end() - static_cast<std::ptrdiff_t>(limits.max_points));
      r.truncated = true;
    }
  }
  face::SetCountAndStatus(r, r.series.size());
  r.returned_count = std::max(matched, r.series.size());
}

const std::vector<std::string_view>& QueryMetrics::CanonicalKeys() {
  static const std::vector<std::string_view> kKeys = {
      "evidence_status", "tool_call_id", "query",          "lookback_minutes",
      "step_seconds",    "series",       "returned_count", "truncated"};
  return kKeys;
}

const std::vector<std::string_view>& QueryMetrics::ObservationKeys() {
  static const std::vector<std::string_view> kKeys = {
      "tool_call_id", "query", "lookback_minutes", "step_seconds", "evidence_status", "series",
      "truncated"};
  return kKeys;
}

void QueryMetrics::WriteField(const Result& r, std::string_view key, const ResultView& view,
                              json::JsonWriter& w) {
  w.Key(key);
  if (key == "query") {
    w.String(r.query);
  } else if (key == "lookback_minutes") {
    w.Int(r.lookback_minutes);
  } else if (key == "step_seconds") {
    w.Int(r.step_seconds);
  } else if (key == "series") {
    w.BeginArray();
    std::size_t n = std::min(r.series.size(), view.max_items);
    for (std::size_t i = 0; i < n; ++i) {
      const MetricSeries& series = r.series[i];
      w.BeginObject().Key("labels").BeginObject();
      for (const auto& [name, value] : series.labels) w.Key(name).String(value);
      w.EndObject().Key("summary").String(series.summary).Key("points").BeginArray();
      for (const MetricPoint& point : series.points) {
        w.BeginArray().String(point.time).Double(point.value).EndArray();
      }
      w.EndArray().EndObject();
    }
    w.EndArray();
  }
}

bool QueryMetrics::AnyCitable(const Result& r, const TextTest& holds) {
  for (const auto& series : r.series) {
    if (holds(series.summary)) return true;
    for (const auto& label : series.labels) {
      if (holds(label.second)) return true;
    }
  }
  return false;
}

void QueryMetrics::MentionTexts(const Result& r, const TextSink& add) {
  for (const auto& series : r.series) {
    for (const auto& label : series.labels) add(label.second);
    add(series.summary);
  }
}

void QueryMetrics::Facts(const Result& r, const TextSink& add) {
  for (const auto& series : r.series) add(series.summary);
}

void QueryMetrics::EncodeResult(const Result& r, ByteWriter& w) {
  w.String(EvidenceStatusString(r.evidence_status));
  w.String(r.tool_call_id);
  w.String(r.query);
  w.Int(r.lookback_minutes);
  w.Int(r.step_seconds);
  w.Varint(r.series.size());
  for (const MetricSeries& series : r.series) {
    w.Varint(series.labels.size());
    for (const auto& [name, value] : series.labels) {
      w.String(name);
      w.String(value);
    }
    w.String(series.summary);
    w.Varint(series.points.size());
    for (const MetricPoint& point : series.points) {
      w.String(point.time);
      w.Fixed64(std::bit_cast<std::uint64_t>(point.value));
    }
  }
  w.Varint(r.returned_count);
  w.Bool(r.truncated);
}

QueryMetrics::Result QueryMetrics::DecodeResult(ByteReader& r) {
  MetricsResult m;
  m.evidence_status = r.Named(kAllEvidenceStatuses, EvidenceStatusString);
  m.tool_call_id = r.String();
  m.query = r.String();
  m.lookback_minutes = r.Int();
  m.step_seconds = r.Int();
  std::size_t n = r.Count();
  for (std::size_t i = 0; i < n && r.ok(); ++i) {
    MetricSeries series;
    std::size_t labels = r.Count();
    for (std::size_t j = 0; j < labels && r.ok(); ++j) {
      std::string name = r.String();
      series.labels.emplace_back(std::move(name), r.String());
    }
    series.summary = r.String();
    std::size_t points = r.Count();
    for (std::size_t j = 0; j < points && r.ok(); ++j) {
      MetricPoint point;
      point.time = r.String();
      point.value = std::bit_cast<double>(r.Fixed64());
      series.points.push_back(std::move(point));
    }
    m.series.push_back(std::move(series));
  }
  m.returned_count = r.Size();
  m.truncated = r.Bool();
  return m;
}

}  // namespace diagd::tools::metrics
