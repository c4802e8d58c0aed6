#include "app/diagnosis_executor.h"

namespace diagd::app {

DiagnosisOutcome DiagnosisChatExecutor::Execute(harness::RunContext& run,
                                                const std::string& question,
                                                const std::vector<model::Message>& history) const {
  agent::DiagnosisAgentExecution execution = agent_.Execute(run, question, history);
  DiagnosisOutcome outcome;
  // A follow-up ("why again?") asks about what the earlier questions named.
  std::vector<std::string> earlier_questions;
  for (const auto& message : history) {
    if (message.role == model::Role::kUser) earlier_questions.push_back(message.content);
  }
  outcome.decision = release_.Release(run, question, execution, earlier_questions);

  if (execution.stop_reason) outcome.stop_reason = harness::StopReasonString(*execution.stop_reason);
  if (execution.failure) {
    outcome.internal_status = "FAILED";
    outcome.failure = execution.failure;
  } else if (execution.stop_reason == harness::StopReason::kBudgetLimitReached) {
    outcome.internal_status = "BUDGET_EXHAUSTED";
  } else if (execution.stop_reason) {
    outcome.internal_status = "STOPPED";
  } else {
    outcome.internal_status = "COMPLETED";
  }
  // A released fallback other than FAILED is a successful run (section 6).
  const auto& fallback = outcome.decision.fallback;
  outcome.status = fallback && fallback->code == release::FallbackCode::kFailed ? "FAILED"
                                                                                : "SUCCEEDED";
  for (const auto& step : execution.steps) {
    outcome.steps.push_back({step.round, step.token_count, step.tool_call_ids});
  }
  // Moved, not copied: release is done with them, and at 30 log events they
  // are a fifth of what a finishing run holds.
  for (auto& observation : execution.observations) {
    outcome.observations.push_back(
        {std::move(observation.tool_call_id), std::move(observation.observation_json)});
  }
  return outcome;
}

}  // namespace diagd::app
