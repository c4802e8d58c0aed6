#include "tools/metrics/prometheus_client.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "http/http_client.h"
#include "tools/metrics/prometheus_response.h"

namespace diagd::tools::metrics {
namespace {

using Failure = Unexpected<AdapterFailure>;
using std::chrono::milliseconds;

constexpr milliseconds kConnectTimeout{3000};

Failure Fail(ToolErrorCode code, std::string message = {}) {
  return Failure(AdapterFailure{code, std::move(message)});
}

// RFC 3986 query-value encoding: everything but the unreserved characters.
std::string Encode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : value) {
    auto byte = static_cast<unsigned char>(c);
    if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
        (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

std::int64_t UnixSeconds(WallTime time) {
  return std::chrono::floor<std::chrono::seconds>(time.time_since_epoch()).count();
}

// The evaluation times of a range query, in unix seconds.
struct Range {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int64_t step = 1;
};

// Prometheus evaluates at start, start + step, ... up to end, both ends
// included: as many points as fit in the lookback, at most `max_points`,
// the newest on `now`.
Range RangeOf(const MetricsRequest& request, WallTime now, std::size_t max_points) {
  Range range;
  range.end = UnixSeconds(now);
  range.step = std::max(request.step_seconds, 1);
  const std::int64_t fit = std::int64_t{request.lookback_minutes} * 60 / range.step;
  const std::int64_t points = std::clamp<std::int64_t>(
      fit, 1, static_cast<std::int64_t>(std::max<std::size_t>(max_points, 1)));
  range.start = range.end - (points - 1) * range.step;
  return range;
}

std::string TrimSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

Status ValidateSettings(const MetricsSettings& s) {
  if (s.url.rfind("http://", 0) != 0 && s.url.rfind("https://", 0) != 0) {
    return Error::InvalidArgument("tools.metrics.url must be an http:// or https:// URL");
  }
  const MetricsRules& r = s.rules;
  if (r.default_lookback_minutes < 1 || r.max_lookback_minutes < 1) {
    return Error::InvalidArgument("tools.metrics lookback minutes must be at least 1");
  }
  if (r.max_lookback_minutes > kMaxLookbackMinutes) {
    return Error::InvalidArgument("tools.metrics.max_lookback_minutes must be at most " +
                                  std::to_string(kMaxLookbackMinutes) + " (ten years)");
  }
  if (r.default_lookback_minutes > r.max_lookback_minutes) {
    return Error::InvalidArgument(
        "tools.metrics.default_lookback_minutes must not exceed max_lookback_minutes");
  }
  if (r.max_series < 1)
    return Error::InvalidArgument("tools.metrics.max_series must be at least 1");
  if (r.max_points < 1)
    return Error::InvalidArgument("tools.metrics.max_points must be at least 1");
  if (s.timeout_ms < 1)
    return Error::InvalidArgument("tools.metrics.timeout_ms must be at least 1");
  return {};
}

PrometheusClient::PrometheusClient(MetricsSettings settings, const Clock& clock)
    : settings_(std::move(settings)), base_(TrimSlash(settings_.url)), clock_(clock) {}

std::string PrometheusClient::RedactedUrl() const { return http::RedactUrl(base_); }

Result<PrometheusClient::Answer, AdapterFailure> PrometheusClient::Get(
    const std::string& path_and_query, MonoTime deadline, const std::stop_token& cancel) const {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - clock_.Monotonic());
  // Under a millisecond left is no time at all (and 0 means "no limit" to curl).
  if (left < milliseconds(1)) return Fail(ToolErrorCode::kToolTimeout, "no time left");
  http::Request call;
  call.method = "GET";
  call.url = base_ + path_and_query;
  call.headers = {{"Accept", "application/json"}};
  if (!settings_.bearer_token.empty()) {
    call.headers.emplace_back("Authorization", "Bearer " + settings_.bearer_token);
  }
  call.timeout = std::min(milliseconds(settings_.timeout_ms), left);
  call.connect_timeout = std::min(kConnectTimeout, call.timeout);
  call.max_response_bytes = kMaxResponseBytes;
  call.cancel = cancel;
  auto response = http::Send(call);
  if (!response) {
    switch (response.error().kind) {
      case http::FailureKind::kTimeout:
        return Fail(ToolErrorCode::kToolTimeout, "no answer in time");
      case http::FailureKind::kTooLarge:
      case http::FailureKind::kHeadersTooLarge:
        return Fail(ToolErrorCode::kQueryFailed,
                    "the result is too large: narrow the query (fewer series or a shorter range)");
      case http::FailureKind::kConnect:
      case http::FailureKind::kOther:
        // curl's words name no URL; they tell the operator what went wrong.
        return Fail(ToolErrorCode::kToolUnavailable, response.error().message);
    }
  }
  return Answer{response->status, std::move(response->body)};
}

Result<MetricsOutput, AdapterFailure> PrometheusClient::Query(const MetricsRequest& request,
                                                              WallTime now, MonoTime deadline,
                                                              const std::stop_token& cancel) const {
  const Range range = RangeOf(request, now, settings_.rules.max_points);
  auto left = std::chrono::duration_cast<milliseconds>(deadline - clock_.Monotonic());
  auto server_timeout = std::clamp(left, milliseconds(1), milliseconds(settings_.timeout_ms));
  std::string path = "/api/v1/query_range?query=" + Encode(request.query) +
                     "&start=" + std::to_string(range.start) + "&end=" + std::to_string(range.end) +
                     "&step=" + std::to_string(range.step) +
                     "&timeout=" + std::to_string(server_timeout.count()) + "ms";
  auto answer = Get(path, deadline, cancel);
  if (!answer) return Unexpected(answer.error());
  auto result = ReadQueryRange(answer->status, answer->body, request, settings_.rules);
  if (!result) return Unexpected(result.error());
  return MetricsOutput{std::move(*result), std::move(answer->body)};
}

Result<MetricsCensus, AdapterFailure> PrometheusClient::Census(WallTime now,
                                                               MonoTime deadline) const {
  const std::int64_t end = UnixSeconds(now);
  const std::int64_t start = end - std::int64_t{settings_.rules.max_lookback_minutes} * 60;
  auto answer = Get("/api/v1/label/__name__/values?start=" + std::to_string(start) +
                        "&end=" + std::to_string(end),
                    deadline, {});
  if (!answer) return Unexpected(answer.error());
  auto names = ReadNameCount(answer->status, answer->body);
  if (!names) {
    AdapterFailure failure = names.error();
    if (failure.message.empty()) failure.message = "the answer is not Prometheus's API";
    return Unexpected(failure);
  }
  return MetricsCensus{*names};
}

}  // namespace diagd::tools::metrics
