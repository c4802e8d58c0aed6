// query_metrics' ToolAdapter: a request runs as one range query on the
// configured Prometheus (prometheus_client.h), over the lookback ending at
// the run's `now`.
//
// Thread safety: safe for concurrent use.
#pragma once

#include <memory>
#include <optional>

#include "core/clock.h"
#include "tools/metrics/prometheus_client.h"
#include "tools/tool_adapter.h"

namespace diagd::tools::metrics {

class MetricsAdapter final : public ToolAdapter {
 public:
  // `now`: the end of every range; the clock's wall time when unset (a
  // fixed `now` serves recorded data). INVALID_ARGUMENT naming the field
  // when the settings cannot be used.
  static Result<std::unique_ptr<MetricsAdapter>> Open(MetricsSettings settings,
                                                      std::optional<WallTime> now,
                                                      const Clock& clock);

  const PrometheusClient& client() const { return client_; }
  // The end of the ranges this adapter queries.
  WallTime Now() const { return now_.value_or(clock_.Now()); }

 private:
  MetricsAdapter(MetricsSettings settings, std::optional<WallTime> now, const Clock& clock)
      : client_(std::move(settings), clock), now_(now), clock_(clock) {}
  Result<AdapterOutput, AdapterFailure> DoExecute(const ToolRequest& request, MonoTime deadline,
                                                  const std::stop_token& cancel) override;

  PrometheusClient client_;
  const std::optional<WallTime> now_;
  const Clock& clock_;
};

}  // namespace diagd::tools::metrics
