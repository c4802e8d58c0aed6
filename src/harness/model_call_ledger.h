// The run's model call ledger: the per-call account behind the MODEL_CALL
// trace events. It hands each made call its component round and sums what
// providers reported. Together with RunBudget's total (charged from the same
// numbers by the model interceptor) it shows whether the run's tokens
// reconcile: a call without usage makes them not reconcile, since unknown
// tokens are never taken as zero.
//
// Thread safety: safe for concurrent use.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "model/chat_model.h"

namespace diagd::harness {

// A model call that got no usable answer (after the client's retries): not
// audited (no tokens were reported), but kept so that the run can say why
// it failed (docs/model-endpoints.md) and operators can count failures per
// component.
struct FailedModelCall {
  model::Component component = model::Component::kDiagnosisAgent;
  FailureReason reason = FailureReason::kInternal;
  std::string detail;  // the client's message: the provider's words, no credential
};

struct LedgerTotals {
  int audited_calls = 0;
  int usage_unavailable_calls = 0;
  std::int64_t audited_total_tokens = 0;
};

class ModelCallLedger {
 public:
  // Records one made call of `component`; returns its round (1, 2, ... per
  // component).
  int Record(model::Component component, const std::optional<model::Usage>& usage);
  LedgerTotals Totals() const;

  // Records a call that failed; an error without a reason counts as INTERNAL.
  void RecordFailure(model::Component component, const Error& error);
  // Every failed call, in order.
  std::vector<FailedModelCall> Failures() const;

 private:
  mutable Mutex mu_;
  std::vector<FailedModelCall> failures_ GUARDED_BY(mu_);
  std::map<model::Component, int> rounds_ GUARDED_BY(mu_);
  LedgerTotals totals_ GUARDED_BY(mu_);
};

}  // namespace diagd::harness
