// Opening query_metrics' backend from [tools.metrics] (the face's
// OpenBackend): nothing where the table is absent.
#include "config/config.h"
#include "tools/metrics/metrics_adapter.h"
#include "tools/metrics/metrics_tool.h"

namespace diagd::tools::metrics {

Result<OpenedBackend> QueryMetrics::OpenBackend(const BackendContext& context) {
  const auto& metrics = context.config.tools.metrics;
  if (!metrics) return OpenedBackend{};
  auto adapter = MetricsAdapter::Open(SettingsFrom(*metrics), context.config.now, context.clock);
  if (!adapter) return Error::InvalidArgument("tools.metrics: " + adapter.error().message);
  return OpenedBackend{std::move(*adapter), {}};
}

}  // namespace diagd::tools::metrics
