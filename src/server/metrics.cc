#include "server/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <span>
#include <utility>
#include <variant>

#include "core/text.h"

namespace diagd::server {
namespace {

using harness::TraceEvent;
using harness::TraceEventType;

// Stands in for a field a stored trace lacks, so a damaged record still counts.
constexpr std::string_view kUnknown = "UNKNOWN";
// Stands in for an absent release outcome or fallback code.
constexpr std::string_view kNone = "NONE";

constexpr const char* kRunLabels[] = {"status", "outcome", "fallback_code"};
constexpr const char* kToolCallLabels[] = {"tool", "status"};
constexpr const char* kToolRejectionLabels[] = {"error_code"};
constexpr const char* kModelCallLabels[] = {"component"};
constexpr const char* kModelFailureLabels[] = {"component", "reason"};
constexpr const char* kModelTokenLabels[] = {"component", "kind"};
constexpr const char* kChatRejectionLabels[] = {"reason"};
constexpr const char* kHttpRequestLabels[] = {"route", "code"};

// A label value as stored: valid UTF-8, bounded.
std::string LabelValue(std::string_view value) {
  std::string bounded(value);
  text::BoundCodePoints(bounded, ServerMetrics::kMaxLabelValueChars);
  return bounded;
}

// `value`, or `fallback` when it is empty (an empty label value would read as
// an absent label).
std::string LabelValueOr(std::string_view value, std::string_view fallback) {
  return LabelValue(value.empty() ? fallback : value);
}

std::string StringField(const TraceEvent& event, std::string_view key) {
  const harness::TraceValue* value = harness::FindField(event, key);
  const auto* s = value ? std::get_if<std::string>(value) : nullptr;
  return LabelValueOr(s ? std::string_view(*s) : std::string_view(), kUnknown);
}

std::optional<std::int64_t> CountField(const TraceEvent& event, std::string_view key) {
  const harness::TraceValue* value = harness::FindField(event, key);
  const auto* i = value ? std::get_if<std::int64_t>(value) : nullptr;
  if (!i || *i < 0) return std::nullopt;
  return *i;
}

std::string OrNone(const std::optional<std::string>& value) {
  return LabelValueOr(value ? std::string_view(*value) : std::string_view(), kNone);
}

std::string FormatDouble(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

void AppendEscapedLabelValue(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

// Help texts are constants without backslashes or newlines, so they need no
// escaping.
void AppendHeader(std::string& out, std::string_view name, std::string_view type,
                  std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void AppendCounter(std::string& out, std::string_view name, std::string_view help,
                   std::span<const char* const> label_names,
                   const std::map<std::vector<std::string>, std::uint64_t>& series) {
  AppendHeader(out, name, "counter", help);
  for (const auto& [label_values, count] : series) {
    out.append(name).append("{");
    for (std::size_t label_idx = 0; label_idx < label_names.size(); ++label_idx) {
      if (label_idx > 0) out += ",";
      out.append(label_names[label_idx]).append("=\"");
      AppendEscapedLabelValue(out, label_values[label_idx]);
      out += "\"";
    }
    out.append("} ").append(std::to_string(count)).append("\n");
  }
}

void AppendGauge(std::string& out, std::string_view name, std::string_view help,
                 std::int64_t value) {
  AppendHeader(out, name, "gauge", help);
  out.append(name).append(" ").append(std::to_string(value)).append("\n");
}

}  // namespace

void ServerMetrics::RecordFinishedRun(const app::RunRecord& run, double duration_seconds) {
  // Fold the trace into local series first, so the lock is held only to merge.
  Series tool_calls;
  Series tool_rejections;
  Series model_calls;
  Series model_tokens;
  for (const TraceEvent& event : run.trace) {
    switch (event.type) {
      case TraceEventType::kToolCallCompleted:
        ++tool_calls[{StringField(event, "tool"), StringField(event, "evidence_status")}];
        break;
      case TraceEventType::kToolRequestRejected:
        ++tool_rejections[{StringField(event, "error_code")}];
        break;
      case TraceEventType::kModelCall: {
        std::string component = StringField(event, "component");
        ++model_calls[{component}];
        for (auto [key, kind] :
             {std::pair{"input_tokens", "input"}, std::pair{"output_tokens", "output"},
              std::pair{"total_tokens", "total"}}) {
          if (auto tokens = CountField(event, key)) {
            model_tokens[{component, kind}] += static_cast<std::uint64_t>(*tokens);
          }
        }
        break;
      }
      default:
        break;
    }
  }
  Series model_failures;
  for (const auto& failure : run.model_failures) {
    ++model_failures[{failure.component, failure.reason}];
  }
  std::vector<std::string> run_labels{LabelValueOr(run.status, kUnknown),
                                      OrNone(run.release_outcome), OrNone(run.fallback_code)};

  MutexLock lock(mu_);
  Add(runs_, std::move(run_labels), 1);
  Observe(duration_seconds);
  for (auto& [local, shared] :
       {std::pair{&tool_calls, &tool_calls_}, std::pair{&tool_rejections, &tool_rejections_},
        std::pair{&model_calls, &model_calls_}, std::pair{&model_tokens, &model_tokens_},
        std::pair{&model_failures, &model_failures_}}) {
    for (auto& [label_values, count] : *local) Add(*shared, label_values, count);
  }
}

void ServerMetrics::RecordRejectedChat(std::string_view reason) {
  std::vector<std::string> label_values{LabelValue(reason)};
  MutexLock lock(mu_);
  Add(chat_rejections_, std::move(label_values), 1);
}

void ServerMetrics::RecordHttpRequest(std::string_view route, int status) {
  std::vector<std::string> label_values{LabelValue(route), std::to_string(status)};
  MutexLock lock(mu_);
  Add(http_requests_, std::move(label_values), 1);
}

void ServerMetrics::Add(Series& series, std::vector<std::string> label_values,
                        std::uint64_t amount) {
  if (series.size() >= kMaxSeriesPerFamily && !series.contains(label_values)) {
    std::fill(label_values.begin(), label_values.end(), "OTHER");
  }
  series[std::move(label_values)] += amount;
}

void ServerMetrics::Observe(double seconds) {
  if (!(seconds >= 0)) seconds = 0;  // also NaN: one bad clock reading must not poison _sum
  auto bound = std::lower_bound(kRunDurationBuckets.begin(), kRunDurationBuckets.end(), seconds);
  ++duration_buckets_[static_cast<std::size_t>(bound - kRunDurationBuckets.begin())];
  duration_sum_ += seconds;
  ++duration_count_;
}

std::string ServerMetrics::Render(const Gauges& gauges) const {
  std::string out;
  MutexLock lock(mu_);
  AppendCounter(out, "diagd_runs_total",
                "Finished runs by status, release outcome and fallback code.", kRunLabels, runs_);

  AppendHeader(out, "diagd_run_duration_seconds", "histogram",
               "Wall time of finished runs, from start to release.");
  std::uint64_t cumulative = 0;
  for (std::size_t bucket_idx = 0; bucket_idx < duration_buckets_.size(); ++bucket_idx) {
    cumulative += duration_buckets_[bucket_idx];
    std::string le = bucket_idx < kRunDurationBuckets.size()
                         ? FormatDouble(kRunDurationBuckets[bucket_idx])
                         : "+Inf";
    out.append("diagd_run_duration_seconds_bucket{le=\"").append(le).append("\"} ");
    out.append(std::to_string(cumulative)).append("\n");
  }
  out.append("diagd_run_duration_seconds_sum ").append(FormatDouble(duration_sum_)).append("\n");
  out.append("diagd_run_duration_seconds_count ").append(std::to_string(duration_count_));
  out += "\n";

  AppendGauge(out, "diagd_runs_running", "Runs executing now.", gauges.runs_running);
  AppendGauge(out, "diagd_run_queue_depth", "Runs accepted and waiting for a worker.",
              gauges.runs_queued);
  AppendCounter(out, "diagd_chat_rejected_total", "Chat requests refused before a run started.",
                kChatRejectionLabels, chat_rejections_);
  AppendCounter(out, "diagd_tool_calls_total", "Executed tool calls by tool and evidence status.",
                kToolCallLabels, tool_calls_);
  AppendCounter(out, "diagd_tool_requests_rejected_total",
                "Tool requests the harness rejected, by error code.", kToolRejectionLabels,
                tool_rejections_);
  AppendCounter(out, "diagd_model_calls_total", "Model calls by component.", kModelCallLabels,
                model_calls_);
  AppendCounter(out, "diagd_model_failures_total",
                "Model calls that got no usable answer (after their retries), by component and "
                "failure reason.",
                kModelFailureLabels, model_failures_);
  AppendCounter(out, "diagd_model_tokens_total",
                "Tokens the provider reported, by component and kind (input, output, total).",
                kModelTokenLabels, model_tokens_);
  AppendCounter(out, "diagd_http_requests_total",
                "Answered HTTP requests by route and status code.", kHttpRequestLabels,
                http_requests_);
  AppendGauge(out, "diagd_http_connections_open", "Open HTTP connections.",
              gauges.connections_open);
  AppendGauge(out, "diagd_sse_streams_open", "Open server-sent event streams.",
              gauges.sse_streams_open);
  AppendGauge(out, "diagd_run_store_failing", "1 while the run store's last call failed.",
              gauges.store_failing);
  AppendHeader(out, "diagd_run_store_errors_total", "counter",
               "Run store calls that failed (the store's fault, not the caller's).");
  out.append("diagd_run_store_errors_total ")
      .append(std::to_string(gauges.store_errors_total))
      .append("\n");
  AppendGauge(out, "diagd_runs_unstored",
              "Finished runs the store refused, kept and written again until it takes them.",
              gauges.runs_unstored);
  AppendHeader(out, "diagd_runs_lost_total", "counter",
               "Runs this instance ended as INSTANCE_LOST (their instance stopped).");
  out.append("diagd_runs_lost_total ").append(std::to_string(gauges.runs_lost_total)).append("\n");
  return out;
}

}  // namespace diagd::server
