// The harness model interceptor: every model call of a run, whatever its
// component, goes through `Call`. In order: the budget admits it (or the call
// is never made); the model is called, with the run's time left as the
// request's deadline; the provider's usage is recorded once, into the ledger
// (a MODEL_CALL trace event with the component round) and into the budget
// total, from the same numbers. That holds for every completion the endpoint
// answered, also one of no use that fails the call (CallError::completed). A
// call that failed goes into the ledger's failures.
//
// Thread safety: one per run, used by the run's worker.
#pragma once

#include <optional>

#include "harness/model_call_ledger.h"
#include "harness/run_budget.h"
#include "harness/trace.h"
#include "model/chat_model.h"

namespace diagd::harness {

struct ModelCallResult {
  model::ChatResponse response;
  int component_round = 0;
  std::optional<std::int64_t> total_tokens;  // absent when usage was not reported
};

class ModelInterceptor {
 public:
  ModelInterceptor(model::ChatModel& model, RunBudget& budget, ModelCallLedger& ledger,
                   TraceRecorder& trace)
      : model_(model), budget_(budget), ledger_(ledger), trace_(trace) {}

  // RESOURCE_EXHAUSTED when the budget refused (no call made); CANCELLED
  // when the run was cancelled before or during the call (not a failure);
  // the model's own error when it failed (audited only when the endpoint
  // answered a completion: a call that got none is not a made call). Sets
  // `request.deadline` and `cancel`.
  Result<ModelCallResult> Call(model::ChatRequest& request);

 private:
  // Records one made call and its usage; the result without its response.
  ModelCallResult Audit(model::Component component, const std::optional<model::Usage>& usage);

  model::ChatModel& model_;
  RunBudget& budget_;
  ModelCallLedger& ledger_;
  TraceRecorder& trace_;
};

}  // namespace diagd::harness
