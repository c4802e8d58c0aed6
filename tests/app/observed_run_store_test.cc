// ObservedRunStore: passes every call on and keeps the store's health (ok,
// slow, failing) for /healthz and /metrics. The store is a scripted fake;
// time is a ManualClock, so "slow" is reached by advancing it while a call
// is held inside the fake.
#include "app/observed_run_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace diagd::app {
namespace {

using std::chrono::milliseconds;
using State = StoreHealth::State;

// The store's methods, for holding the calls of one.
enum class Op {
  kCreate,
  kFinish,
  kAbandon,
  kAppendEvents,
  kRenew,
  kReclaim,
  kGet,
  kEvents,
  kList,
  kAppend,
  kRecent
};

// A run store whose calls answer from a script, in order, whatever the
// method (success once the script runs out), and whose calls of one method
// can be held until the test releases them.
class ScriptedRunStore final : public RunStore {
 public:
  // The next call fails with `error`.
  void Fail(Error error) {
    std::lock_guard lock(mu_);
    script_.push_back(std::move(error));
  }
  void Succeed() {
    std::lock_guard lock(mu_);
    script_.push_back(std::nullopt);
  }
  void Hold(Op op) {
    std::lock_guard lock(mu_);
    holding_[op] = true;
  }
  // Whether `count` calls of `op` are held within a few seconds.
  [[nodiscard]] bool WaitHeld(Op op, int count = 1) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return held_[op] >= count; });
  }
  void Release(Op op) {
    std::lock_guard lock(mu_);
    holding_[op] = false;
    changed_.notify_all();
  }
  void ReleaseAll() {
    std::lock_guard lock(mu_);
    holding_.clear();
    changed_.notify_all();
  }
  int calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }

  Status CreateRun(const RunRecord&) override { return Outcome(Op::kCreate); }
  Status FinishRun(const RunRecord&) override { return Outcome(Op::kFinish); }
  Status AbandonRun(const AbandonedRun&) override { return Outcome(Op::kAbandon); }
  Status AppendEvents(const std::string&, const std::vector<RunEvent>&) override {
    return Outcome(Op::kAppendEvents);
  }
  Status RenewLeases(const std::string&, WallTime) override { return Outcome(Op::kRenew); }
  Result<std::vector<std::string>> ReclaimLostRuns(const LostRunSweep&) override {
    return ValueOr(Op::kReclaim, std::vector<std::string>{"lost-1"});
  }
  Result<std::optional<RunRecord>> GetRun(const std::string& run_id) override {
    RunRecord run;
    run.run_id = run_id;
    return ValueOr(Op::kGet, std::optional<RunRecord>(run));
  }
  Result<std::vector<RunEvent>> RunEvents(const std::string&, std::int64_t after_id) override {
    return ValueOr(Op::kEvents, std::vector<RunEvent>{{after_id + 1, "done", "{}"}});
  }
  Result<std::vector<RunSummary>> ListRuns(int limit) override {
    return ValueOr(Op::kList, std::vector<RunSummary>(static_cast<std::size_t>(limit)));
  }
  Result<RunPage> ListRunPage(const RunQuery& query) override {
    RunPage page;
    page.runs.resize(static_cast<std::size_t>(query.limit));
    return ValueOr(Op::kList, std::move(page));
  }
  Result<RunPage> ConversationPage(const ConversationQuery&) override {
    return ValueOr(Op::kGet, RunPage{});
  }
  Result<std::optional<std::string>> GetObservation(const std::string&,
                                                    const std::string&) override {
    return ValueOr(Op::kGet, std::optional<std::string>());
  }
  Result<std::int64_t> PurgeObservations(WallTime) override {
    return ValueOr(Op::kFinish, std::int64_t{0});
  }
  Status AppendTurns(const std::string&, std::span<const ConversationTurn>) override {
    return Outcome(Op::kAppend);
  }
  Result<std::vector<ConversationTurn>> RecentTurns(const std::string&, int max_turns) override {
    return ValueOr(Op::kRecent, std::vector<ConversationTurn>(static_cast<std::size_t>(max_turns)));
  }

 private:
  // Takes the call's answer, then waits while `op` is held.
  std::optional<Error> Take(Op op) {
    std::unique_lock lock(mu_);
    ++calls_;
    std::optional<Error> error;
    if (!script_.empty()) {
      error = std::move(script_.front());
      script_.pop_front();
    }
    if (holding_[op]) {
      ++held_[op];
      changed_.notify_all();
      changed_.wait(lock, [&] { return !holding_[op]; });
      --held_[op];
    }
    return error;
  }
  Status Outcome(Op op) {
    std::optional<Error> error = Take(op);
    if (error) return *error;
    return OkStatus();
  }
  template <typename T>
  Result<T> ValueOr(Op op, T value) {
    std::optional<Error> error = Take(op);
    if (error) return *error;
    return value;
  }

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::optional<Error>> script_;
  std::map<Op, bool> holding_;
  std::map<Op, int> held_;
  int calls_ = 0;
};

WallTime Start() { return *ParseRfc3339("2026-11-29T10:30:00Z"); }

class ObservedRunStoreTest : public ::testing::Test {
 protected:
  ObservedRunStoreTest() {
    auto fake = std::make_unique<ScriptedRunStore>();
    fake_ = fake.get();
    store_ = std::make_unique<ObservedRunStore>(std::move(fake), clock_);
  }
  ~ObservedRunStoreTest() override {
    fake_->ReleaseAll();
    for (std::thread& call : calls_) call.join();
  }

  // Runs `call` on a thread of its own (joined by the fixture), for calls
  // the fake holds.
  template <typename Call>
  void InBackground(Call call) {
    calls_.emplace_back([this, call] { (void)call(*store_); });
  }

  Status FailingCall(Error error) {
    fake_->Fail(std::move(error));
    return store_->CreateRun(RunRecord{});
  }
  Status SucceedingCall() {
    fake_->Succeed();
    return store_->FinishRun(RunRecord{});
  }

  ManualClock clock_{Start()};
  ScriptedRunStore* fake_ = nullptr;  // owned by store_
  std::unique_ptr<ObservedRunStore> store_;
  std::vector<std::thread> calls_;
};

TEST(StoreStateString, NamesEveryState) {
  EXPECT_STREQ(StoreStateString(State::kOk), "ok");
  EXPECT_STREQ(StoreStateString(State::kSlow), "slow");
  EXPECT_STREQ(StoreStateString(State::kFailing), "failing");
}

// --- ok and failing ---------------------------------------------------------

TEST_F(ObservedRunStoreTest, AFreshStoreIsOk) {
  StoreHealth health = store_->health();
  EXPECT_EQ(health.state, State::kOk);
  EXPECT_FALSE(health.failing_since.has_value());
  EXPECT_EQ(health.calls_in_flight, 0);
  EXPECT_EQ(health.oldest_call_seconds, 0);
  EXPECT_EQ(health.errors_total, 0);
  EXPECT_TRUE(health.last_error.empty());
}

TEST_F(ObservedRunStoreTest, AnUnavailableCallMakesItFailingSinceThatCall) {
  clock_.Advance(std::chrono::seconds(7));
  ASSERT_FALSE(FailingCall(Error::Unavailable("run store: write: database is locked")));
  StoreHealth health = store_->health();
  EXPECT_EQ(health.state, State::kFailing);
  EXPECT_EQ(health.failing_since, Start() + std::chrono::seconds(7));
  EXPECT_EQ(health.last_error, "run store: write: database is locked");
  EXPECT_EQ(health.errors_total, 1);
  EXPECT_EQ(health.calls_in_flight, 0);
}

TEST_F(ObservedRunStoreTest, InternalAndDeadlineExceededMakeItFailingToo) {
  for (Error error : {Error::Internal("run store: a stored time is not RFC 3339"),
                      Error::DeadlineExceeded("run store: timed out")}) {
    SCOPED_TRACE(error.ToString());
    ASSERT_TRUE(SucceedingCall());
    ASSERT_FALSE(FailingCall(error));
    EXPECT_EQ(store_->health().state, State::kFailing);
    EXPECT_EQ(store_->health().last_error, error.message);
  }
  EXPECT_EQ(store_->health().errors_total, 2);
}

TEST_F(ObservedRunStoreTest, ACallersMistakeDoesNotMakeItFailing) {
  for (Error error : {Error::NotFound("run store: abandon run: no such run"),
                      Error::InvalidArgument("run store: the run id is empty"),
                      Error::FailedPrecondition("run store: create run: the run exists already")}) {
    SCOPED_TRACE(error.ToString());
    ASSERT_FALSE(FailingCall(error));
    StoreHealth health = store_->health();
    EXPECT_EQ(health.state, State::kOk);
    EXPECT_FALSE(health.failing_since.has_value());
    EXPECT_EQ(health.errors_total, 0) << "not the store's fault";
    EXPECT_TRUE(health.last_error.empty());
  }
}

TEST_F(ObservedRunStoreTest, FailingSinceIsTheFirstFailureOfAStreak) {
  ASSERT_FALSE(FailingCall(Error::Unavailable("first")));
  clock_.Advance(std::chrono::seconds(30));
  ASSERT_FALSE(FailingCall(Error::Unavailable("second")));
  StoreHealth health = store_->health();
  EXPECT_EQ(health.state, State::kFailing);
  EXPECT_EQ(health.failing_since, Start());
  EXPECT_EQ(health.last_error, "second");
  EXPECT_EQ(health.errors_total, 2);
}

TEST_F(ObservedRunStoreTest, ASuccessEndsTheStreak) {
  ASSERT_FALSE(FailingCall(Error::Unavailable("down")));
  ASSERT_TRUE(SucceedingCall());
  StoreHealth health = store_->health();
  EXPECT_EQ(health.state, State::kOk);
  EXPECT_FALSE(health.failing_since.has_value());
  EXPECT_EQ(health.errors_total, 1) << "errors since start stay counted";
}

TEST_F(ObservedRunStoreTest, ASuccessfulReadEndsTheStreakToo) {
  ASSERT_FALSE(FailingCall(Error::Unavailable("down")));
  fake_->Succeed();
  ASSERT_TRUE(store_->GetRun("r"));
  EXPECT_EQ(store_->health().state, State::kOk);
}

TEST_F(ObservedRunStoreTest, ANewStreakStartsAtItsOwnFirstFailure) {
  ASSERT_FALSE(FailingCall(Error::Unavailable("down")));
  ASSERT_TRUE(SucceedingCall());
  clock_.Advance(std::chrono::minutes(5));
  ASSERT_FALSE(FailingCall(Error::Unavailable("down again")));
  EXPECT_EQ(store_->health().failing_since, Start() + std::chrono::minutes(5));
}

// A caller's mistake says nothing either way about the store's backend (the
// SQLite store refuses an invalid record before it touches the database):
// the streak goes on until a call succeeds.
TEST_F(ObservedRunStoreTest, ACallersMistakeNeitherEndsNorRestartsAStreak) {
  ASSERT_FALSE(FailingCall(Error::Unavailable("down")));
  clock_.Advance(std::chrono::seconds(3));
  ASSERT_FALSE(FailingCall(Error::InvalidArgument("run store: the run id is empty")));
  ASSERT_FALSE(FailingCall(Error::NotFound("run store: abandon run: no such run")));
  StoreHealth health = store_->health();
  EXPECT_EQ(health.state, State::kFailing);
  EXPECT_EQ(health.failing_since, Start());
  EXPECT_EQ(health.last_error, "down");
  EXPECT_EQ(health.errors_total, 1);
}

// --- Calls pass through -----------------------------------------------------

TEST_F(ObservedRunStoreTest, EveryCallPassesItsOutcomeThrough) {
  EXPECT_TRUE(store_->CreateRun({}));
  EXPECT_TRUE(store_->FinishRun({}));
  EXPECT_TRUE(store_->AbandonRun({}));
  EXPECT_TRUE(store_->AppendEvents("r", {}));
  EXPECT_TRUE(store_->RenewLeases("host-a", Start()));
  EXPECT_EQ(*store_->ReclaimLostRuns({}), std::vector<std::string>{"lost-1"});
  EXPECT_EQ((*store_->GetRun("r"))->run_id, "r");
  EXPECT_EQ(store_->RunEvents("r", 4)->at(0).id, 5);
  EXPECT_EQ(store_->ListRuns(3)->size(), 3u);
  EXPECT_TRUE(store_->AppendTurn("c", {}));
  EXPECT_EQ(store_->RecentTurns("c", 2)->size(), 2u);
  EXPECT_EQ(fake_->calls(), 11);
  EXPECT_EQ(store_->health().state, State::kOk);
}

TEST_F(ObservedRunStoreTest, EveryCallIsWatchedAndItsErrorPassedBackUnchanged) {
  auto check = [](const auto& outcome) {
    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().code, ErrorCode::kUnavailable);
    EXPECT_EQ(outcome.error().message, "down");
  };
  for (int i = 0; i < 11; ++i) fake_->Fail(Error::Unavailable("down"));
  check(store_->CreateRun({}));
  check(store_->FinishRun({}));
  check(store_->AbandonRun({}));
  check(store_->AppendEvents("r", {}));
  check(store_->RenewLeases("host-a", Start()));
  check(store_->ReclaimLostRuns({}));
  check(store_->GetRun("r"));
  check(store_->RunEvents("r", 0));
  check(store_->ListRuns(3));
  check(store_->AppendTurn("c", {}));
  check(store_->RecentTurns("c", 2));
  EXPECT_EQ(store_->health().errors_total, 11);
}

// --- slow -------------------------------------------------------------------

TEST_F(ObservedRunStoreTest, ACallWaitingLongerThanTheThresholdMakesItSlow) {
  fake_->Hold(Op::kFinish);
  InBackground([](ObservedRunStore& store) { return store.FinishRun({}); });
  ASSERT_TRUE(fake_->WaitHeld(Op::kFinish));
  clock_.Advance(milliseconds(1500));
  StoreHealth health = store_->health();
  EXPECT_EQ(health.state, State::kSlow);
  EXPECT_EQ(health.calls_in_flight, 1);
  EXPECT_DOUBLE_EQ(health.oldest_call_seconds, 1.5);
  EXPECT_FALSE(health.failing_since.has_value());
  EXPECT_EQ(fake_->calls(), 1) << "reading the health never calls the store";
}

TEST_F(ObservedRunStoreTest, ACallWaitingUpToTheThresholdIsNotYetSlow) {
  fake_->Hold(Op::kGet);
  InBackground([](ObservedRunStore& store) { return store.GetRun("r"); });
  ASSERT_TRUE(fake_->WaitHeld(Op::kGet));
  clock_.Advance(milliseconds(500));
  StoreHealth health = store_->health();
  EXPECT_EQ(health.state, State::kOk);
  EXPECT_EQ(health.calls_in_flight, 1);
  EXPECT_DOUBLE_EQ(health.oldest_call_seconds, 0.5);
  clock_.Advance(milliseconds(500));
  EXPECT_EQ(store_->health().state, State::kOk) << "exactly the threshold is not longer";
}

TEST_F(ObservedRunStoreTest, ASlowCallThatEndsLeavesTheStoreOk) {
  fake_->Hold(Op::kFinish);
  InBackground([](ObservedRunStore& store) { return store.FinishRun({}); });
  ASSERT_TRUE(fake_->WaitHeld(Op::kFinish));
  clock_.Advance(std::chrono::seconds(3));
  ASSERT_EQ(store_->health().state, State::kSlow);
  fake_->Release(Op::kFinish);
  calls_.back().join();
  calls_.pop_back();
  StoreHealth health = store_->health();
  EXPECT_EQ(health.state, State::kOk);
  EXPECT_EQ(health.calls_in_flight, 0);
  EXPECT_EQ(health.oldest_call_seconds, 0);
}

TEST_F(ObservedRunStoreTest, TheOldestCallInFlightIsTheOneThatCounts) {
  fake_->Hold(Op::kCreate);
  InBackground([](ObservedRunStore& store) { return store.CreateRun({}); });
  ASSERT_TRUE(fake_->WaitHeld(Op::kCreate));
  clock_.Advance(milliseconds(800));
  fake_->Hold(Op::kList);
  InBackground([](ObservedRunStore& store) { return store.ListRuns(1); });
  ASSERT_TRUE(fake_->WaitHeld(Op::kList));
  clock_.Advance(milliseconds(400));
  StoreHealth both = store_->health();
  EXPECT_EQ(both.state, State::kSlow);
  EXPECT_EQ(both.calls_in_flight, 2);
  EXPECT_DOUBLE_EQ(both.oldest_call_seconds, 1.2);

  fake_->Release(Op::kCreate);
  calls_.front().join();
  calls_.erase(calls_.begin());
  StoreHealth younger = store_->health();
  EXPECT_EQ(younger.state, State::kOk) << "the call left waits 0.4 s";
  EXPECT_EQ(younger.calls_in_flight, 1);
  EXPECT_DOUBLE_EQ(younger.oldest_call_seconds, 0.4);
}

TEST_F(ObservedRunStoreTest, FailingWinsOverSlow) {
  ASSERT_FALSE(FailingCall(Error::Unavailable("down")));
  fake_->Hold(Op::kGet);
  InBackground([](ObservedRunStore& store) { return store.GetRun("r"); });
  ASSERT_TRUE(fake_->WaitHeld(Op::kGet));
  clock_.Advance(std::chrono::seconds(5));
  StoreHealth health = store_->health();
  EXPECT_EQ(health.state, State::kFailing);
  EXPECT_EQ(health.calls_in_flight, 1);
  EXPECT_DOUBLE_EQ(health.oldest_call_seconds, 5.0);
}

TEST_F(ObservedRunStoreTest, ASlowCallThatFailsLeavesTheStoreFailingSinceItEnded) {
  fake_->Fail(Error::Unavailable("run store: write: database is locked"));
  fake_->Hold(Op::kCreate);
  InBackground([](ObservedRunStore& store) { return store.CreateRun({}); });
  ASSERT_TRUE(fake_->WaitHeld(Op::kCreate));
  clock_.Advance(std::chrono::seconds(6));
  fake_->Release(Op::kCreate);
  calls_.back().join();
  calls_.pop_back();
  StoreHealth health = store_->health();
  EXPECT_EQ(health.state, State::kFailing);
  EXPECT_EQ(health.failing_since, Start() + std::chrono::seconds(6));
  EXPECT_EQ(health.calls_in_flight, 0);
}

}  // namespace
}  // namespace diagd::app
