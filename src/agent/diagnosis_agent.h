// DiagnosisAgentUseCase: the ReAct loop between the diagnosis model and the
// governed tools, returning what release needs:
// {optional draft, progress snapshot, optional stop reason}, plus the agent
// steps for the run record. Every model call goes through the model
// interceptor (budget, ledger), every tool call through the tool interceptor
// (progress protocol), one by one.
//
// How the loop ends, and what it returns:
//   a final message that parses as a draft      -> draft
//   a final message that does not               -> no draft, rejected_output (category, bytes)
//   a tool asked for after the stop was delivered (CollectionStoppedError,
//     through any wrapping)                     -> no draft, stop reason
//   a budget refused a model or tool call       -> no draft, BUDGET_LIMIT_REACHED
//   the run was cancelled (before or during a
//     model or tool call)                       -> no draft, CANCELLED
//   the model failed (after its retries)        -> no draft, failure
// When collection was stopped (saturated, or the budget), stop_reason says
// why even if a draft follows; release decides what that means.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/draft.h"
#include "config/config.h"
#include "harness/progress_snapshot.h"
#include "harness/run_context.h"
#include "harness/stop_reason.h"
#include "harness/tool_interceptor.h"
#include "model/chat_model.h"
#include "tools/observation.h"
#include "tools/tool_boundary.h"
#include "tools/tool_catalog.h"

namespace diagd::agent {

struct AgentStep {
  int round = 0;                          // the DIAGNOSIS_AGENT component round
  std::optional<std::int64_t> token_count;  // that call's total tokens, when reported
  std::vector<std::string> tool_call_ids;
};

struct OutputRejection {
  DraftRejection category = DraftRejection::kNotJson;
  std::size_t output_bytes = 0;
};

// An executed tool call's observation, as the model was given it.
struct ExecutedObservation {
  std::string tool_call_id;
  std::string observation_json;
};

struct DiagnosisAgentExecution {
  std::optional<DiagnosisDraft> draft;
  harness::ProgressSnapshot snapshot;
  std::optional<harness::StopReason> stop_reason;
  std::optional<OutputRejection> rejected_output;
  std::optional<Error> failure;  // a model or infrastructure failure; never shown to users
  std::vector<AgentStep> steps;
  // What the model was given for each executed tool call, in order, for
  // the run record (rejected requests have none).
  std::vector<ExecutedObservation> observations;
};

struct DiagnosisAgentDeps {
  model::ChatModel& model;
  const tools::ToolCatalog& catalog;
  const tools::ToolBoundary& boundary;
  tools::CanonicalInvocationStore& store;
  config::Language language = config::Language::kZh;
  tools::ObservationLimits observation_limits;
  harness::ToolProgressObserver* observer = nullptr;  // optional, borrowed
};

class DiagnosisAgentUseCase {
 public:
  explicit DiagnosisAgentUseCase(DiagnosisAgentDeps deps) : deps_(std::move(deps)) {}

  // `history`: earlier turns of the conversation (user and assistant text),
  // oldest first, so a follow-up such as a missing time range has context.
  DiagnosisAgentExecution Execute(harness::RunContext& run, const std::string& question,
                                  const std::vector<model::Message>& history = {}) const;

 private:
  DiagnosisAgentDeps deps_;
};

}  // namespace diagd::agent
