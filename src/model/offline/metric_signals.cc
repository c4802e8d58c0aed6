#include "model/offline/metric_signals.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/text.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

// A rise must stay: this share of the points from where it began on are
// still above the earlier level (a lone spike is no signal).
constexpr double kSustainedShare = 0.8;
constexpr std::size_t kMinBaselinePoints = 3;

std::vector<std::string> NameTokens(std::string_view name) {
  std::vector<std::string> tokens;
  std::string lower = text::AsciiLower(name);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= lower.size(); ++i) {
    if (i < lower.size() && lower[i] != '_' && lower[i] != ':') continue;
    if (i > start) tokens.push_back(lower.substr(start, i - start));
    start = i + 1;
  }
  return tokens;
}

bool HasToken(const std::vector<std::string>& tokens, std::initializer_list<const char*> words) {
  return std::any_of(tokens.begin(), tokens.end(), [&](const std::string& token) {
    return std::any_of(words.begin(), words.end(), [&](const char* word) { return token == word; });
  });
}

std::optional<double> NumberOf(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isnan(value)) return std::nullopt;
  return value;
}

// `text` with `prefix` removed, or nothing when it does not start so.
std::optional<std::string_view> After(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  return text.substr(prefix.size());
}

// "<number> at <time>" into its two parts.
bool ReadValueAt(std::string_view part, std::string& value, std::string& time) {
  auto at = part.find(" at ");
  if (at == std::string_view::npos) return false;
  value = std::string(part.substr(0, at));
  time = SortableTime(part.substr(at + 4));
  return !value.empty() && !time.empty();
}

double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))];
}

struct Rise {
  std::string began;
  std::optional<double> before;  // nothing: the series had no samples before
  double after = 0;
};

// The points before the onset (the series' level before the failure), or
// those of the first third of the window when no onset is known; nothing
// when there are too few to tell a level.
std::optional<std::vector<double>> Baseline(const SeriesItem& series, const std::string& onset) {
  std::vector<double> baseline;
  std::string cut = onset.empty() ? std::string() : MinusMinutes(onset, kSignalToleranceMinutes);
  for (std::size_t i = 0; i < series.points.size(); ++i) {
    bool early = cut.empty() ? i * 3 < series.points.size()
                             : SortableTime(series.points[i].first) < cut;
    if (early) baseline.push_back(series.points[i].second);
  }
  if (baseline.size() < kMinBaselinePoints) return std::nullopt;
  return baseline;
}

// Where the points leave their earlier level upwards for good: the first
// point above it by more than three spreads (and more than the level
// itself) from which most points stay there.
std::optional<Rise> RiseInPoints(const SeriesItem& series, const std::vector<double>& baseline) {
  double level = Quantile(baseline, 0.5);
  double spread = Quantile(baseline, 0.75) - Quantile(baseline, 0.25);
  double threshold = std::max({3 * spread, std::fabs(level), 1e-9});
  auto above = [&](double value) { return value - level > threshold; };
  const auto& points = series.points;
  for (std::size_t k = 0; k + 1 < points.size(); ++k) {
    if (!above(points[k].second)) continue;
    std::size_t rest = points.size() - k;
    std::size_t kept = static_cast<std::size_t>(std::count_if(
        points.begin() + static_cast<long>(k), points.end(),
        [&](const auto& point) { return above(point.second); }));
    if (static_cast<double>(kept) < kSustainedShare * static_cast<double>(rest)) continue;
    std::vector<double> later;
    for (std::size_t i = k; i < points.size(); ++i) later.push_back(points[i].second);
    return Rise{SortableTime(points[k].first), level, Quantile(later, 0.5)};
  }
  return std::nullopt;
}

// Without points enough to read a level from: the summary's largest change,
// when it is a rise that makes most of the series' range.
std::optional<Rise> RiseInSummary(const SeriesSummary& summary) {
  auto change = NumberOf(summary.change);
  auto low = NumberOf(summary.min), high = NumberOf(summary.max);
  auto first = NumberOf(summary.first), last = NumberOf(summary.last);
  if (!change || !low || !high || !first || !last || *change <= 0 || *high <= *low) return std::nullopt;
  if (*change < 0.5 * (*high - *low)) return std::nullopt;
  return Rise{summary.change_time, *first, *last};
}

// A series that begins only with the failure, while the result reaches
// back before it (another series has points from before the onset): what
// it measures did not happen before (a new query's latency).
std::optional<Rise> Appeared(const CallRecord& call, const SeriesItem& series,
                             const std::string& onset) {
  if (onset.empty() || series.points.empty()) return std::nullopt;
  std::string cut = MinusMinutes(onset, kSignalToleranceMinutes);
  std::string began = SortableTime(series.points.front().first);
  bool window_before = std::any_of(call.series.begin(), call.series.end(), [&](const SeriesItem& s) {
    return !s.points.empty() && SortableTime(s.points.front().first) < cut;
  });
  if (!window_before || began < cut || began > MinusMinutes(onset, -kSignalToleranceMinutes))
    return std::nullopt;
  std::vector<double> values;
  for (const auto& point : series.points) values.push_back(point.second);
  return Rise{began, std::nullopt, Quantile(values, 0.5)};
}

// The capacity beside `series` in the same result (the `*_max` or `*_limit`
// series with the same other labels), when `series` reached it.
std::string LimitReached(const CallRecord& call, const SeriesItem& series,
                         const SeriesSummary& summary) {
  std::string name = series.Label("__name__");
  auto cut = name.rfind('_');
  if (cut == std::string::npos) return {};
  auto others = [](const SeriesItem& s) {
    auto labels = s.labels;
    std::erase_if(labels, [](const auto& label) { return label.first == "__name__"; });
    std::sort(labels.begin(), labels.end());
    return labels;
  };
  for (const auto& sibling : call.series) {
    std::string sibling_name = sibling.Label("__name__");
    std::string prefix = name.substr(0, cut + 1);
    if (sibling_name != prefix + "max" && sibling_name != prefix + "limit") continue;
    if (others(sibling) != others(series)) continue;
    auto limit = ParseSeriesSummary(sibling.summary);
    auto capacity = limit ? NumberOf(limit->max) : std::nullopt;
    auto peak = NumberOf(summary.max);
    if (capacity && peak && *peak >= *capacity) return limit->max;
  }
  return {};
}

bool NamesChainTopic(const SeriesItem& series, const std::vector<std::string>& chain_topics) {
  return std::any_of(series.labels.begin(), series.labels.end(), [&](const auto& label) {
    return label.first != "__name__" &&
           std::any_of(chain_topics.begin(), chain_topics.end(), [&](const std::string& topic) {
             return text::AsciiLower(label.second) == text::AsciiLower(topic);
           });
  });
}

}  // namespace

std::optional<SeriesSummary> ParseSeriesSummary(std::string_view summary) {
  // Label values may hold anything; what follows the last ": first " is
  // numbers and times only.
  auto tail_at = summary.rfind(": first ");
  if (tail_at == std::string_view::npos) return std::nullopt;
  SeriesSummary out;
  out.head = std::string(summary.substr(0, tail_at));
  std::vector<std::string_view> parts;
  std::string_view tail = summary.substr(tail_at + 2);
  for (std::size_t comma; (comma = tail.find(", ")) != std::string_view::npos;) {
    parts.push_back(tail.substr(0, comma));
    tail.remove_prefix(comma + 2);
  }
  parts.push_back(tail);
  if (parts.size() != 5) return std::nullopt;
  auto first = After(parts[0], "first "), last = After(parts[1], "last ");
  auto min = After(parts[2], "min "), max = After(parts[3], "max ");
  auto change = After(parts[4], "largest change ");
  if (!first || !last || !min || !max || !change) return std::nullopt;
  if (!ReadValueAt(*first, out.first, out.first_time) ||
      !ReadValueAt(*last, out.last, out.last_time)) {
    return std::nullopt;
  }
  out.min = std::string(*min);
  out.max = std::string(*max);
  if (*change != "none" && !ReadValueAt(*change, out.change, out.change_time)) return std::nullopt;
  return out;
}

std::optional<SignalKind> SignalKindOf(const SeriesItem& series) {
  auto tokens = NameTokens(series.Label("__name__"));
  if (tokens.empty()) return std::nullopt;
  // A capacity is no strain; a raw counter only ever grows.
  if (HasToken(tokens, {"max", "limit", "capacity", "total", "count", "sum", "bucket", "created",
                        "bytes", "info"})) {
    return std::nullopt;
  }
  if (HasToken(tokens, {"error", "errors", "5xx", "failure", "failures", "failed", "fail"}))
    return SignalKind::kErrorRate;
  bool quantile = !series.Label("quantile").empty();
  if (HasToken(tokens, {"duration", "latency", "rtt"}) ||
      (HasToken(tokens, {"seconds"}) && quantile)) {
    return SignalKind::kLatency;
  }
  if (HasToken(tokens, {"active", "pool", "threads", "thread", "queue", "pending", "waiting",
                        "saturation", "inflight", "utilization", "cpu"})) {
    return SignalKind::kSaturation;
  }
  return std::nullopt;
}

std::string ShortNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4g", value);
  if (std::string(buffer).find('e') != std::string::npos)
    std::snprintf(buffer, sizeof(buffer), "%.0f", value);
  return buffer;
}

std::vector<MetricSignal> FindMetricSignals(const InvestigationState& state,
                                            const std::string& onset,
                                            const std::vector<std::string>& chain_topics) {
  std::vector<MetricSignal> signals;
  std::string latest = onset.empty() ? std::string() : MinusMinutes(onset, -kSignalToleranceMinutes);
  for (std::size_t c = 0; c < state.calls.size(); ++c) {
    const CallRecord& call = state.calls[c];
    if (call.tool != ToolKind::kMetrics || call.outcome != Outcome::kEvidence) continue;
    for (std::size_t s = 0; s < call.series.size(); ++s) {
      const SeriesItem& series = call.series[s];
      auto kind = SignalKindOf(series);
      auto summary = ParseSeriesSummary(series.summary);
      if (!kind || !summary) continue;
      std::optional<Rise> rise;
      if (auto baseline = Baseline(series, onset)) {
        rise = RiseInPoints(series, *baseline);
      } else {
        rise = Appeared(call, series, onset);
        if (!rise) rise = RiseInSummary(*summary);
      }
      if (!rise || (!latest.empty() && rise->began > latest)) continue;
      MetricSignal signal;
      signal.call = c;
      signal.series = s;
      signal.kind = *kind;
      signal.name = series.Label("__name__");
      if (signal.name.empty()) signal.name = summary->head;
      signal.quote = series.summary;
      signal.began = rise->began;
      if (rise->before) signal.before = ShortNumber(*rise->before);
      signal.after = ShortNumber(rise->after);
      signal.limit = LimitReached(call, series, *summary);
      signal.about_chain = NamesChainTopic(series, chain_topics);
      signals.push_back(std::move(signal));
    }
  }
  return signals;
}

}  // namespace diagd::model::offline
