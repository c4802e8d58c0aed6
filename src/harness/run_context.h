// Everything one run's harness holds: its id, budget, progress tracker,
// model call ledger and trace. Created when the run starts with thresholds
// and limits fixed for the run.
//
// Thread safety: the budget, tracker, ledger and trace are safe for
// concurrent readers; the run itself is driven by one worker at a time.
#pragma once

#include <stop_token>
#include <string>

#include "core/clock.h"
#include "harness/model_call_ledger.h"
#include "harness/progress_tracker.h"
#include "harness/run_budget.h"
#include "harness/trace.h"

namespace diagd::harness {

struct RunLimits {
  BudgetLimits budget;
  TrackerThresholds thresholds;
};

class RunContext {
 public:
  // `cancel`: the run's cancellation token (RunBudget), none by default.
  RunContext(std::string run_id, RunLimits limits, const Clock& clock,
             std::stop_token cancel = {})
      : run_id_(std::move(run_id)),
        clock_(clock),
        budget_(limits.budget, clock, std::move(cancel)),
        tracker_(limits.thresholds),
        trace_(clock) {}

  const std::string& run_id() const { return run_id_; }
  const Clock& clock() const { return clock_; }
  RunBudget& budget() { return budget_; }
  ProgressTracker& tracker() { return tracker_; }
  ModelCallLedger& ledger() { return ledger_; }
  bool cancelled() const { return budget_.cancelled(); }
  InMemoryTrace& trace() { return trace_; }

  // Traces RUN_FINISHED with the budget's and the ledger's token totals and
  // whether they reconcile (equal, and no call without usage).
  void RecordRunFinished(const std::string& status, const std::string& internal_status);

 private:
  const std::string run_id_;
  const Clock& clock_;
  RunBudget budget_;
  ProgressTracker tracker_;
  ModelCallLedger ledger_;
  InMemoryTrace trace_;
};

}  // namespace diagd::harness
