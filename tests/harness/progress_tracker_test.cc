#include "harness/progress_tracker.h"
#include "tools/tool_registry.h"

#include <gtest/gtest.h>

namespace diagd::harness {
namespace {

using tools::EvidenceStatus;
using tools::InformationGain;
using tools::ToolName;

TEST(ProgressTracker, OnlyEvidenceFoundBecomesPending) {
  ProgressTracker tracker({3, 2});
  tracker.RecordCompleted(tools::logs::kQueryLogs, "s1", "c1", EvidenceStatus::kNoEvidence);
  EXPECT_FALSE(tracker.Pending());
  tracker.RecordCompleted(tools::logs::kQueryLogs, "s2", "c2", EvidenceStatus::kError);
  EXPECT_FALSE(tracker.Pending());
  tracker.RecordCompleted(tools::logs::kQueryLogs, "s3", "c3", EvidenceStatus::kEvidenceFound);
  ASSERT_TRUE(tracker.Pending());
  EXPECT_EQ(tracker.Pending()->tool_call_id, "c3");
  auto state = tracker.Snapshot();
  ASSERT_EQ(state.completed.size(), 3u);
  EXPECT_EQ(state.completed[1].tool_call_id, "c2");
  EXPECT_EQ(state.executed_scopes, 2u) << "an ERROR scope is not executed";
  EXPECT_FALSE(tracker.ExecutedScopeOwner(tools::logs::kQueryLogs, "s2"));
  EXPECT_EQ(tracker.ExecutedScopeOwner(tools::logs::kQueryLogs, "s3"), "c3");
  EXPECT_FALSE(tracker.ExecutedScopeOwner(tools::documents::kSearchDocuments, "s3"))
      << "scopes are per tool";
}

TEST(ProgressTracker, NoGainThresholdSaturatesOnceAndKeepsTheFirstReason) {
  ProgressTracker tracker({2, 2});
  EXPECT_FALSE(tracker.ApplyHarnessNoGain().saturated_now);
  auto update = tracker.ApplyHarnessNoGain();
  EXPECT_TRUE(update.saturated_now);
  EXPECT_EQ(update.state, CollectionState::kSaturated);
  EXPECT_EQ(update.stop_reason, StopReason::kInformationSaturated);
  tracker.RecordProtocolViolation();
  auto later = tracker.RecordProtocolViolation();
  EXPECT_FALSE(later.saturated_now);
  EXPECT_EQ(tracker.stop_reason(), StopReason::kInformationSaturated);
}

TEST(ProgressTracker, ModelGradeClearsThePendingCall) {
  ProgressTracker tracker({3, 2});
  tracker.RecordCompleted(tools::documents::kSearchDocuments, "s", "c1", EvidenceStatus::kEvidenceFound);
  auto update = tracker.ApplyModelGrade(InformationGain::kNoGain);
  EXPECT_EQ(update.consecutive_no_gain, 1);
  EXPECT_FALSE(tracker.Pending());
}

TEST(ProgressTracker, ViolationsDoNotTouchNoGainOrPending) {
  ProgressTracker tracker({3, 3});
  tracker.RecordCompleted(tools::documents::kSearchDocuments, "s", "c1", EvidenceStatus::kEvidenceFound);
  tracker.ApplyHarnessNoGain();
  auto update = tracker.RecordProtocolViolation();
  EXPECT_EQ(update.consecutive_protocol_violations, 1);
  EXPECT_EQ(update.consecutive_no_gain, 1);
  EXPECT_TRUE(tracker.Pending());
  tracker.ResetProtocolViolations();
  EXPECT_EQ(tracker.Snapshot().consecutive_protocol_violations, 0);
}

TEST(ProgressTracker, CollectionStoppedTraceIsClaimedOnce) {
  ProgressTracker tracker({3, 2});
  EXPECT_TRUE(tracker.ClaimCollectionStoppedTrace());
  EXPECT_FALSE(tracker.ClaimCollectionStoppedTrace());
}

}  // namespace
}  // namespace diagd::harness
