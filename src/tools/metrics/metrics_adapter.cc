#include "tools/metrics/metrics_adapter.h"

namespace diagd::tools::metrics {

Result<std::unique_ptr<MetricsAdapter>> MetricsAdapter::Open(MetricsSettings settings,
                                                              std::optional<WallTime> now,
                                                              const Clock& clock) {
  if (auto valid = ValidateSettings(settings); !valid) return Unexpected(valid.error());
  return std::unique_ptr<MetricsAdapter>(new MetricsAdapter(std::move(settings), now, clock));
}

Result<AdapterOutput, AdapterFailure> MetricsAdapter::DoExecute(const ToolRequest& request,
                                                                MonoTime deadline,
                                                                const std::stop_token& cancel) {
  const auto* query = std::get_if<MetricsRequest>(&request);
  if (query == nullptr) {
    return Unexpected(AdapterFailure{ToolErrorCode::kToolUnavailable, {}});
  }
  auto output = client_.Query(*query, Now(), deadline, cancel);
  if (!output) return Unexpected(std::move(output).error());
  return AdapterOutput{ToolResult(std::move(output->result)), std::move(output->raw_response)};
}

}  // namespace diagd::tools::metrics
