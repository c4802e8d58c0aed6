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

Result<ChatResult> ChatApplicationUseCase::Handle(const ChatRequest& request,
                                                  ChatObserver* watcher) const {
  // Every callback goes through the recorder, which numbers the run's
  // events for the record and passes them on to the watcher.
  RunEventRecorder events(watcher);
  ChatObserver* observer = &events;
  ChatResult result;
  result.run_id = NewId(deps_.clock);
  bool follow_up = request.conversation_id.has_value();
  result.conversation_id = follow_up ? *request.conversation_id : NewId(deps_.clock);
  harness::RunContext run(result.run_id, deps_.limits, deps_.clock, request.cancel);

  RunRecord record;
  record.run_id = result.run_id;
  record.conversation_id = result.conversation_id;
  record.question = request.message;
  record.status = record.internal_status = "RUNNING";
  record.created_at = deps_.clock.Now();
  record.instance_id = deps_.instance_id;
  record.lease_until = record.created_at + deps_.lease;
  std::vector<ConversationTurn> earlier;
  if (follow_up) {
    auto turns = deps_.runs.RecentTurns(result.conversation_id, kHistoryTurns);
    if (turns) earlier = std::move(*turns);
  }
  observer->OnRunStarted(result.run_id, result.conversation_id);
  // Stored before routing (route still empty), so the run can be read back,
  // and abandoned, from its `run` event on.
  if (auto created = deps_.runs.CreateRun(record); !created) {
    return Error{created.error().code,
                 "the run could not be executed (the run store refused it): " +
                     created.error().message};
  }

  HeldTrace router_trace;
  if (request.route) {
    result.route = *request.route;
  } else {
    harness::ModelInterceptor router(deps_.model, run.budget(), run.ledger(), router_trace);
    result.route = RouteQuestion(router, request.message, deps_.language);
  }
  record.route = RouteString(result.route);
  run.trace().Record(harness::TraceEventType::kRunStarted, {{"route", record.route}});
  router_trace.ReplayInto(run.trace());
  harness::ModelInterceptor models(deps_.model, run.budget(), run.ledger(), run.trace());
  observer->OnRouted(result.route);

  RunStatuses statuses{"SUCCEEDED", "COMPLETED", std::nullopt};
  std::optional<Error> route_error;  // the error the route ended on
  // No answer can be released: the same safe fallback a diagnosis gets,
  // showing what was checked.
  auto fail_without_answer = [&] {
    result.release_outcome = release::ReleaseOutcome::kFallback;
    auto snapshot = harness::ProjectProgress(run.run_id(), run.tracker().Snapshot(),
                                             deps_.canonical_store, run.trace());
    result.fallback = release::SafeFallbackFactory(deps_.canonical_store, deps_.language, {})
                          .Build(run.run_id(), release::FallbackCode::kFailed, snapshot, {});
    statuses = {"FAILED", "FAILED", std::nullopt};
  };
  switch (result.route) {
    case Route::kSystemChat: {
      auto answer = SystemChat(models, request.message, deps_.language);
      if (answer) {
        result.release_outcome = release::ReleaseOutcome::kAnswer;
        result.answer = std::move(*answer);
      } else {
        route_error = std::move(answer).error();
        fail_without_answer();
      }
      break;
    }
    case Route::kKnowledge: {
      KnowledgeOutcome knowledge =
          AnswerFromDocuments(run, models, deps_.boundary, request.message, deps_.language);
      result.process = knowledge.process;
      if (knowledge.answer) {
        result.release_outcome = release::ReleaseOutcome::kAnswer;
        result.answer = std::move(knowledge.answer);
      } else {
        route_error = std::move(knowledge.failure);
        fail_without_answer();
      }
      break;
    }
    case Route::kDiagnosis: {
      release::SubjectVocabulary subjects = deps_.subjects;
      for (auto& topic : deps_.catalog.Topics()) subjects.topics.push_back(std::move(topic));
      DiagnosisChatExecutor executor(
          {deps_.model, deps_.catalog, deps_.boundary, deps_.canonical_store, deps_.language,
           deps_.observation_limits, observer},
          {deps_.model, deps_.canonical_store, deps_.language, deps_.observation_limits, {},
           std::move(subjects)});
      DiagnosisOutcome outcome = executor.Execute(run, request.message, History(earlier));
      statuses = {outcome.status, outcome.internal_status, outcome.stop_reason};
      result.release_outcome = outcome.decision.outcome;
      result.diagnosis = std::move(outcome.decision.diagnosis);
      result.fallback = std::move(outcome.decision.fallback);
      result.process = std::move(outcome.decision.process);
      record.steps = std::move(outcome.steps);
      record.observations = std::move(outcome.observations);
      route_error = std::move(outcome.failure);
      break;
    }
  }
  for (const auto& failed : run.ledger().Failures()) {
    record.model_failures.push_back(
        {model::ComponentName(failed.component), FailureReasonName(failed.reason)});
  }
  if (run.cancelled()) {
    // Stopped by an operator, whatever the route: not a failure to explain.
    statuses.internal_status = "STOPPED";
    statuses.stop_reason = harness::StopReasonString(harness::StopReason::kCancelled);
    if (result.fallback) {
      result.fallback->limitations.push_back(release::CancelledSentence(deps_.language));
    }
  } else if (statuses.status == "FAILED") {
    FailureEvidence evidence{route_error ? &*route_error : nullptr, run.ledger().Failures(),
                             &result.process, run.budget().TimeLeft().count() == 0};
    if (auto failure = ExplainFailure(evidence)) {
      record.failure_reason = FailureReasonName(failure->reason);
      record.failure_detail = failure->detail;
      if (result.fallback) {
        result.fallback->limitations.push_back(FailureLimitation(*failure, deps_.language));
      }
    }
  }

  run.RecordRunFinished(statuses.status, statuses.internal_status);
  record.status = statuses.status;
  record.internal_status = statuses.internal_status;
  record.stop_reason = statuses.stop_reason;
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
