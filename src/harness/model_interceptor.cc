#include "harness/model_interceptor.h"

namespace diagd::harness {

Result<ModelCallResult> ModelInterceptor::Call(model::ChatRequest& request) {
  if (auto admitted = budget_.AdmitModelCall(request.component); !admitted) {
    return admitted.error();
  }
  request.deadline = std::chrono::steady_clock::now() + budget_.TimeLeft();
  request.cancel = budget_.cancel_token();
  auto response = model_.Complete(request);
  if (!response) {
    const model::CallError& error = response.error();
    // A completion of no use was made and billed all the same: audited,
    // once, before the call fails.
    if (error.completed) Audit(request.component, error.usage);
    if (budget_.cancelled()) {
      // Abandoned for the cancel, whatever the client made of it: no failure.
      return Error::Cancelled("the run was cancelled");
    }
    ledger_.RecordFailure(request.component, error);
    return Error(error);
  }
  ModelCallResult result = Audit(request.component, response->usage);
  result.response = std::move(*response);
  return result;
}

ModelCallResult ModelInterceptor::Audit(model::Component component,
                                        const std::optional<model::Usage>& usage) {
  ModelCallResult result;
  result.component_round = ledger_.Record(component, usage);
  std::vector<TraceField> fields{
      {"component", std::string(model::ComponentName(component))},
      {"component_round", static_cast<std::int64_t>(result.component_round)},
      {"usage_available", usage.has_value()}};
  if (usage) {
    fields.push_back({"input_tokens", usage->input_tokens});
    fields.push_back({"output_tokens", usage->output_tokens});
    fields.push_back({"total_tokens", usage->total_tokens});
    budget_.ChargeTokens(usage->total_tokens);
    result.total_tokens = usage->total_tokens;
  }
  trace_.Record(TraceEventType::kModelCall, std::move(fields));
  return result;
}

}  // namespace diagd::harness
