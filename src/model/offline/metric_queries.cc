#include "model/offline/metric_queries.h"

#include <algorithm>

#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

// The window ends at the run's now; this reaches back before the onset so
// that a series shows its level before the failure.
constexpr long kBeforeOnsetMinutes = 30;
constexpr long kDefaultWindowMinutes = 60;
constexpr long kWindowRoundingMinutes = 15;

// A regex character of a topic name, escaped for RE2 inside a PromQL
// string: `\` itself is written `\\` there.
std::string RegexLiteral(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '\\') {
      out += "\\\\\\\\";
      continue;
    }
    if (std::string_view(".+*?()[]{}|^$\\").find(c) != std::string_view::npos) out += "\\\\";
    if (c == '"') {
      out += "\\\"";
      continue;
    }
    out += c;
  }
  return out;
}

// Minutes from `from` to `to` (both "YYYY-MM-DD HH:MM:SS", from <= to).
long MinutesBetween(const std::string& from, const std::string& to) {
  long minutes = 0;
  // Whole-day steps first: the window is at most a day or so.
  while (MinusMinutes(to, minutes + 1440) >= from) minutes += 1440;
  while (MinusMinutes(to, minutes + 1) >= from) ++minutes;
  return minutes;
}

std::optional<int> WindowFor(const CaseFile& file) {
  std::string onset = FailureOnset(file);
  if (onset.empty() || file.latest_time.empty() || onset > file.latest_time) return std::nullopt;
  long needed = MinutesBetween(onset, file.latest_time) + kBeforeOnsetMinutes;
  if (needed <= kDefaultWindowMinutes) return std::nullopt;
  needed = (needed + kWindowRoundingMinutes - 1) / kWindowRoundingMinutes * kWindowRoundingMinutes;
  return static_cast<int>(needed);
}

bool LogsRead(const InvestigationState& state) {
  return !state.offers_logs ||
         std::any_of(state.calls.begin(), state.calls.end(), [](const CallRecord& call) {
           return call.tool == ToolKind::kLogs && call.outcome != Outcome::kNoObservation;
         });
}

}  // namespace

std::string ComponentSelector(const std::vector<std::string>& components) {
  std::string selector = "{service=~\"";
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (i > 0) selector += '|';
    selector += RegexLiteral(components[i]);
  }
  selector += "\"}";
  return selector;
}

std::string StrainSelector() {
  return "{__name__=~\".*(connections|pool|threads|queue|duration|latency|seconds|error|errors|"
         "5xx|fail|failed|failures).*\",__name__!~\".*_(total|count|sum|bucket|created|max|"
         "limit)\"}";
}

std::optional<MetricsQuery> NextMetricsQuery(const InvestigationState& state,
                                             const QuestionAnalysis& analysis,
                                             const CaseFile& file) {
  if (!state.offers_metrics || !LogsRead(state)) return std::nullopt;
  std::vector<const CallRecord*> asked;
  for (const auto& call : state.calls) {
    if (call.tool == ToolKind::kMetrics && call.outcome != Outcome::kViolation)
      asked.push_back(&call);
  }
  std::vector<std::string> components = ChainTopics(file);
  if (components.empty()) components = analysis.topics;
  std::optional<int> window = WindowFor(file);
  if (asked.empty()) {
    return MetricsQuery{components.empty() ? StrainSelector() : ComponentSelector(components),
                        window};
  }
  // Once more, by name, when the labels did not fit: no series, or a
  // query Prometheus refused (its message says why; the name selector is
  // the repair).
  const CallRecord& last = *asked.back();
  bool unfit = last.outcome == Outcome::kNoEvidence ||
               (last.outcome == Outcome::kError && last.error_code == "QUERY_FAILED");
  if (asked.size() >= kMaxMetricsCalls || !unfit || last.input.query == StrainSelector())
    return std::nullopt;
  return MetricsQuery{StrainSelector(), window};
}

}  // namespace diagd::model::offline
