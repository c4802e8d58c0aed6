#include "agent/diagnosis_agent.h"

#include "agent/prompts.h"
#include "agent/tool_call_ids.h"
#include "core/mutex.h"
#include "harness/model_interceptor.h"
#include "harness/tool_interceptor.h"

namespace diagd::agent {
namespace {

using harness::StopReason;
using harness::TraceEventType;

// The catalog's tools as the model is offered them: one list for every run
// that takes the same catalog snapshot, instead of a copy of the
// descriptions and schemas per run. Keyed by the snapshot itself (a
// weak_ptr, so a freed one never matches a newer one at its address).
struct OfferedToolsCache {
  Mutex mu;
  std::weak_ptr<const std::vector<tools::ToolDefinition>> source GUARDED_BY(mu);
  model::ToolList offered GUARDED_BY(mu);
};

model::ToolList ToolsOffered(const tools::ToolCatalog& catalog) {
  static OfferedToolsCache cache;
  std::shared_ptr<const std::vector<tools::ToolDefinition>> definitions = catalog.Definitions();
  MutexLock lock(cache.mu);
  if (cache.source.lock() != definitions) {
    std::vector<model::FunctionTool> tools;
    for (const auto& definition : *definitions) {
      tools.push_back({definition.name, definition.description, definition.parameters_schema});
    }
    cache.offered = model::MakeToolList(std::move(tools));
    cache.source = definitions;
  }
  return cache.offered;
}

// How one turn of the loop ended.
enum class TurnEnd { kContinue, kFinalMessage, kStopped, kBudget, kCancelled, kFailed };

// The conversation so far: where each kept observation is in it, so that
// its text goes to the execution once the loop is done with the
// conversation, instead of a copy of every tool result held for the whole
// run (at 30 log events a fifth of a run's memory).
struct Transcript {
  model::ChatRequest request;
  std::vector<std::size_t> observation_messages;
};

// A model call that got no answer: cancelled, refused by the budget, or failed.
TurnEnd EndOfFailedCall(const Error& error, DiagnosisAgentExecution& execution) {
  if (error.code == ErrorCode::kCancelled) return TurnEnd::kCancelled;
  if (error.code == ErrorCode::kResourceExhausted) return TurnEnd::kBudget;
  execution.failure = error;
  return TurnEnd::kFailed;
}

// The assistant's tool calls through the harness, each answer appended to
// the conversation as a tool message.
TurnEnd RunToolTurn(harness::ToolInterceptor& tool_calls, model::Message message,
                    Transcript& transcript, DiagnosisAgentExecution& execution) {
  std::vector<harness::ToolCallRequest> calls;
  for (const auto& call : message.tool_calls) calls.push_back({call.id, call.name, call.arguments});
  transcript.request.messages.push_back(std::move(message));
  try {
    harness::TurnResult turn = tool_calls.HandleTurn(calls);
    for (auto& response : turn.responses) {
      // Kept as the model sees it; a cancelled turn's never reach it.
      if (response.executed && !turn.cancelled) {
        transcript.observation_messages.push_back(transcript.request.messages.size());
        execution.observations.push_back({response.tool_call_id, {}});
      }
      // Held once, however many later requests carry it (Message::shared_content).
      model::Message observation{model::Role::kTool, {}, {}, response.tool_call_id};
      observation.shared_content = std::move(response.observation);
      transcript.request.messages.push_back(std::move(observation));
    }
    if (turn.cancelled) return TurnEnd::kCancelled;
    if (turn.budget_exhausted) return TurnEnd::kBudget;
    return TurnEnd::kContinue;
  } catch (...) {
    // The one exception that crosses the loop on purpose; anything else is
    // an internal failure, reported without its text.
    if (harness::FindCollectionStopped(std::current_exception())) return TurnEnd::kStopped;
    execution.failure = Error::Internal("the diagnosis loop failed");
    return TurnEnd::kFailed;
  }
}

// The kept observations' text into the execution, read one at a time and
// each freed as it goes (what the model client kept first, which shares
// them), so that the run never holds its results twice.
void KeepObservations(Transcript& transcript, DiagnosisAgentExecution& execution) {
  transcript.request.conversation.reset();
  for (std::size_t i = 0; i < transcript.observation_messages.size(); ++i) {
    model::Message& message = transcript.request.messages[transcript.observation_messages[i]];
    execution.observations[i].observation_json = model::ContentOf(message);
    message.shared_content = {};
  }
}

// Why collection stopped, traced once.
void RecordStop(harness::RunContext& run, TurnEnd end, bool cancelled,
                DiagnosisAgentExecution& execution) {
  if (cancelled) {
    execution.stop_reason = StopReason::kCancelled;
    execution.failure.reset();
  } else if (end == TurnEnd::kBudget) {
    execution.stop_reason = StopReason::kBudgetLimitReached;
  } else {
    execution.stop_reason = run.tracker().stop_reason();
  }
  if (execution.stop_reason && run.tracker().ClaimCollectionStoppedTrace()) {
    run.trace().Record(TraceEventType::kCollectionStopped,
                       {{"stop_reason", std::string(StopReasonString(*execution.stop_reason))}});
  }
}

// The model's final message as a draft, or discarded whole: only a fixed
// category and a byte count are kept.
void ReadDraft(harness::RunContext& run, const std::string& final_text,
               DiagnosisAgentExecution& execution) {
  auto draft = ParseDraft(final_text);
  if (draft) {
    execution.draft = std::move(*draft);
    return;
  }
  execution.rejected_output = OutputRejection{draft.error(), final_text.size()};
  run.trace().Record(TraceEventType::kAgentOutputRejected,
                     {{"failure_category", std::string(DraftRejectionString(draft.error()))},
                      {"output_bytes", static_cast<std::int64_t>(final_text.size())},
                      {"has_publishable_progress", execution.snapshot.HasObservedFacts()}});
}

}  // namespace

DiagnosisAgentExecution DiagnosisAgentUseCase::Execute(
    harness::RunContext& run, const std::string& question,
    const std::vector<model::Message>& history) const {
  DiagnosisAgentExecution execution;
  harness::ModelInterceptor model_calls(deps_.model, run.budget(), run.ledger(), run.trace());
  harness::ToolInterceptor tool_calls({run.run_id(), deps_.catalog, deps_.boundary, run.budget(),
                                       run.tracker(), run.trace(), deps_.observation_limits,
                                       deps_.observer, run.budget().cancel_token()});
  Transcript transcript;
  model::ChatRequest& request = transcript.request;
  request.component = model::Component::kDiagnosisAgent;
  request.tools = ToolsOffered(deps_.catalog);
  // The loop below only appends to the conversation: a model client may
  // reuse what it kept of the last call (ChatRequest::conversation).
  request.conversation = std::make_shared<model::Conversation>();
  request.messages.push_back({model::Role::kSystem, DiagnosisSystemPrompt(deps_.language), {}, {}});
  for (const auto& turn : history) request.messages.push_back(turn);
  request.messages.push_back({model::Role::kUser, question, {}, {}});

  ToolCallIdAssigner ids;
  std::optional<std::string> final_text;
  TurnEnd end = TurnEnd::kContinue;
  while (end == TurnEnd::kContinue) {
    auto called = model_calls.Call(request);
    if (!called) {
      end = EndOfFailedCall(called.error(), execution);
      break;
    }
    model::Message message = std::move(called->response.message);
    message.role = model::Role::kAssistant;
    ids.Assign(message.tool_calls);
    AgentStep step{called->component_round, called->total_tokens, {}};
    for (const auto& call : message.tool_calls) step.tool_call_ids.push_back(call.id);
    execution.steps.push_back(std::move(step));
    if (message.tool_calls.empty()) {
      final_text = std::move(message.content);
      end = TurnEnd::kFinalMessage;
      break;
    }
    end = RunToolTurn(tool_calls, std::move(message), transcript, execution);
  }

  KeepObservations(transcript, execution);
  // Whatever else happened meanwhile, the operator may have stopped the run.
  bool cancelled = end == TurnEnd::kCancelled || run.cancelled();
  RecordStop(run, end, cancelled, execution);
  if (cancelled) final_text.reset();
  execution.snapshot =
      harness::ProjectProgress(run.run_id(), run.tracker().Snapshot(), deps_.store, run.trace());
  if (final_text) ReadDraft(run, *final_text, execution);
  return execution;
}

}  // namespace diagd::agent
