#include "harness/tool_interceptor.h"

#include "core/text.h"
#include "tools/envelope.h"

namespace diagd::harness {
namespace {

using tools::EvidenceStatus;
using tools::InformationGain;
using tools::ToolName;
using tools::ViolationType;

constexpr std::size_t kMaxTracedToolNameChars = 64;

TraceValue StopReasonValue(const std::optional<StopReason>& reason) {
  if (!reason) return nullptr;
  return std::string(StopReasonString(*reason));
}

// The tool name as traced: a known name, or the requested one, bounded.
std::string TracedToolName(const ToolCallRequest& call) {
  return text::TruncateCodePoints(call.tool_name, kMaxTracedToolNameChars);
}

}  // namespace

std::string ToolCallResponse::ObservationJson() const { return observation.str(); }

const char* ProgressStatusString(ProgressStatus status) {
  switch (status) {
    case ProgressStatus::kStarted:
      return "STARTED";
    case ProgressStatus::kEvidenceFound:
      return "EVIDENCE_FOUND";
    case ProgressStatus::kNoEvidence:
      return "NO_EVIDENCE";
    case ProgressStatus::kError:
      return "ERROR";
    case ProgressStatus::kRejected:
      return "REJECTED";
  }
  return "";
}

tools::ControlView RecordExecutedCall(ProgressTracker& tracker, TraceRecorder& trace,
                                      const tools::ExecutedCall& executed) {
  const tools::CanonicalRecord& record = executed.record;
  tools::ControlView control = tools::ControlViewOf(record);
  tracker.RecordCompleted(record.tool, control.scope->identity, record.tool_call_id,
                          control.evidence_status);
  trace.Record(TraceEventType::kToolCallCompleted,
               {{"tool_call_id", record.tool_call_id},
                {"tool", std::string(tools::ToolNameString(record.tool))},
                {"scope_summary", control.scope->summary},
                {"evidence_status", std::string(tools::EvidenceStatusString(control.evidence_status))},
                {"returned_count", static_cast<std::int64_t>(control.returned_count)},
                {"truncated", control.truncated},
                {"duration_ms", static_cast<std::int64_t>(executed.duration.count())}});
  return control;
}

void ToolInterceptor::Report(const ToolCallRequest& call, const std::string& scope,
                             ProgressStatus status) {
  if (ctx_.observer == nullptr) return;
  if (status == ProgressStatus::kStarted) ++progress_index_;
  ctx_.observer->OnToolProgress({progress_index_, TracedToolName(call), scope, status});
}

TurnResult ToolInterceptor::HandleTurn(std::span<const ToolCallRequest> calls) {
  TurnResult turn;
  if (ctx_.tracker.StopDelivered()) {
    StopReason reason = ctx_.tracker.stop_reason().value_or(StopReason::kInformationSaturated);
    for (const auto& call : calls) {
      ctx_.trace.Record(TraceEventType::kToolRequestRejected,
                        {{"tool_call_id", call.tool_call_id},
                         {"tool", TracedToolName(call)},
                         {"error_code", std::string("COLLECTION_STOPPED")}});
      Report(call, {}, ProgressStatus::kStarted);
      Report(call, {}, ProgressStatus::kRejected);
    }
    if (ctx_.tracker.ClaimCollectionStoppedTrace()) {
      ctx_.trace.Record(TraceEventType::kCollectionStopped,
                        {{"stop_reason", std::string(StopReasonString(reason))}});
    }
    throw CollectionStoppedError(reason);
  }
  for (const auto& call : calls) {
    if (ctx_.cancel.stop_requested()) {
      turn.cancelled = true;
      break;
    }
    executed_ = false;
    std::optional<model::SharedText> observation;
    if (ctx_.tracker.IsSaturated()) {
      // An earlier call of this same response brought the stop.
      observation = RejectForStop(call, "INFORMATION_SATURATED");
    } else {
      observation = HandleCall(call);
    }
    if (!observation) {
      // Refused by the budget, or by the cancel (RunBudget says CANCELLED).
      turn.cancelled = ctx_.cancel.stop_requested();
      turn.budget_exhausted = !turn.cancelled;
      break;
    }
    turn.responses.push_back({call.tool_call_id, std::move(*observation), executed_});
  }
  if (ctx_.cancel.stop_requested()) turn.cancelled = true;
  if (ctx_.tracker.IsSaturated()) ctx_.tracker.MarkStopDelivered();
  return turn;
}

std::optional<model::SharedText> ToolInterceptor::HandleCall(const ToolCallRequest& call) {
  const std::string& id = call.tool_call_id;
  auto tool = tools::ParseToolName(call.tool_name);
  if (!tool) {
    return RejectAsViolation(call, "UNKNOWN_TOOL", std::nullopt,
                             tools::UnknownToolObservation(id));
  }

  // Step 1: the envelope, strictly.
  bool missing_input = false;
  auto envelope = tools::ParseEnvelope(call.arguments_json, &missing_input);
  auto pending = ctx_.tracker.Pending();
  std::optional<std::string> expected_id;
  if (pending) expected_id = pending->tool_call_id;
  auto violation = [&](ViolationType type) {
    return RejectAsViolation(
        call, "INVALID_PROGRESS_PROTOCOL", type,
        tools::ProtocolViolationObservation(id, type, expected_id, missing_input));
  };
  if (!envelope) return violation(envelope.error());

  // Step 2: the grade of the previous result, when one is pending.
  const auto& previous = envelope->previous_observation;
  if (pending) {
    if (!previous) return violation(ViolationType::kMissingPreviousObservation);
    if (previous->tool_call_id != pending->tool_call_id) {
      return violation(ViolationType::kPreviousToolCallIdMismatch);
    }
    if (!previous->information_gain) return violation(ViolationType::kInvalidInformationGain);
  } else if (previous) {
    return violation(ViolationType::kUnexpectedPreviousObservation);
  }

  // Steps 3 and 4: apply the grade; saturation stops this call.
  if (pending) {
    ProgressUpdate update = ctx_.tracker.ApplyModelGrade(*previous->information_gain);
    TraceEvaluated(pending->tool_call_id, pending->tool, *previous->information_gain, "MODEL",
                   update);
    if (update.saturated_now) return RejectForStop(call, "INFORMATION_SATURATED");
  }

  // Step 5: the business input and the tool's own rules.
  auto request = ctx_.catalog.ParseInput(*tool, envelope->input);
  if (!request) {
    return RejectAsViolation(call, "INVALID_TOOL_INPUT", std::nullopt,
                             tools::InvalidInputObservation(id, request.error()));
  }
  ctx_.tracker.ResetProtocolViolations();

  // Step 6: a scope that already ran is a deterministic NO_GAIN.
  tools::Scope scope = tools::ToolCatalog::ScopeOf(*request);
  if (auto owner = ctx_.tracker.ExecutedScopeOwner(*tool, scope.identity)) {
    ProgressUpdate update = ctx_.tracker.ApplyHarnessNoGain();
    TraceEvaluated(id, *tool, InformationGain::kNoGain, "HARNESS", update);
    if (update.saturated_now) return RejectForStop(call, "INFORMATION_SATURATED");
    ctx_.trace.Record(TraceEventType::kToolRequestRejected,
                      {{"tool_call_id", id},
                       {"tool", std::string(tools::ToolNameString(*tool))},
                       {"error_code", std::string("DUPLICATE_SCOPE")}});
    Report(call, scope.summary, ProgressStatus::kStarted);
    Report(call, scope.summary, ProgressStatus::kRejected);
    return model::SharedText(tools::DuplicateScopeObservation(id, *owner));
  }

  // Step 7: run it through the tool boundary.
  bool budget_exhausted = false;
  model::SharedText observation = Execute(call, *tool, std::move(*request), std::move(scope),
                                           &budget_exhausted);
  if (budget_exhausted) return std::nullopt;
  return observation;
}

model::SharedText ToolInterceptor::Execute(const ToolCallRequest& call, ToolName tool,
                                            tools::ToolRequest request, tools::Scope scope,
                                            bool* budget_exhausted) {
  const std::string& id = call.tool_call_id;
  std::string summary = scope.summary;
  Report(call, summary, ProgressStatus::kStarted);
  auto executed = ctx_.boundary.Execute(
      tools::ToolCall{ctx_.run_id, id, std::move(request), std::move(scope), ctx_.cancel},
      ctx_.budget);
  if (!executed) {
    Report(call, summary, ProgressStatus::kRejected);
    *budget_exhausted = true;
    return {};
  }
  executed_ = true;
  const tools::CanonicalRecord& record = executed->record;
  EvidenceStatus status = RecordExecutedCall(ctx_.tracker, ctx_.trace, *executed).evidence_status;

  Report(call, summary,
         status == EvidenceStatus::kEvidenceFound ? ProgressStatus::kEvidenceFound
         : status == EvidenceStatus::kNoEvidence  ? ProgressStatus::kNoEvidence
                                                  : ProgressStatus::kError);
  switch (status) {
    case EvidenceStatus::kError:
      // Not graded, scope not executed: a retry of the same scope is allowed.
      return model::SharedText(tools::ErrorObservation(
          id, record.error_code.value_or(tools::ToolErrorCode::kToolUnavailable),
          record.error_message));
    case EvidenceStatus::kNoEvidence: {
      ProgressUpdate update = ctx_.tracker.ApplyHarnessNoGain();
      TraceEvaluated(id, tool, InformationGain::kNoGain, "HARNESS", update);
      std::optional<std::string_view> stop;
      if (update.saturated_now) stop = StopReasonString(*update.stop_reason);
      return model::SharedText(
          tools::ResultObservation(record.result, ctx_.observation_limits, stop));
    }
    case EvidenceStatus::kEvidenceFound:
      // Pending now: only the model decides whether found content is useful.
      return model::SharedText(tools::ResultObservation(record.result, ctx_.observation_limits));
  }
  return {};
}

model::SharedText ToolInterceptor::RejectAsViolation(const ToolCallRequest& call,
                                                      const char* error_code,
                                                      std::optional<ViolationType> violation,
                                                      const std::string& repair_observation) {
  ProgressUpdate update = ctx_.tracker.RecordProtocolViolation();
  bool stops = update.saturated_now;
  std::vector<TraceField> fields{{"tool_call_id", call.tool_call_id},
                                 {"tool", TracedToolName(call)},
                                 {"error_code", std::string(error_code)}};
  if (violation) {
    fields.push_back({"violation_type", std::string(tools::ViolationTypeString(*violation))});
  }
  fields.push_back({"repair_prompt_delivered", !stops});
  fields.push_back({"consecutive_protocol_violations",
                    static_cast<std::int64_t>(update.consecutive_protocol_violations)});
  if (stops) fields.push_back({"stop_reason", StopReasonValue(update.stop_reason)});
  ctx_.trace.Record(TraceEventType::kToolRequestRejected, std::move(fields));
  Report(call, {}, ProgressStatus::kStarted);
  Report(call, {}, ProgressStatus::kRejected);
  if (stops) {
    return model::SharedText(
        tools::StopObservation(call.tool_call_id, StopReasonString(*update.stop_reason)));
  }
  return model::SharedText(repair_observation);
}

model::SharedText ToolInterceptor::RejectForStop(const ToolCallRequest& call,
                                                  const char* error_code) {
  StopReason reason = ctx_.tracker.stop_reason().value_or(StopReason::kInformationSaturated);
  ctx_.trace.Record(TraceEventType::kToolRequestRejected,
                    {{"tool_call_id", call.tool_call_id},
                     {"tool", TracedToolName(call)},
                     {"error_code", std::string(error_code)},
                     {"stop_reason", std::string(StopReasonString(reason))}});
  Report(call, {}, ProgressStatus::kStarted);
  Report(call, {}, ProgressStatus::kRejected);
  return model::SharedText(tools::StopObservation(call.tool_call_id, StopReasonString(reason)));
}

void ToolInterceptor::TraceEvaluated(const std::string& tool_call_id, ToolName tool,
                                     InformationGain gain, const char* producer,
                                     const ProgressUpdate& update) {
  ctx_.trace.Record(TraceEventType::kProgressEvaluated,
                    {{"tool_call_id", tool_call_id},
                     {"tool", std::string(tools::ToolNameString(tool))},
                     {"information_gain", std::string(tools::InformationGainString(gain))},
                     {"producer", std::string(producer)},
                     {"consecutive_no_gain", static_cast<std::int64_t>(update.consecutive_no_gain)},
                     {"collection_state", std::string(CollectionStateString(update.state))},
                     {"stop_reason", StopReasonValue(update.stop_reason)}});
}

}  // namespace diagd::harness
