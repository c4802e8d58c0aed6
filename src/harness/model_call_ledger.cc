#include "harness/model_call_ledger.h"

namespace diagd::harness {

int ModelCallLedger::Record(model::Component component,
                            const std::optional<model::Usage>& usage) {
  MutexLock lock(mu_);
  ++totals_.audited_calls;
  if (usage) {
    totals_.audited_total_tokens += usage->total_tokens;
  } else {
    ++totals_.usage_unavailable_calls;
  }
  return ++rounds_[component];
}

LedgerTotals ModelCallLedger::Totals() const {
  MutexLock lock(mu_);
  return totals_;
}

void ModelCallLedger::RecordFailure(model::Component component, const Error& error) {
  MutexLock lock(mu_);
  failures_.push_back({component, error.reason.value_or(FailureReason::kInternal), error.message});
}

std::vector<FailedModelCall> ModelCallLedger::Failures() const {
  MutexLock lock(mu_);
  return failures_;
}

}  // namespace diagd::harness
