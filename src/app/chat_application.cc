#include "app/chat_application.h"

#include "app/answer_routes.h"
#include "app/diagnosis_executor.h"
#include "app/run_event_recorder.h"
#include "app/run_failure.h"
#include "core/ids.h"
#include "release/release_messages.h"
#include "release/safe_fallback.h"

namespace diagd::app {
namespace {

constexpr int kHistoryTurns = 6;

// Statuses of the run record (docs/run-store.md).
struct RunStatuses {
  std::string status;
  std::string internal_status;
  std::optional<std::string> stop_reason;
};

// Holds the router's MODEL_CALL until RUN_STARTED (which names the route)
// is recorded, so a run's trace starts with RUN_STARTED.
class HeldTrace final : public harness::TraceRecorder {
 public:
  void Record(harness::TraceEventType type, std::vector<harness::TraceField> fields) override {
    held_.emplace_back(type, std::move(fields));
  }
  void ReplayInto(harness::TraceRecorder& trace) {
    for (auto& [type, fields] : held_) trace.Record(type, std::move(fields));
    held_.clear();
  }

 private:
  std::vector<std::pair<harness::TraceEventType, std::vector<harness::TraceField>>> held_;
};

std::vector<model::Message> History(const std::vector<ConversationTurn>& turns) {
  std::vector<model::Message> history;
  for (const auto& turn : turns) {
    history.push_back({turn.role == "user" ? model::Role::kUser : model::Role::kAssistant,
                       turn.content, {}, {}});
  }
  return history;
}

}  // namespace

harness::RunLimits RunLimitsFrom(const config::HarnessConfig& h) {
  harness::RunLimits limits;
  limits.budget.max_model_calls = h.max_model_calls;
  limits.budget.max_tool_calls = h.max_tool_calls;
  limits.budget.max_total_tokens = h.max_total_tokens;
  limits.budget.max_tool_bytes = h.max_tool_bytes;
  limits.budget.max_run_time = std::chrono::seconds(h.max_run_seconds);
  limits.thresholds.no_gain = h.no_gain_threshold;
  limits.thresholds.protocol_violation = h.protocol_violation_threshold;
  return limits;
}

namespace {

// How a route ended, for the run's record.
struct RouteEnd {
  RunStatuses statuses{"SUCCEEDED", "COMPLETED", std::nullopt};
  std::optional<Error> error;  // the error the route ended on
};

// No answer can be released: the same safe fallback a diagnosis gets,
// showing what was checked.
void FailWithoutAnswer(const ChatDeps& deps, harness::RunContext& run, std::optional<Error> error,
                       ChatResult& result, RouteEnd& end) {
  result.release_outcome = release::ReleaseOutcome::kFallback;
  auto snapshot = harness::ProjectProgress(run.run_id(), run.tracker().Snapshot(),
                                           deps.canonical_store, run.trace());
  result.fallback = release::SafeFallbackFactory(deps.canonical_store, deps.language, {})
                        .Build(run.run_id(), release::FallbackCode::kFailed, snapshot, {});
  end.statuses = {"FAILED", "FAILED", std::nullopt};
  end.error = std::move(error);
}

RouteEnd AnswerSystemChat(const ChatDeps& deps, harness::RunContext& run,
                          harness::ModelInterceptor& models, const std::string& message,
                          ChatResult& result) {
  RouteEnd end;
  auto answer = SystemChat(models, message, deps.language);
  if (answer) {
    result.release_outcome = release::ReleaseOutcome::kAnswer;
    result.answer = std::move(*answer);
  } else {
    FailWithoutAnswer(deps, run, std::move(answer).error(), result, end);
  }
  return end;
}

RouteEnd AnswerKnowledge(const ChatDeps& deps, harness::RunContext& run,
                         harness::ModelInterceptor& models, const std::string& message,
                         ChatResult& result) {
  RouteEnd end;
  KnowledgeOutcome knowledge = AnswerFromDocuments(run, models, deps.boundary, message, deps.language);
  result.process = knowledge.process;
  if (knowledge.answer) {
    result.release_outcome = release::ReleaseOutcome::kAnswer;
    result.answer = std::move(knowledge.answer);
  } else {
    FailWithoutAnswer(deps, run, std::move(knowledge.failure), result, end);
  }
  return end;
}

RouteEnd Diagnose(const ChatDeps& deps, harness::RunContext& run, const std::string& message,
                  const std::vector<ConversationTurn>& earlier, ChatObserver* observer,
                  ChatResult& result, RunRecord& record) {
  release::SubjectVocabulary subjects = deps.subjects;
  for (auto& topic : deps.catalog.Topics()) subjects.topics.push_back(std::move(topic));
  DiagnosisChatExecutor executor(
      {deps.model, deps.catalog, deps.boundary, deps.canonical_store, deps.language,
       deps.observation_limits, observer},
      {deps.model, deps.canonical_store, deps.language, deps.observation_limits, {},
       std::move(subjects)});
  DiagnosisOutcome outcome = executor.Execute(run, message, History(earlier));
  result.release_outcome = outcome.decision.outcome;
  result.diagnosis = std::move(outcome.decision.diagnosis);
  result.fallback = std::move(outcome.decision.fallback);
  result.process = std::move(outcome.decision.process);
  record.steps = std::move(outcome.steps);
  record.observations = std::move(outcome.observations);
  return {{outcome.status, outcome.internal_status, outcome.stop_reason},
          std::move(outcome.failure)};
}

// Why the run ended as it did, in the record and in its fallback's
// limitations: stopped by an operator, or failed for a named reason.
void ExplainEnding(const ChatDeps& deps, harness::RunContext& run, RouteEnd& end,
                   ChatResult& result, RunRecord& record) {
  for (const auto& failed : run.ledger().Failures()) {
    record.model_failures.push_back(
        {model::ComponentName(failed.component), FailureReasonName(failed.reason)});
  }
  if (run.cancelled()) {
    // Stopped by an operator, whatever the route: not a failure to explain.
    end.statuses.internal_status = "STOPPED";
    end.statuses.stop_reason = harness::StopReasonString(harness::StopReason::kCancelled);
    if (result.fallback) {
      result.fallback->limitations.push_back(release::CancelledSentence(deps.language));
    }
  } else if (end.statuses.status == "FAILED") {
    FailureEvidence evidence{end.error ? &*end.error : nullptr, run.ledger().Failures(),
                             &result.process, run.budget().TimeLeft().count() == 0};
    if (auto failure = ExplainFailure(evidence)) {
      record.failure_reason = FailureReasonName(failure->reason);
      record.failure_detail = failure->detail;
      if (result.fallback) {
        result.fallback->limitations.push_back(FailureLimitation(*failure, deps.language));
      }
    }
  }
}

}  // namespace

Result<ChatResult> ChatApplicationUseCase::Handle(const ChatRequest& request,
                                                  ChatObserver* watcher) const {
  // Every callback goes through the recorder, which numbers the run's
  // events for the record and passes them on to the watcher.
  RunEventRecorder events(watcher);
  ChatResult result;
  result.run_id = NewId(deps_.clock);
  bool follow_up = request.conversation_id.has_value();
  result.conversation_id = follow_up ? *request.conversation_id : NewId(deps_.clock);
  harness::RunContext run(result.run_id, deps_.limits, deps_.clock, request.cancel);

  RunRecord record = NewRecord(request, result);
  std::vector<ConversationTurn> earlier;
  if (follow_up) {
    auto turns = deps_.runs.RecentTurns(result.conversation_id, kHistoryTurns);
    if (turns) earlier = std::move(*turns);
  }
  events.OnRunStarted(result.run_id, result.conversation_id);
  // Stored before routing (route still empty), so the run can be read back,
  // and abandoned, from its `run` event on.
  if (auto created = deps_.runs.CreateRun(record); !created) {
    return Error{created.error().code,
                 "the run could not be executed (the run store refused it): " +
                     created.error().message};
  }

  result.route = ChooseRoute(request, run);
  record.route = RouteString(result.route);
  harness::ModelInterceptor models(deps_.model, run.budget(), run.ledger(), run.trace());
  events.OnRouted(result.route);
  RouteEnd end;
  switch (result.route) {
    case Route::kSystemChat:
      end = AnswerSystemChat(deps_, run, models, request.message, result);
      break;
    case Route::kKnowledge:
      end = AnswerKnowledge(deps_, run, models, request.message, result);
      break;
    case Route::kDiagnosis:
      end = Diagnose(deps_, run, request.message, earlier, &events, result, record);
      break;
  }
  ExplainEnding(deps_, run, end, result, record);
  run.RecordRunFinished(end.statuses.status, end.statuses.internal_status);
  record.status = end.statuses.status;
  record.internal_status = end.statuses.internal_status;
  record.stop_reason = end.statuses.stop_reason;
  return Finish(request, run, std::move(record), std::move(result), events);
}

RunRecord ChatApplicationUseCase::NewRecord(const ChatRequest& request,
                                            const ChatResult& result) const {
  RunRecord record;
  record.run_id = result.run_id;
  record.conversation_id = result.conversation_id;
  record.question = request.message;
  record.status = record.internal_status = "RUNNING";
  record.created_at = deps_.clock.Now();
  record.instance_id = deps_.instance_id;
  record.lease_until = record.created_at + deps_.lease;
  return record;
}

Route ChatApplicationUseCase::ChooseRoute(const ChatRequest& request,
                                          harness::RunContext& run) const {
  HeldTrace router_trace;
  Route route = Route::kDiagnosis;
  if (request.route) {
    route = *request.route;
  } else {
    harness::ModelInterceptor router(deps_.model, run.budget(), run.ledger(), router_trace);
    route = RouteQuestion(router, request.message, deps_.language);
  }
  run.trace().Record(harness::TraceEventType::kRunStarted, {{"route", RouteString(route)}});
  router_trace.ReplayInto(run.trace());
  return route;
}

Result<ChatResult> ChatApplicationUseCase::Finish(const ChatRequest& request,
                                                  harness::RunContext& run, RunRecord record,
                                                  ChatResult result,
                                                  RunEventRecorder& events) const {
  record.release_outcome = release::ReleaseOutcomeString(result.release_outcome);
  if (result.fallback) record.fallback_code = release::FallbackCodeString(result.fallback->code);
  record.total_token_count = run.budget().Usage().total_tokens;
  record.finished_at = deps_.clock.Now();
  record.result_json = ChatResultJson(result);
  record.trace = run.trace().Events();
  events.CloseWithResult(record.result_json);
  record.events = events.events();
  // The result is shown only once stored: a client that saw it can read
  // the run back, and nobody sees a result the store then loses.
  if (Status stored = deps_.records.Write(record); !stored) {
    deps_.canonical_store.ForgetRun(result.run_id);
    events.OnRunNotStored(record, stored.error());
    return Error::Unavailable("the run finished but its record could not be stored: " +
                              stored.error().message);
  }
  bool english = deps_.language == config::Language::kEn;
  const ConversationTurn turns[] = {
      {"user", request.message, result.run_id, record.created_at},
      {"assistant", ChatResultText(result, english), result.run_id, *record.finished_at}};
  (void)deps_.runs.AppendTurns(result.conversation_id, turns);
  // Everything that reads the run's canonical records (guards, fallback,
  // process) is done, and the run is stored.
  deps_.canonical_store.ForgetRun(result.run_id);
  events.OnRunRecorded(record);
  events.DeliverClosing();
  return result;
}

}  // namespace diagd::app
