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

#include "core/mutex.h"
#include "model/chat_model.h"

namespace diagd::harness {

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

 private:
  mutable Mutex mu_;
  std::map<model::Component, int> rounds_ GUARDED_BY(mu_);
  LedgerTotals totals_ GUARDED_BY(mu_);
};

}  // namespace diagd::harness
