// The harness tool interceptor: every tool call of the diagnosis model goes
// through `HandleTurn`, which applies docs/specs/progress-protocol.md
// steps 1 to 7 in that order (see tool_interceptor.cc, `HandleCall`, the
// single home of that order), writes the model's observation, and traces each
// decision.
//
// One interceptor per run. Thread safety: used by the run's one worker; the
// tracker it updates may be read concurrently.
#pragma once

#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "harness/progress_tracker.h"
#include "model/chat_model.h"
#include "harness/trace.h"
#include "tools/observation.h"
#include "tools/tool_boundary.h"
#include "tools/tool_catalog.h"

namespace diagd::harness {

// One tool call as the model asked for it.
struct ToolCallRequest {
  std::string tool_call_id;  // unique within the run (the model layer ensures it)
  std::string tool_name;
  std::string arguments_json;  // the envelope, as text
};

// The tool message to send back.
struct ToolCallResponse {
  std::string tool_call_id;
  // The observation (docs/specs/tool-contracts.md), its JSON text held once
  // however many model requests carry it (model::Message::shared_content).
  model::SharedText observation;
  // The call went through the tool boundary (the observation comes from its
  // result, ERROR included); false for a request the harness rejected.
  bool executed = false;

  // The observation's JSON text.
  std::string ObservationJson() const;
};

struct TurnResult {
  // One response per handled call, in order. When the budget ran out, the
  // calls from the refused one on have none.
  std::vector<ToolCallResponse> responses;
  bool budget_exhausted = false;  // the loop must end with BUDGET_LIMIT_REACHED
  bool cancelled = false;         // the run was cancelled: the loop must end with CANCELLED
};

// Progress of tool calls as they happen, for a person watching (CLI stderr,
// SSE `progress` events). Each tool call gets the next index of the run and
// is reported STARTED, then once more with how it ended. Carries nothing the
// user may not see: the tool, the user-safe scope summary, a status.
enum class ProgressStatus { kStarted, kEvidenceFound, kNoEvidence, kError, kRejected };
const char* ProgressStatusString(ProgressStatus status);

struct ToolProgress {
  int index = 0;  // 1, 2, 3... within the run
  std::string tool;
  std::string scope;  // empty when the request was rejected before it had one
  ProgressStatus status = ProgressStatus::kStarted;
};

class ToolProgressObserver {
 public:
  virtual ~ToolProgressObserver() = default;
  // Called on the run's worker thread; must not block for long.
  virtual void OnToolProgress(const ToolProgress& progress) = 0;
};

struct InterceptorContext {
  std::string run_id;
  const tools::ToolCatalog& catalog;
  const tools::ToolBoundary& boundary;
  tools::ToolBudget& budget;
  ProgressTracker& tracker;
  TraceRecorder& trace;
  tools::ObservationLimits observation_limits;
  ToolProgressObserver* observer = nullptr;  // optional, borrowed
  // The run's cancellation: no call starts once it is requested, and the
  // one in flight is handed it (tools::ToolCall::cancel).
  std::stop_token cancel = {};
};

// Records an executed call: it joins the tracker's index (and, unless ERROR,
// the executed scopes; EVIDENCE_FOUND makes it pending) and is traced
// TOOL_CALL_COMPLETED. The one home of both, for the interceptor and for
// product code that calls a tool directly (the knowledge route).
tools::ControlView RecordExecutedCall(ProgressTracker& tracker, TraceRecorder& trace,
                                      const tools::ExecutedCall& executed);

class ToolInterceptor {
 public:
  explicit ToolInterceptor(InterceptorContext context) : ctx_(std::move(context)) {}

  // Handles the tool calls of one model response one after another. If one
  // of them brings the stop, the later ones do not run and each gets the same
  // stop observation; the stop then counts as delivered. Once the run is
  // cancelled no further call is handled (`cancelled`).
  // Throws CollectionStoppedError when called after the stop was delivered in
  // an earlier turn (after tracing the refused calls and COLLECTION_STOPPED).
  TurnResult HandleTurn(std::span<const ToolCallRequest> calls);

 private:
  // Steps 1 to 7 for one call. Returns nothing when the budget refused it.
  std::optional<model::SharedText> HandleCall(const ToolCallRequest& call);

  model::SharedText RejectAsViolation(const ToolCallRequest& call, const char* error_code,
                                       std::optional<tools::ViolationType> violation,
                                       const std::string& repair_observation);
  model::SharedText RejectForStop(const ToolCallRequest& call, const char* error_code);
  void TraceEvaluated(const std::string& tool_call_id, tools::ToolName tool,
                      tools::InformationGain gain, const char* producer,
                      const ProgressUpdate& update);
  model::SharedText Execute(const ToolCallRequest& call, tools::ToolName tool,
                             tools::ToolRequest request, tools::Scope scope,
                             bool* budget_exhausted);

  void Report(const ToolCallRequest& call, const std::string& scope, ProgressStatus status);

  InterceptorContext ctx_;
  int progress_index_ = 0;
  bool executed_ = false;  // the call being handled reached the tool boundary
};

}  // namespace diagd::harness
