#include "harness/progress_tracker.h"

#include <cassert>

namespace diagd::harness {

const char* CollectionStateString(CollectionState state) {
  return state == CollectionState::kCollecting ? "COLLECTING" : "SATURATED";
}

std::optional<PendingCall> ProgressTracker::Pending() const {
  MutexLock lock(mu_);
  return pending_;
}

ProgressUpdate ProgressTracker::Update() const {
  ProgressUpdate update;
  update.consecutive_no_gain = consecutive_no_gain_;
  update.consecutive_protocol_violations = consecutive_violations_;
  update.state = state_;
  update.stop_reason = stop_reason_;
  return update;
}

void ProgressTracker::Saturate(StopReason reason) {
  // The first stop wins: a run that already stopped keeps its reason.
  if (state_ == CollectionState::kSaturated) return;
  state_ = CollectionState::kSaturated;
  stop_reason_ = reason;
}

ProgressUpdate ProgressTracker::ApplyModelGrade(tools::InformationGain gain) {
  MutexLock lock(mu_);
  assert(pending_.has_value());
  pending_.reset();
  bool was_saturated = state_ == CollectionState::kSaturated;
  if (gain == tools::InformationGain::kGained) {
    consecutive_no_gain_ = 0;
  } else if (++consecutive_no_gain_ >= thresholds_.no_gain) {
    Saturate(StopReason::kInformationSaturated);
  }
  ProgressUpdate update = Update();
  update.saturated_now = !was_saturated && state_ == CollectionState::kSaturated;
  return update;
}

ProgressUpdate ProgressTracker::ApplyHarnessNoGain() {
  MutexLock lock(mu_);
  bool was_saturated = state_ == CollectionState::kSaturated;
  if (++consecutive_no_gain_ >= thresholds_.no_gain) Saturate(StopReason::kInformationSaturated);
  ProgressUpdate update = Update();
  update.saturated_now = !was_saturated && state_ == CollectionState::kSaturated;
  return update;
}

ProgressUpdate ProgressTracker::RecordProtocolViolation() {
  MutexLock lock(mu_);
  bool was_saturated = state_ == CollectionState::kSaturated;
  if (++consecutive_violations_ >= thresholds_.protocol_violation) {
    Saturate(StopReason::kProgressProtocolViolated);
  }
  ProgressUpdate update = Update();
  update.saturated_now = !was_saturated && state_ == CollectionState::kSaturated;
  return update;
}

void ProgressTracker::ResetProtocolViolations() {
  MutexLock lock(mu_);
  consecutive_violations_ = 0;
}

std::optional<std::string> ProgressTracker::ExecutedScopeOwner(
    tools::ToolName tool, const std::string& scope_identity) const {
  MutexLock lock(mu_);
  auto found = executed_scopes_.find({tool, scope_identity});
  if (found == executed_scopes_.end()) return std::nullopt;
  return found->second;
}

void ProgressTracker::RecordCompleted(tools::ToolName tool, const std::string& scope_identity,
                                      const std::string& tool_call_id,
                                      tools::EvidenceStatus status) {
  MutexLock lock(mu_);
  completed_.push_back({tool_call_id, tool});
  if (status == tools::EvidenceStatus::kError) return;  // a retry of this scope is allowed
  executed_scopes_.emplace(std::make_pair(tool, scope_identity), tool_call_id);
  if (status == tools::EvidenceStatus::kEvidenceFound) pending_ = PendingCall{tool_call_id, tool};
}

bool ProgressTracker::IsSaturated() const {
  MutexLock lock(mu_);
  return state_ == CollectionState::kSaturated;
}

std::optional<StopReason> ProgressTracker::stop_reason() const {
  MutexLock lock(mu_);
  return stop_reason_;
}

void ProgressTracker::MarkStopDelivered() {
  MutexLock lock(mu_);
  stop_delivered_ = true;
}

bool ProgressTracker::StopDelivered() const {
  MutexLock lock(mu_);
  return stop_delivered_;
}

bool ProgressTracker::ClaimCollectionStoppedTrace() {
  MutexLock lock(mu_);
  if (stop_traced_) return false;
  stop_traced_ = true;
  return true;
}

ProgressState ProgressTracker::Snapshot() const {
  MutexLock lock(mu_);
  ProgressState state;
  state.consecutive_no_gain = consecutive_no_gain_;
  state.consecutive_protocol_violations = consecutive_violations_;
  state.state = state_;
  state.stop_reason = stop_reason_;
  state.stop_delivered = stop_delivered_;
  state.pending = pending_;
  state.completed = completed_;
  state.executed_scopes = executed_scopes_.size();
  return state;
}

}  // namespace diagd::harness
