#include "harness/run_context.h"

namespace diagd::harness {

void RunContext::RecordRunFinished(const std::string& status, const std::string& internal_status) {
  LedgerTotals totals = ledger_.Totals();
  std::int64_t budget_total = budget_.Usage().total_tokens;
  bool reconciled =
      totals.usage_unavailable_calls == 0 && totals.audited_total_tokens == budget_total;
  trace_.Record(TraceEventType::kRunFinished,
                {{"status", status},
                 {"internal_status", internal_status},
                 {"budget_total_tokens", budget_total},
                 {"audited_total_tokens", totals.audited_total_tokens},
                 {"audited_calls", static_cast<std::int64_t>(totals.audited_calls)},
                 {"usage_unavailable_calls", static_cast<std::int64_t>(totals.usage_unavailable_calls)},
                 {"tokens_reconciled", reconciled}});
}

}  // namespace diagd::harness
