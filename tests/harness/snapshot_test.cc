#include "harness/progress_snapshot.h"

#include <gtest/gtest.h>

#include "core/clock.h"

namespace diagd::harness {
namespace {

using tools::EvidenceStatus;
using tools::ToolName;

tools::CanonicalRecord Record(const std::string& run, const std::string& id, EvidenceStatus status) {
  tools::CanonicalRecord record;
  record.run_id = run;
  record.tool_call_id = id;
  record.tool = tools::logs::kQueryLogs;
  tools::LogsResult logs;
  logs.tool_call_id = id;
  logs.evidence_status = status;
  record.result = logs;
  record.scope = {"identity-" + id, "gateway: timeout (60m)"};
  return record;
}

TEST(ProgressSnapshot, MissingExpiredErrorAndForeignRecordsAreNoFacts) {
  ManualClock clock;
  tools::MemoryCanonicalStore store(std::chrono::seconds(100), clock);
  ASSERT_TRUE(store.Put(Record("run-1", "c1", EvidenceStatus::kEvidenceFound)));
  ASSERT_TRUE(store.Put(Record("run-1", "c2", EvidenceStatus::kNoEvidence)));
  ASSERT_TRUE(store.Put(Record("run-1", "c3", EvidenceStatus::kError)));
  // c4 was never stored; c5 is stored under this run's key but claims another call.
  auto foreign = Record("run-1", "c5", EvidenceStatus::kEvidenceFound);
  tools::LogsResult other;
  other.tool_call_id = "c9";
  other.evidence_status = EvidenceStatus::kEvidenceFound;
  foreign.result = other;
  ASSERT_TRUE(store.Put(foreign));

  ProgressTracker tracker({3, 2});
  for (auto [id, status] : {std::pair{"c1", EvidenceStatus::kEvidenceFound},
                            std::pair{"c2", EvidenceStatus::kNoEvidence},
                            std::pair{"c3", EvidenceStatus::kError},
                            std::pair{"c4", EvidenceStatus::kEvidenceFound},
                            std::pair{"c5", EvidenceStatus::kEvidenceFound}}) {
    tracker.RecordCompleted(tools::logs::kQueryLogs, std::string("s") + id, id, status);
  }
  InMemoryTrace trace(clock);
  ProgressSnapshot snapshot = ProjectProgress("run-1", tracker.Snapshot(), store, trace);
  ASSERT_EQ(snapshot.entries.size(), 5u);
  EXPECT_TRUE(snapshot.entries[0].verified_fact);
  EXPECT_EQ(snapshot.entries[0].scope_summary, "gateway: timeout (60m)");
  EXPECT_FALSE(snapshot.entries[1].verified_fact);
  EXPECT_EQ(snapshot.entries[1].evidence_status, EvidenceStatus::kNoEvidence);
  EXPECT_FALSE(snapshot.entries[2].verified_fact);
  EXPECT_FALSE(snapshot.entries[3].verified_fact);
  EXPECT_FALSE(snapshot.entries[3].evidence_status.has_value());
  EXPECT_FALSE(snapshot.entries[4].verified_fact);
  EXPECT_TRUE(snapshot.HasObservedFacts());
  ASSERT_EQ(snapshot.limitations.size(), 3u);
  EXPECT_EQ(snapshot.limitations[0].code, LimitationCode::kToolCallFailed);
  EXPECT_EQ(snapshot.limitations[1].code, LimitationCode::kRecordMissing);
  EXPECT_EQ(snapshot.limitations[2].code, LimitationCode::kRecordForeign);
  EXPECT_EQ(RenderTrace(trace.Events()),
            "PROGRESS_RECORD_UNVERIFIED tool_call_id=c4 tool=query_logs limitation=RECORD_MISSING\n"
            "PROGRESS_RECORD_UNVERIFIED tool_call_id=c5 tool=query_logs limitation=RECORD_FOREIGN\n");

  // After the TTL every record has expired: nothing is a fact any more.
  clock.Advance(std::chrono::seconds(100));
  ProgressSnapshot expired = ProjectProgress("run-1", tracker.Snapshot(), store, trace);
  EXPECT_FALSE(expired.HasObservedFacts());
  EXPECT_EQ(expired.limitations.size(), 5u);
}

}  // namespace
}  // namespace diagd::harness
