// Run leases (schema v3): which instance executes a run and until when it
// vouches for it; the sweep that ends lost runs as INSTANCE_LOST, and the
// rule that a run the server ended is never finished afterwards.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/json.h"
#include "store/sqlite_run_store.h"
#include "store/store_backends.h"
#include "store/store_test_support.h"

namespace diagd::store {
namespace {

using testing::At;
using testing::RunningRun;

constexpr const char* kHere = "host-a";   // the sweeping instance
constexpr const char* kThere = "host-b";  // another instance

app::RunRecord LeasedRun(const std::string& run_id, const std::string& instance_id,
                         std::optional<WallTime> lease_until, WallTime created_at = At(0)) {
  app::RunRecord run = RunningRun(run_id, created_at);
  run.instance_id = instance_id;
  run.lease_until = lease_until;
  return run;
}

app::RunRecord Succeeded(app::RunRecord run, const std::string& result_json) {
  run.status = "SUCCEEDED";
  run.internal_status = "COMPLETED";
  run.release_outcome = "ANSWER";
  run.finished_at = run.created_at + std::chrono::seconds(3);
  run.result_json = result_json;
  run.steps = {{1, 100, {"call-1"}}};
  run.events = {{1, "run", "{}"}, {2, "result", result_json}, {3, "done", "{}"}};
  return run;
}

std::vector<std::string> Sorted(std::vector<std::string> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

class RunLeasesTest : public ::testing::TestWithParam<testing::Backend> {
 protected:
  void SetUp() override {
    DIAGD_FRESH_STORE_URL(url, GetParam(), "sqlite::memory:");
    auto opened = testing::OpenStore(url, clock_);
    ASSERT_TRUE(opened) << opened.error().ToString();
    store_ = std::move(*opened);
  }

  app::RunRecord Get(const std::string& run_id) {
    auto run = store_->GetRun(run_id);
    EXPECT_TRUE(run) << run.error().ToString();
    EXPECT_TRUE(run && run->has_value()) << run_id << " is stored";
    return run && run->has_value() ? **run : app::RunRecord{};
  }

  std::vector<std::string> Reclaim(std::optional<WallTime> started_at, WallTime now) {
    auto lost = store_->ReclaimLostRuns({kHere, started_at, now});
    EXPECT_TRUE(lost) << lost.error().ToString();
    return lost ? Sorted(*lost) : std::vector<std::string>{};
  }

  void ExpectStillRunning(const std::string& run_id) {
    app::RunRecord run = Get(run_id);
    EXPECT_EQ(run.status, "RUNNING") << run_id;
    EXPECT_EQ(run.internal_status, "RUNNING") << run_id;
    EXPECT_FALSE(run.failure_reason.has_value()) << run_id;
    EXPECT_FALSE(run.finished_at.has_value()) << run_id;
  }

  ManualClock clock_{At(0)};
  std::unique_ptr<app::RunStore> store_;
};

// --- instance_id and lease_until round trips --------------------------------

TEST_P(RunLeasesTest, CreateRunStoresTheInstanceAndTheLease) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("r", kHere, At(30'000))));
  app::RunRecord run = Get("r");
  EXPECT_EQ(run.instance_id, kHere);
  EXPECT_EQ(run.lease_until, At(30'000));
}

TEST_P(RunLeasesTest, ARunWithoutInstanceOrLeaseReadsBackWithout) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("r", "", std::nullopt)));
  app::RunRecord run = Get("r");
  EXPECT_EQ(run.instance_id, "");
  EXPECT_FALSE(run.lease_until.has_value());
}

TEST_P(RunLeasesTest, FinishRunReplacesTheInstanceAndTheLease) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("r", kHere, At(30'000))));
  app::RunRecord finished = Succeeded(LeasedRun("r", kThere, At(45'000)), R"({"a":1})");
  ASSERT_TRUE(store_->FinishRun(finished));
  app::RunRecord run = Get("r");
  EXPECT_EQ(run.instance_id, kThere);
  EXPECT_EQ(run.lease_until, At(45'000));

  finished.lease_until.reset();
  finished.instance_id.clear();
  ASSERT_TRUE(store_->FinishRun(finished));
  run = Get("r");
  EXPECT_EQ(run.instance_id, "");
  EXPECT_FALSE(run.lease_until.has_value()) << "a finish without a lease clears it";
}

TEST_P(RunLeasesTest, FinishRunOfARunNeverCreatedStoresItsInstanceAndLease) {
  ASSERT_TRUE(store_->FinishRun(Succeeded(LeasedRun("r", kHere, At(7'000)), "{}")));
  app::RunRecord run = Get("r");
  EXPECT_EQ(run.instance_id, kHere);
  EXPECT_EQ(run.lease_until, At(7'000));
}

// --- RenewLeases ------------------------------------------------------------

TEST_P(RunLeasesTest, RenewLeasesExtendsEveryRunningRunOfThatInstance) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("leased", kHere, At(10'000))));
  ASSERT_TRUE(store_->CreateRun(LeasedRun("unleased", kHere, std::nullopt)));
  ASSERT_TRUE(store_->RenewLeases(kHere, At(60'000)));
  EXPECT_EQ(Get("leased").lease_until, At(60'000));
  EXPECT_EQ(Get("unleased").lease_until, At(60'000)) << "a run without a lease gets one";
  ExpectStillRunning("leased");
}

TEST_P(RunLeasesTest, RenewLeasesLeavesOtherInstancesRunsAlone) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("there", kThere, At(10'000))));
  ASSERT_TRUE(store_->CreateRun(LeasedRun("nobody", "", std::nullopt)));
  ASSERT_TRUE(store_->RenewLeases(kHere, At(60'000)));
  EXPECT_EQ(Get("there").lease_until, At(10'000));
  EXPECT_FALSE(Get("nobody").lease_until.has_value());
}

TEST_P(RunLeasesTest, RenewLeasesLeavesFinishedRunsOfThatInstanceAlone) {
  ASSERT_TRUE(store_->FinishRun(Succeeded(LeasedRun("done", kHere, At(10'000)), "{}")));
  ASSERT_TRUE(store_->RenewLeases(kHere, At(60'000)));
  app::RunRecord run = Get("done");
  EXPECT_EQ(run.status, "SUCCEEDED");
  EXPECT_EQ(run.lease_until, At(10'000));
}

TEST_P(RunLeasesTest, RenewLeasesWithNoRunsIsOk) {
  EXPECT_TRUE(store_->RenewLeases(kHere, At(60'000)));
}

// --- ReclaimLostRuns: other instances' runs, by their lease -----------------

TEST_P(RunLeasesTest, AnotherInstancesRunWhoseLeaseRanOutEndsAsInstanceLost) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("r", kThere, At(10'000))));
  EXPECT_EQ(Reclaim(std::nullopt, At(10'001)), (std::vector<std::string>{"r"}));
  app::RunRecord run = Get("r");
  EXPECT_EQ(run.status, "FAILED");
  EXPECT_EQ(run.internal_status, "FAILED");
  EXPECT_EQ(run.failure_reason, "INSTANCE_LOST");
  EXPECT_EQ(run.finished_at, At(10'001)) << "ended at the sweep's now";
  EXPECT_TRUE(run.result_json.empty());
  EXPECT_EQ(run.route, "DIAGNOSIS") << "the stored route stays";
}

TEST_P(RunLeasesTest, AnotherInstancesRunWithAnUnexpiredLeaseIsUntouched) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("future", kThere, At(10'000))));
  ASSERT_TRUE(store_->CreateRun(LeasedRun("exactly_now", kThere, At(5'000))));
  EXPECT_TRUE(Reclaim(std::nullopt, At(5'000)).empty())
      << "a lease that ends at now has not ended before now";
  ExpectStillRunning("future");
  ExpectStillRunning("exactly_now");
}

TEST_P(RunLeasesTest, ARunWithoutALeaseIsNeverLostByTheClock) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("there", kThere, std::nullopt)));
  ASSERT_TRUE(store_->CreateRun(LeasedRun("nobody", "", std::nullopt)));
  EXPECT_TRUE(Reclaim(At(3'600'000), At(3'600'000)).empty());
  ExpectStillRunning("there");
  ExpectStillRunning("nobody");
}

TEST_P(RunLeasesTest, StartedAtNeverReachesAnotherInstancesRuns) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("r", kThere, At(60'000), At(0))));
  EXPECT_TRUE(Reclaim(At(30'000), At(30'000)).empty())
      << "created before this instance started, but its own instance vouches for it";
  ExpectStillRunning("r");
}

// --- ReclaimLostRuns: the sweeping instance's own runs, by started_at -------

TEST_P(RunLeasesTest, OwnRunWhoseLeaseRanOutIsNotLostByItsLease) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("r", kHere, At(1'000), At(500))));
  EXPECT_TRUE(Reclaim(std::nullopt, At(60'000)).empty()) << "no started_at";
  EXPECT_TRUE(Reclaim(At(100), At(60'000)).empty()) << "created after this process started";
  ExpectStillRunning("r");
}

TEST_P(RunLeasesTest, OwnRunCreatedBeforeStartedAtIsLostWhateverItsLease) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("unexpired", kHere, At(3'600'000), At(0))));
  ASSERT_TRUE(store_->CreateRun(LeasedRun("unleased", kHere, std::nullopt, At(1))));
  EXPECT_EQ(Reclaim(At(2'000), At(2'000)), (std::vector<std::string>{"unexpired", "unleased"}));
  EXPECT_EQ(Get("unexpired").failure_reason, "INSTANCE_LOST");
  EXPECT_EQ(Get("unleased").failure_reason, "INSTANCE_LOST");
}

TEST_P(RunLeasesTest, OwnRunCreatedAtOrAfterStartedAtIsKept) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("at", kHere, At(9'000), At(2'000))));
  ASSERT_TRUE(store_->CreateRun(LeasedRun("after", kHere, At(9'000), At(2'001))));
  EXPECT_TRUE(Reclaim(At(2'000), At(5'000)).empty());
  ExpectStillRunning("at");
  ExpectStillRunning("after");
}

TEST_P(RunLeasesTest, ASweepEndsOwnLeftBehindAndOthersExpiredRunsTogether) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("left_behind", kHere, At(90'000), At(0))));
  ASSERT_TRUE(store_->CreateRun(LeasedRun("own_now", kHere, At(1'000), At(6'000))));
  ASSERT_TRUE(store_->CreateRun(LeasedRun("expired", kThere, At(4'000), At(0))));
  ASSERT_TRUE(store_->CreateRun(LeasedRun("vouched", kThere, At(90'000), At(0))));
  EXPECT_EQ(Reclaim(At(5'000), At(8'000)), (std::vector<std::string>{"expired", "left_behind"}));
  ExpectStillRunning("own_now");
  ExpectStillRunning("vouched");
}

// --- ReclaimLostRuns: finished runs and repeated sweeps ---------------------

TEST_P(RunLeasesTest, AFinishedRunIsNeverTouchedBySweep) {
  ASSERT_TRUE(store_->FinishRun(Succeeded(LeasedRun("theirs", kThere, At(1'000)), R"({"t":1})")));
  ASSERT_TRUE(store_->FinishRun(Succeeded(LeasedRun("mine", kHere, At(1'000)), R"({"m":1})")));
  ASSERT_TRUE(store_->CreateRun(LeasedRun("abandoned", kThere, At(1'000))));
  ASSERT_TRUE(store_->AbandonRun({"abandoned", "SERVER_SHUTDOWN", "", At(2'000), {}}));

  EXPECT_TRUE(Reclaim(At(60'000), At(60'000)).empty());
  app::RunRecord theirs = Get("theirs");
  EXPECT_EQ(theirs.status, "SUCCEEDED");
  EXPECT_FALSE(theirs.failure_reason.has_value());
  EXPECT_EQ(theirs.result_json, R"({"t":1})");
  EXPECT_EQ(store_->RunEvents("theirs", 0)->size(), 3u);
  EXPECT_EQ(Get("mine").status, "SUCCEEDED");
  EXPECT_EQ(Get("abandoned").failure_reason, "SERVER_SHUTDOWN");
  EXPECT_EQ(Get("abandoned").finished_at, At(2'000));
}

TEST_P(RunLeasesTest, ALostRunIsLostOnceASecondSweepFindsNothing) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("r", kThere, At(1'000))));
  EXPECT_EQ(Reclaim(std::nullopt, At(2'000)).size(), 1u);
  EXPECT_TRUE(Reclaim(std::nullopt, At(9'000)).empty());
  EXPECT_EQ(Get("r").finished_at, At(2'000)) << "the first sweep's time stays";
}

TEST_P(RunLeasesTest, ALostRunsStreamIsRunErrorDone) {
  // Quotes and backslashes must come back out of the JSON intact.
  app::RunRecord left = LeasedRun(R"(run"1\)", kThere, At(1'000));
  left.conversation_id = R"(conv "x"\y)";
  ASSERT_TRUE(store_->CreateRun(left));
  ASSERT_EQ(Reclaim(std::nullopt, At(2'000)).size(), 1u);

  auto events = store_->RunEvents(left.run_id, 0);
  ASSERT_TRUE(events) << events.error().ToString();
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].id, 1);
  EXPECT_EQ((*events)[1].id, 2);
  EXPECT_EQ((*events)[2].id, 3);
  EXPECT_EQ((*events)[0].name, "run");
  EXPECT_EQ((*events)[1].name, "error");
  EXPECT_EQ((*events)[2].name, "done");

  auto run = json::Parse((*events)[0].data);
  ASSERT_TRUE(run && run->is_object()) << (*events)[0].data;
  EXPECT_EQ(json::GetString(run->as_object(), "run_id"), left.run_id);
  EXPECT_EQ(json::GetString(run->as_object(), "conversation_id"), left.conversation_id);
  auto error = json::Parse((*events)[1].data);
  ASSERT_TRUE(error && error->is_object()) << (*events)[1].data;
  EXPECT_EQ(json::GetString(error->as_object(), "code"), "INSTANCE_LOST");
  EXPECT_TRUE(json::GetString(error->as_object(), "message").has_value());
  auto done = json::Parse((*events)[2].data);
  ASSERT_TRUE(done && done->is_object()) << (*events)[2].data;
}

TEST_P(RunLeasesTest, ALostRunsStreamGoesOnFromTheEventsStoredWhileItRan) {
  // A client that saw them resumes after the last and sees the end.
  ASSERT_TRUE(store_->CreateRun(LeasedRun("r", kThere, At(1'000))));
  ASSERT_TRUE(store_->AppendEvents("r", {{1, "run", R"({"run_id":"r"})"},
                                         {2, "route", R"({"route":"DIAGNOSIS"})"},
                                         {3, "progress", R"({"index":1})"}}));
  ASSERT_EQ(Reclaim(std::nullopt, At(2'000)).size(), 1u);

  auto events = store_->RunEvents("r", 0);
  ASSERT_TRUE(events) << events.error().ToString();
  std::vector<std::string> names;
  for (const auto& event : *events) names.push_back(std::to_string(event.id) + ":" + event.name);
  EXPECT_EQ(names, (std::vector<std::string>{"1:run", "2:route", "3:progress", "4:error",
                                             "5:done"}));
  EXPECT_EQ((*events)[2].data, R"({"index":1})");
  EXPECT_NE((*events)[3].data.find("INSTANCE_LOST"), std::string::npos);
  Status late = store_->AppendEvents("r", {{4, "progress", "{}"}});
  ASSERT_FALSE(late) << "a lost run's stream has ended";
  EXPECT_EQ(late.error().code, ErrorCode::kFailedPrecondition);
}

// --- A run the server ended is never finished afterwards --------------------

TEST_P(RunLeasesTest, FinishingALostRunIsRefusedAndTheLostRecordStands) {
  app::RunRecord run = LeasedRun("r", kThere, At(1'000));
  ASSERT_TRUE(store_->CreateRun(run));
  ASSERT_EQ(Reclaim(std::nullopt, At(2'000)).size(), 1u);

  Status late = store_->FinishRun(Succeeded(run, R"({"late":true})"));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ErrorCode::kFailedPrecondition) << late.error().ToString();
  app::RunRecord stored = Get("r");
  EXPECT_EQ(stored.status, "FAILED");
  EXPECT_EQ(stored.failure_reason, "INSTANCE_LOST");
  EXPECT_TRUE(stored.result_json.empty());
  EXPECT_TRUE(stored.steps.empty()) << "the refused finish wrote none of its steps";
  auto events = store_->RunEvents("r", 0);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 3u) << "the lost stream stays, not the refused one";
  EXPECT_EQ((*events)[1].name, "error");
}

TEST_P(RunLeasesTest, FinishingARunAbandonedAtShutdownIsRefused) {
  app::RunRecord run = LeasedRun("r", kHere, At(1'000));
  ASSERT_TRUE(store_->CreateRun(run));
  ASSERT_TRUE(store_->AbandonRun(
      {"r", "SERVER_SHUTDOWN", "", At(2'000), {{1, "run", "{}"}, {2, "done", "{}"}}}));
  Status late = store_->FinishRun(Succeeded(run, "{}"));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_EQ(Get("r").failure_reason, "SERVER_SHUTDOWN");
  EXPECT_EQ(store_->RunEvents("r", 0)->size(), 2u);
}

TEST_P(RunLeasesTest, FinishingALostRunAsFailedIsRefusedToo) {
  app::RunRecord run = LeasedRun("r", kThere, At(1'000));
  ASSERT_TRUE(store_->CreateRun(run));
  ASSERT_EQ(Reclaim(std::nullopt, At(2'000)).size(), 1u);
  run.status = "FAILED";
  run.internal_status = "FAILED";
  run.failure_reason = "INTERNAL";
  Status late = store_->FinishRun(run);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_EQ(Get("r").failure_reason, "INSTANCE_LOST");
}

TEST_P(RunLeasesTest, AbandoningALostRunIsRefused) {
  ASSERT_TRUE(store_->CreateRun(LeasedRun("r", kThere, At(1'000))));
  ASSERT_EQ(Reclaim(std::nullopt, At(2'000)).size(), 1u);
  Status late = store_->AbandonRun({"r", "SERVER_SHUTDOWN", "", At(3'000), {}});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_EQ(Get("r").failure_reason, "INSTANCE_LOST");
  EXPECT_EQ(store_->RunEvents("r", 0)->size(), 3u);
}

TEST_P(RunLeasesTest, RefinishingAFinishedRunReplacesIt) {
  app::RunRecord run = LeasedRun("r", kHere, At(1'000));
  ASSERT_TRUE(store_->FinishRun(Succeeded(run, R"({"first":1})")));
  app::RunRecord again = Succeeded(run, R"({"second":2})");
  again.steps = {{1, 5, {}}, {2, 6, {}}};
  ASSERT_TRUE(store_->FinishRun(again)) << "a retried write replaces the run";
  app::RunRecord stored = Get("r");
  EXPECT_EQ(stored.result_json, R"({"second":2})");
  EXPECT_EQ(stored.steps.size(), 2u);
}

TEST_P(RunLeasesTest, RefinishingARunThatFailedForItsOwnReasonReplacesIt) {
  app::RunRecord run = LeasedRun("r", kHere, At(1'000));
  run.status = "FAILED";
  run.internal_status = "FAILED";
  run.failure_reason = "INTERNAL";
  ASSERT_TRUE(store_->FinishRun(run));
  ASSERT_TRUE(store_->FinishRun(run)) << "the run's own failure, written again";
  EXPECT_EQ(Get("r").failure_reason, "INTERNAL");
}

// Two instances on one file: the one that swept has ended the run; the one
// that was executing it (it came back after its lease ran out) cannot finish it.
DIAGD_ON_BOTH_STORES(RunLeasesTest);

class RunLeasesAcrossStores : public ::testing::TestWithParam<testing::Backend> {};

TEST_P(RunLeasesAcrossStores, AnInstanceCannotFinishARunAnotherEndedAsLost) {
  testing::TempDir dir;
  ManualClock clock(At(0));
  DIAGD_FRESH_STORE_URL(url, GetParam(), dir.Url("runs.db"));
  auto here = testing::OpenStore(url, clock);
  auto there = testing::OpenStore(url, clock);
  ASSERT_TRUE(here && there);
  app::RunRecord run = LeasedRun("r", kThere, At(1'000));
  ASSERT_TRUE((*there)->CreateRun(run));
  auto lost = (*here)->ReclaimLostRuns({kHere, At(0), At(5'000)});
  ASSERT_TRUE(lost) << lost.error().ToString();
  EXPECT_EQ(*lost, (std::vector<std::string>{"r"}));

  Status late = (*there)->FinishRun(Succeeded(run, "{}"));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ErrorCode::kFailedPrecondition);
  auto stored = (*there)->GetRun("r");
  ASSERT_TRUE(stored && stored->has_value());
  EXPECT_EQ((*stored)->failure_reason, "INSTANCE_LOST");
}

// Two instances sweep at once: every lost run is ended by exactly one of
// them, and its stream is written once.
TEST_P(RunLeasesAcrossStores, TwoInstancesSweepingAtOnceEndEachLostRunOnce) {
  testing::TempDir dir;
  ManualClock clock(At(0));
  DIAGD_FRESH_STORE_URL(url, GetParam(), dir.Url("runs.db"));
  auto a = testing::OpenStore(url, clock);
  auto b = testing::OpenStore(url, clock);
  ASSERT_TRUE(a && b);
  constexpr int kRuns = 40;
  for (int i = 0; i < kRuns; ++i) {
    ASSERT_TRUE((*a)->CreateRun(LeasedRun("r" + std::to_string(i), "host-c", At(1'000))));
  }
  Result<std::vector<std::string>> by_a = Error::Internal("not swept");
  Result<std::vector<std::string>> by_b = Error::Internal("not swept");
  std::thread sweep_a([&] { by_a = (*a)->ReclaimLostRuns({"host-a", std::nullopt, At(5'000)}); });
  std::thread sweep_b([&] { by_b = (*b)->ReclaimLostRuns({"host-b", std::nullopt, At(5'000)}); });
  sweep_a.join();
  sweep_b.join();
  ASSERT_TRUE(by_a) << by_a.error().ToString();
  ASSERT_TRUE(by_b) << by_b.error().ToString();
  std::vector<std::string> all = *by_a;
  all.insert(all.end(), by_b->begin(), by_b->end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kRuns)) << "each run once";
  EXPECT_EQ(std::unique(all.begin(), all.end()), all.end()) << "none twice";
  for (int i = 0; i < kRuns; ++i) {
    auto events = (*b)->RunEvents("r" + std::to_string(i), 0);
    ASSERT_TRUE(events);
    EXPECT_EQ(events->size(), 3u) << "run, error, done";
  }
}

DIAGD_ON_BOTH_STORES(RunLeasesAcrossStores);

}  // namespace
}  // namespace diagd::store
