// DiagnosisChatExecutor: the diagnosis route of a chat. Runs the agent,
// hands whatever it ended with (a draft, a stop of any kind, a budget
// exhaustion, a rejected output, a failure) to release as input, and derives
// the run's statuses from the two. It decides nothing about what is
// published: DiagnosisReleaseUseCase does.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/diagnosis_agent.h"
#include "app/run_store.h"
#include "release/diagnosis_release.h"

namespace diagd::app {

struct DiagnosisOutcome {
  release::ReleaseDecision decision;
  std::string status;           // "SUCCEEDED", or "FAILED" for a FAILED fallback
  std::string internal_status;  // "COMPLETED", "STOPPED", "BUDGET_EXHAUSTED", "FAILED"
  std::optional<std::string> stop_reason;
  std::vector<StoredStep> steps;
  std::vector<StoredObservation> observations;  // of the executed tool calls
  std::optional<Error> failure;  // the agent's model or infrastructure failure
};

class DiagnosisChatExecutor {
 public:
  DiagnosisChatExecutor(agent::DiagnosisAgentDeps agent, release::ReleaseDeps release)
      : agent_(std::move(agent)), release_(std::move(release)) {}

  DiagnosisOutcome Execute(harness::RunContext& run, const std::string& question,
                           const std::vector<model::Message>& history) const;

 private:
  agent::DiagnosisAgentUseCase agent_;
  release::DiagnosisReleaseUseCase release_;
};

}  // namespace diagd::app
