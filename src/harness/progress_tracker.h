// The progress tracker of one run (docs/specs/progress-protocol.md):
// control state only. It counts consecutive NO_GAIN grades and consecutive
// protocol violations, knows whether collection is COLLECTING or SATURATED
// and why, whether the stop instruction was delivered, which one call awaits
// the model's grade, which (tool, scope) pairs ran successfully and by which
// call, and the ordered index of completed calls. It never holds a raw
// response, a result or user-facing text: the canonical store is the truth
// about tools, read through the index.
//
// Each method is one atomic step; the tool interceptor decides their order.
// Thresholds are fixed when the run starts.
//
// Thread safety: safe for concurrent use. The run's one worker mutates it
// while the server may take snapshots.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "harness/stop_reason.h"
#include "tools/tool_types.h"

namespace diagd::harness {

enum class CollectionState { kCollecting, kSaturated };
const char* CollectionStateString(CollectionState state);

struct TrackerThresholds {
  int no_gain = 3;             // consecutive NO_GAIN grades that saturate collection
  int protocol_violation = 2;  // consecutive violations that stop it
};

// A completed (executed) call, in the order calls completed: the canonical
// key is (run id, tool_call_id).
struct CompletedCall {
  std::string tool_call_id;
  tools::ToolName tool;
};

struct PendingCall {
  std::string tool_call_id;
  tools::ToolName tool;
};

// The outcome of one grade (model or harness) or one violation.
struct ProgressUpdate {
  int consecutive_no_gain = 0;
  int consecutive_protocol_violations = 0;
  CollectionState state = CollectionState::kCollecting;
  std::optional<StopReason> stop_reason;
  bool saturated_now = false;  // this very step saturated collection
};

// A consistent copy of the whole state, for readers.
struct ProgressState {
  int consecutive_no_gain = 0;
  int consecutive_protocol_violations = 0;
  CollectionState state = CollectionState::kCollecting;
  std::optional<StopReason> stop_reason;
  bool stop_delivered = false;
  std::optional<PendingCall> pending;
  std::vector<CompletedCall> completed;
  std::size_t executed_scopes = 0;
};

class ProgressTracker {
 public:
  explicit ProgressTracker(TrackerThresholds thresholds) : thresholds_(thresholds) {}

  std::optional<PendingCall> Pending() const;

  // Applies the model's grade to the pending call and clears it. GAINED
  // resets the NO_GAIN count, NO_GAIN adds one; reaching the threshold
  // saturates with INFORMATION_SATURATED.
  // REQUIRES: a call is pending.
  ProgressUpdate ApplyModelGrade(tools::InformationGain gain);

  // A deterministic NO_GAIN by the harness (a NO_EVIDENCE result or a
  // duplicate scope). Nothing pending is touched.
  ProgressUpdate ApplyHarnessNoGain();

  // One more consecutive protocol violation (also unknown tools and invalid
  // input). NO_GAIN and the pending call are untouched. Reaching the
  // threshold saturates with PROGRESS_PROTOCOL_VIOLATED.
  ProgressUpdate RecordProtocolViolation();

  // A request passed every check: consecutive violations go back to zero.
  void ResetProtocolViolations();

  // The id of the call that already ran `(tool, scope_identity)` successfully.
  std::optional<std::string> ExecutedScopeOwner(tools::ToolName tool,
                                                const std::string& scope_identity) const;

  // An executed call completed: it joins the index; unless it is ERROR its
  // scope joins the executed set; EVIDENCE_FOUND makes it the pending call.
  void RecordCompleted(tools::ToolName tool, const std::string& scope_identity,
                       const std::string& tool_call_id, tools::EvidenceStatus status);

  bool IsSaturated() const;
  std::optional<StopReason> stop_reason() const;

  // The stop instruction was delivered in the turn that just ended.
  void MarkStopDelivered();
  bool StopDelivered() const;

  // True exactly once: whoever ends the loop for a stop traces
  // COLLECTION_STOPPED only when this says so.
  bool ClaimCollectionStoppedTrace();

  ProgressState Snapshot() const;

 private:
  ProgressUpdate Update() const REQUIRES(mu_);
  void Saturate(StopReason reason) REQUIRES(mu_);

  const TrackerThresholds thresholds_;
  mutable Mutex mu_;
  int consecutive_no_gain_ GUARDED_BY(mu_) = 0;
  int consecutive_violations_ GUARDED_BY(mu_) = 0;
  CollectionState state_ GUARDED_BY(mu_) = CollectionState::kCollecting;
  std::optional<StopReason> stop_reason_ GUARDED_BY(mu_);
  bool stop_delivered_ GUARDED_BY(mu_) = false;
  bool stop_traced_ GUARDED_BY(mu_) = false;
  std::optional<PendingCall> pending_ GUARDED_BY(mu_);
  std::map<std::pair<tools::ToolName, std::string>, std::string> executed_scopes_ GUARDED_BY(mu_);
  std::vector<CompletedCall> completed_ GUARDED_BY(mu_);
};

}  // namespace diagd::harness
