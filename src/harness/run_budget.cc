#include "harness/run_budget.h"

#include <algorithm>

namespace diagd::harness {

RunBudget::RunBudget(BudgetLimits limits, const Clock& clock, std::stop_token cancel)
    : limits_(limits), clock_(clock), start_(clock.Monotonic()), cancel_(std::move(cancel)) {}

Status RunBudget::CheckTimeAndTokens() const {
  if (cancel_.stop_requested()) return Error::Cancelled("the run was cancelled");
  if (clock_.Monotonic() - start_ >= limits_.max_run_time) {
    return Error::ResourceExhausted("run time budget spent");
  }
  if (total_tokens_ >= limits_.max_total_tokens) {
    return Error::ResourceExhausted("token budget spent");
  }
  return OkStatus();
}

std::chrono::milliseconds RunBudget::TimeLeft() const {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      limits_.max_run_time - (clock_.Monotonic() - start_));
  return std::max(left, std::chrono::milliseconds(0));
}

Status RunBudget::AdmitModelCall(model::Component component) {
  MutexLock lock(mu_);
  if (auto status = CheckTimeAndTokens(); !status) return status;
  int reserve = component == model::Component::kDiagnosisAgent ? limits_.reserved_release_calls : 0;
  if (model_calls_ + 1 + reserve > limits_.max_model_calls) {
    return Error::ResourceExhausted("model call budget spent");
  }
  ++model_calls_;
  return OkStatus();
}

void RunBudget::ChargeTokens(std::int64_t tokens) {
  MutexLock lock(mu_);
  total_tokens_ += tokens;
}

Status RunBudget::AdmitToolCall() {
  MutexLock lock(mu_);
  if (auto status = CheckTimeAndTokens(); !status) return status;
  if (tool_calls_ >= limits_.max_tool_calls) {
    return Error::ResourceExhausted("tool call budget spent");
  }
  if (tool_bytes_ >= limits_.max_tool_bytes) {
    return Error::ResourceExhausted("tool byte budget spent");
  }
  ++tool_calls_;
  return OkStatus();
}

void RunBudget::ChargeToolBytes(std::size_t bytes) {
  MutexLock lock(mu_);
  tool_bytes_ += static_cast<std::int64_t>(bytes);
}

BudgetUsage RunBudget::Usage() const {
  MutexLock lock(mu_);
  BudgetUsage usage;
  usage.model_calls = model_calls_;
  usage.tool_calls = tool_calls_;
  usage.total_tokens = total_tokens_;
  usage.tool_bytes = tool_bytes_;
  usage.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.Monotonic() - start_);
  return usage;
}

}  // namespace diagd::harness
