#include "store/sqlite_run_store.h"

#include <gtest/gtest.h>

#include <string>

#include "core/clock.h"
#include "store/store_backends.h"
#include "store/store_test_support.h"

namespace diagd::store {
namespace {

using harness::TraceEvent;
using harness::TraceEventType;
using harness::TraceField;
using testing::At;
using testing::RunningRun;

class RunStoreTest : public ::testing::TestWithParam<testing::Backend> {
 protected:
  void SetUp() override {
    DIAGD_FRESH_STORE_URL(url, GetParam(), "sqlite::memory:");
    auto opened = testing::OpenStore(url, clock_);
    ASSERT_TRUE(opened) << opened.error().ToString();
    store_ = std::move(*opened);
  }

  ManualClock clock_{At(0)};
  std::unique_ptr<app::RunStore> store_;
};

TraceEvent Event(std::int64_t seq, TraceEventType type, WallTime time,
                 std::vector<TraceField> fields) {
  TraceEvent event;
  event.seq = seq;
  event.type = type;
  event.time = time;
  event.fields = std::move(fields);
  return event;
}

app::RunRecord FinishedRun(const std::string& run_id, WallTime created_at) {
  app::RunRecord run = RunningRun(run_id, created_at);
  run.status = "SUCCEEDED";
  run.internal_status = "STOPPED";
  run.release_outcome = "FALLBACK";
  run.fallback_code = "INSUFFICIENT_EVIDENCE";
  run.stop_reason = "INFORMATION_SATURATED";
  run.total_token_count = 4321;
  run.finished_at = created_at + std::chrono::milliseconds(2500);
  run.result_json = R"({"run_id":")" + run_id + R"(","release_outcome":"FALLBACK"})";
  run.steps = {{1, 1200, {"call-1"}}, {2, std::nullopt, {}}, {3, 900, {"call-2", "call-3"}}};
  run.trace = {
      Event(1, TraceEventType::kRunStarted, created_at, {{"route", std::string("DIAGNOSIS")}}),
      Event(2, TraceEventType::kModelCall, created_at + std::chrono::milliseconds(7),
            {{"component", std::string("DIAGNOSIS_AGENT")},
             {"component_round", std::int64_t{1}},
             {"usage_available", true},
             {"input_tokens", std::int64_t{1000}},
             {"output_tokens", std::int64_t{200}},
             {"total_tokens", std::int64_t{1200}}}),
      Event(3, TraceEventType::kProgressEvaluated, created_at + std::chrono::milliseconds(9),
            {{"tool_call_id", std::string("call-1")},
             {"information_gain", false},
             {"stop_reason", nullptr},
             {"consecutive_no_gain", std::int64_t{-1}}}),
      Event(4, TraceEventType::kRunFinished, created_at + std::chrono::milliseconds(2500),
            {{"status", std::string("SUCCEEDED")},
             {"budget_total_tokens", std::int64_t{INT64_MAX}},
             {"audited_calls", std::int64_t{INT64_MIN}},
             {"tokens_reconciled", true}}),
  };
  return run;
}

void ExpectSameRun(const app::RunRecord& got, const app::RunRecord& want) {
  EXPECT_EQ(got.run_id, want.run_id);
  EXPECT_EQ(got.conversation_id, want.conversation_id);
  EXPECT_EQ(got.route, want.route);
  EXPECT_EQ(got.status, want.status);
  EXPECT_EQ(got.internal_status, want.internal_status);
  EXPECT_EQ(got.release_outcome, want.release_outcome);
  EXPECT_EQ(got.fallback_code, want.fallback_code);
  EXPECT_EQ(got.stop_reason, want.stop_reason);
  EXPECT_EQ(got.total_token_count, want.total_token_count);
  EXPECT_EQ(got.created_at, want.created_at);
  EXPECT_EQ(got.finished_at, want.finished_at);
  EXPECT_EQ(got.result_json, want.result_json);
  ASSERT_EQ(got.steps.size(), want.steps.size());
  for (std::size_t i = 0; i < want.steps.size(); ++i) {
    EXPECT_EQ(got.steps[i].round, want.steps[i].round) << i;
    EXPECT_EQ(got.steps[i].token_count, want.steps[i].token_count) << i;
    EXPECT_EQ(got.steps[i].tool_call_ids, want.steps[i].tool_call_ids) << i;
  }
  ASSERT_EQ(got.trace.size(), want.trace.size());
  for (std::size_t i = 0; i < want.trace.size(); ++i) {
    EXPECT_EQ(got.trace[i].seq, want.trace[i].seq) << i;
    EXPECT_EQ(got.trace[i].type, want.trace[i].type) << i;
    EXPECT_EQ(got.trace[i].time, want.trace[i].time) << i;
    ASSERT_EQ(got.trace[i].fields.size(), want.trace[i].fields.size()) << i;
    for (std::size_t k = 0; k < want.trace[i].fields.size(); ++k) {
      EXPECT_EQ(got.trace[i].fields[k].key, want.trace[i].fields[k].key) << i << "/" << k;
      // Same alternative (null/bool/int/string) and same value.
      EXPECT_EQ(got.trace[i].fields[k].value, want.trace[i].fields[k].value) << i << "/" << k;
    }
  }
}

TEST_P(RunStoreTest, FinishedRunReadsBackWithStepsAndTraceKeepingFieldTypesAndOrder) {
  app::RunRecord run = FinishedRun("run-1", At(1000));
  ASSERT_TRUE(store_->CreateRun(RunningRun("run-1", At(1000))));
  ASSERT_TRUE(store_->FinishRun(run));

  auto got = store_->GetRun("run-1");
  ASSERT_TRUE(got) << got.error().ToString();
  ASSERT_TRUE(got->has_value());
  ExpectSameRun(**got, run);
  EXPECT_EQ(harness::RenderTrace((*got)->trace), harness::RenderTrace(run.trace));
}

TEST_P(RunStoreTest, RunningRunReadsBackWithoutResult) {
  ASSERT_TRUE(store_->CreateRun(RunningRun("run-1", At(5))));

  auto got = store_->GetRun("run-1");
  ASSERT_TRUE(got);
  ASSERT_TRUE(got->has_value());
  const app::RunRecord& run = **got;
  EXPECT_EQ(run.status, "RUNNING");
  EXPECT_EQ(run.created_at, At(5));
  EXPECT_EQ(run.result_json, "");
  EXPECT_FALSE(run.finished_at.has_value());
  EXPECT_FALSE(run.release_outcome.has_value());
  EXPECT_FALSE(run.fallback_code.has_value());
  EXPECT_FALSE(run.stop_reason.has_value());
  EXPECT_TRUE(run.steps.empty());
  EXPECT_TRUE(run.trace.empty());
}

TEST_P(RunStoreTest, UnknownRunIsAnEmptyOptionalNotAnError) {
  auto got = store_->GetRun("no-such-run");
  ASSERT_TRUE(got) << got.error().ToString();
  EXPECT_FALSE(got->has_value());
}

TEST_P(RunStoreTest, FinishRunReplacesEarlierStepsAndTrace) {
  app::RunRecord first = FinishedRun("run-1", At(0));
  ASSERT_TRUE(store_->CreateRun(RunningRun("run-1", At(0))));
  ASSERT_TRUE(store_->FinishRun(first));
  app::RunRecord second = first;
  second.status = "FAILED";
  second.steps = {{7, 5, {"only"}}};
  second.trace = {Event(1, TraceEventType::kCollectionStopped, At(3),
                        {{"stop_reason", std::string("BUDGET_LIMIT_REACHED")}})};
  ASSERT_TRUE(store_->FinishRun(second));

  auto got = store_->GetRun("run-1");
  ASSERT_TRUE(got && got->has_value());
  ExpectSameRun(**got, second);
}

TEST_P(RunStoreTest, FinishRunStoresARunThatWasNeverCreated) {
  app::RunRecord run = FinishedRun("run-late", At(0));
  ASSERT_TRUE(store_->FinishRun(run));
  auto got = store_->GetRun("run-late");
  ASSERT_TRUE(got && got->has_value());
  ExpectSameRun(**got, run);
}

TEST_P(RunStoreTest, CreatingARunTwiceIsAFailedPrecondition) {
  ASSERT_TRUE(store_->CreateRun(RunningRun("run-1", At(0))));
  Status again = store_->CreateRun(RunningRun("run-1", At(1)));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kFailedPrecondition);
  auto got = store_->GetRun("run-1");
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->created_at, At(0));
}

TEST_P(RunStoreTest, RejectsEmptyRunIdUnknownStatusAndTraceOutOfOrder) {
  app::RunRecord no_id = RunningRun("", At(0));
  EXPECT_EQ(store_->CreateRun(no_id).error().code, ErrorCode::kInvalidArgument);
  app::RunRecord bad_status = RunningRun("run-1", At(0));
  bad_status.status = "DONE";
  EXPECT_EQ(store_->CreateRun(bad_status).error().code, ErrorCode::kInvalidArgument);
  app::RunRecord unordered = FinishedRun("run-1", At(0));
  std::swap(unordered.trace[1], unordered.trace[2]);
  EXPECT_EQ(store_->FinishRun(unordered).error().code, ErrorCode::kInvalidArgument);
  auto runs = store_->ListRuns(10);
  ASSERT_TRUE(runs);
  EXPECT_TRUE(runs->empty());
}

TEST_P(RunStoreTest, TraceEventWithTwoFieldsOfOneKeyIsRejectedAndNothingIsWritten) {
  ASSERT_TRUE(store_->CreateRun(RunningRun("run-1", At(0))));
  app::RunRecord run = FinishedRun("run-1", At(0));
  run.trace[0].fields.push_back({"route", std::string("KNOWLEDGE")});
  Status finished = store_->FinishRun(run);
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().code, ErrorCode::kInvalidArgument);
  auto got = store_->GetRun("run-1");
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->status, "RUNNING");
}

TEST_P(RunStoreTest, ListsRunsNewestFirstWithRunIdBreakingTies) {
  ASSERT_TRUE(store_->CreateRun(RunningRun("b", At(10))));
  ASSERT_TRUE(store_->CreateRun(RunningRun("a", At(30))));
  ASSERT_TRUE(store_->CreateRun(RunningRun("c", At(10))));
  ASSERT_TRUE(store_->FinishRun(FinishedRun("d", At(20))));

  auto runs = store_->ListRuns(10);
  ASSERT_TRUE(runs) << runs.error().ToString();
  std::vector<std::string> ids;
  for (const auto& run : *runs) ids.push_back(run.run_id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "d", "c", "b"}));
  const app::RunSummary& d = (*runs)[1];
  EXPECT_EQ(d.conversation_id, "conv-1");
  EXPECT_EQ(d.route, "DIAGNOSIS");
  EXPECT_EQ(d.status, "SUCCEEDED");
  EXPECT_EQ(d.release_outcome, "FALLBACK");
  EXPECT_EQ(d.fallback_code, "INSUFFICIENT_EVIDENCE");
  EXPECT_EQ(d.created_at, At(20));
  EXPECT_FALSE((*runs)[0].release_outcome.has_value());
}

TEST_P(RunStoreTest, ListRunsReturnsAtMostLimit) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store_->CreateRun(RunningRun("run-" + std::to_string(i), At(i))));
  }
  auto two = store_->ListRuns(2);
  ASSERT_TRUE(two);
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].run_id, "run-4");
  EXPECT_EQ((*two)[1].run_id, "run-3");
  auto most = store_->ListRuns(SqliteRunStore::kMaxListLimit);
  ASSERT_TRUE(most);
  EXPECT_EQ(most->size(), 5u);
}

TEST_P(RunStoreTest, ListRunsRejectsLimitsOutsideOneTo200) {
  for (int limit : {0, 201, -1}) {
    auto runs = store_->ListRuns(limit);
    ASSERT_FALSE(runs) << limit;
    EXPECT_EQ(runs.error().code, ErrorCode::kInvalidArgument) << limit;
  }
  EXPECT_TRUE(store_->ListRuns(1));
  EXPECT_TRUE(store_->ListRuns(200));
}

app::ConversationTurn Turn(const std::string& role, const std::string& content,
                           const std::string& run_id, WallTime at) {
  return {role, content, run_id, at};
}

TEST_P(RunStoreTest, RecentTurnsAreTheLastNOldestFirst) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store_->AppendTurn(
        "conv-1", Turn(i % 2 == 0 ? "user" : "assistant", "turn " + std::to_string(i),
                       "run-" + std::to_string(i / 2), At(i))));
  }
  ASSERT_TRUE(store_->AppendTurn("conv-2", Turn("user", "elsewhere", "run-9", At(100))));

  auto last3 = store_->RecentTurns("conv-1", 3);
  ASSERT_TRUE(last3) << last3.error().ToString();
  ASSERT_EQ(last3->size(), 3u);
  EXPECT_EQ((*last3)[0].content, "turn 2");
  EXPECT_EQ((*last3)[0].role, "user");
  EXPECT_EQ((*last3)[0].run_id, "run-1");
  EXPECT_EQ((*last3)[0].created_at, At(2));
  EXPECT_EQ((*last3)[1].content, "turn 3");
  EXPECT_EQ((*last3)[1].role, "assistant");
  EXPECT_EQ((*last3)[2].content, "turn 4");

  auto all = store_->RecentTurns("conv-1", 50);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ(all->front().content, "turn 0");
  auto other = store_->RecentTurns("conv-2", 50);
  ASSERT_TRUE(other);
  ASSERT_EQ(other->size(), 1u);
  EXPECT_EQ(other->front().content, "elsewhere");
}

TEST_P(RunStoreTest, AQuestionAndItsAnswerAreAppendedTogetherInOrderOrNotAtAll) {
  ASSERT_TRUE(store_->AppendTurn("conv-1", Turn("user", "earlier", "run-0", At(0))));
  const app::ConversationTurn pair[] = {Turn("user", "为什么又挂了？", "run-1", At(1)),
                                        Turn("assistant", "连接池耗尽", "run-1", At(9))};
  ASSERT_TRUE(store_->AppendTurns("conv-1", pair));
  // A bad turn anywhere in the batch refuses the whole batch.
  const app::ConversationTurn bad[] = {Turn("user", "lost?", "run-2", At(10)),
                                       Turn("system", "never", "run-2", At(11))};
  EXPECT_EQ(store_->AppendTurns("conv-1", bad).error().code, ErrorCode::kInvalidArgument);
  ASSERT_TRUE(store_->AppendTurns("conv-1", {}));

  auto turns = store_->RecentTurns("conv-1", 10);
  ASSERT_TRUE(turns) << turns.error().ToString();
  ASSERT_EQ(turns->size(), 3u);
  EXPECT_EQ((*turns)[0].content, "earlier");
  EXPECT_EQ((*turns)[1].content, "为什么又挂了？");
  EXPECT_EQ((*turns)[1].created_at, At(1));
  EXPECT_EQ((*turns)[2].content, "连接池耗尽");
  EXPECT_EQ((*turns)[2].role, "assistant");
  EXPECT_EQ((*turns)[2].created_at, At(9));
}

TEST_P(RunStoreTest, UnknownConversationHasNoTurns) {
  auto turns = store_->RecentTurns("never-seen", 10);
  ASSERT_TRUE(turns) << turns.error().ToString();
  EXPECT_TRUE(turns->empty());
  auto none = store_->RecentTurns("never-seen", 0);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST_P(RunStoreTest, RejectsBadTurnsAndNegativeMaxTurns) {
  EXPECT_EQ(store_->AppendTurn("", Turn("user", "q", "run-1", At(0))).error().code,
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(store_->AppendTurn("conv-1", Turn("system", "q", "run-1", At(0))).error().code,
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(store_->RecentTurns("conv-1", -1).error().code, ErrorCode::kInvalidArgument);
}

DIAGD_ON_BOTH_STORES(RunStoreTest);

TEST(SqliteRunStoreMemory, EveryInMemoryStoreIsPrivate) {
  ManualClock clock(At(0));
  auto a = SqliteRunStore::Open("sqlite::memory:", clock);
  auto b = SqliteRunStore::Open("sqlite::memory:", clock);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE((*a)->CreateRun(RunningRun("run-1", At(0))));
  auto in_b = (*b)->GetRun("run-1");
  ASSERT_TRUE(in_b);
  EXPECT_FALSE(in_b->has_value());
}

}  // namespace
}  // namespace diagd::store

namespace diagd::store {
namespace {

using testing::At;
using testing::RunningRun;

// The run's event stream, stored with the run (schema v2).
class RunEventsTest : public RunStoreTest {
 protected:
  static std::vector<app::RunEvent> Stream() {
    return {{1, "run", R"({"run_id":"r"})"},
            {2, "route", R"({"route":"DIAGNOSIS"})"},
            {3, "progress", R"({"index":1,"status":"STARTED"})"},
            {4, "result", R"({"run_id":"r"})"},
            {5, "done", "{}"}};
  }
};

std::vector<std::int64_t> Ids(const std::vector<app::RunEvent>& events) {
  std::vector<std::int64_t> ids;
  for (const auto& event : events) ids.push_back(event.id);
  return ids;
}

TEST_P(RunEventsTest, AFinishedRunKeepsItsEventsForReplayAfterAnId) {
  app::RunRecord run = RunningRun("r", At(0));
  ASSERT_TRUE(store_->CreateRun(run));
  auto none = store_->RunEvents("r", 0);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty()) << "a running run has only the events appended to it";

  run.status = "SUCCEEDED";
  run.internal_status = "COMPLETED";
  run.events = Stream();
  ASSERT_TRUE(store_->FinishRun(run));
  auto all = store_->RunEvents("r", 0);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[2].name, "progress");
  EXPECT_EQ((*all)[2].data, R"({"index":1,"status":"STARTED"})");
  auto after = store_->RunEvents("r", 3);
  ASSERT_TRUE(after);
  EXPECT_EQ(Ids(*after), (std::vector<std::int64_t>{4, 5}));
  auto unknown = store_->RunEvents("nope", 0);
  ASSERT_TRUE(unknown);
  EXPECT_TRUE(unknown->empty());
}

TEST_P(RunEventsTest, ARunningRunsAppendedEventsAreReplayedAndARetriedOneIsKeptAsItWas) {
  ASSERT_TRUE(store_->CreateRun(RunningRun("r", At(0))));
  std::vector<app::RunEvent> stream = Stream();
  ASSERT_TRUE(store_->AppendEvents("r", {stream[0], stream[1]}));
  auto two = store_->RunEvents("r", 0);
  ASSERT_TRUE(two) << two.error().ToString();
  EXPECT_EQ(Ids(*two), (std::vector<std::int64_t>{1, 2}));

  app::RunEvent retried = stream[1];
  retried.data = R"({"route":"KNOWLEDGE"})";
  ASSERT_TRUE(store_->AppendEvents("r", {retried, stream[2]}));
  auto three = store_->RunEvents("r", 1);
  ASSERT_TRUE(three);
  EXPECT_EQ(Ids(*three), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ((*three)[0].data, stream[1].data) << "the event stored first stands";

  app::RunRecord finished = RunningRun("r", At(0));
  finished.status = "SUCCEEDED";
  finished.internal_status = "COMPLETED";
  finished.events = stream;
  ASSERT_TRUE(store_->FinishRun(finished));
  EXPECT_EQ(Ids(*store_->RunEvents("r", 0)), (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
}

TEST_P(RunEventsTest, EventsAreAppendedOnlyToARunThatIsStillRunning) {
  Status unknown = store_->AppendEvents("nope", {{1, "run", "{}"}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);

  app::RunRecord run = RunningRun("r", At(0));
  run.status = "SUCCEEDED";
  run.internal_status = "COMPLETED";
  run.events = Stream();
  ASSERT_TRUE(store_->FinishRun(run));
  Status late = store_->AppendEvents("r", {{6, "progress", "{}"}});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_EQ(Ids(*store_->RunEvents("r", 0)), (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
}

TEST_P(RunEventsTest, AppendedEventIdsMustCountOnByOne) {
  ASSERT_TRUE(store_->CreateRun(RunningRun("r", At(0))));
  for (const auto& slice : std::vector<std::vector<app::RunEvent>>{
           {{0, "run", "{}"}}, {{1, "run", "{}"}, {3, "route", "{}"}}}) {
    Status appended = store_->AppendEvents("r", slice);
    ASSERT_FALSE(appended);
    EXPECT_EQ(appended.error().code, ErrorCode::kInvalidArgument);
  }
  EXPECT_TRUE(store_->RunEvents("r", 0)->empty());
}

TEST_P(RunEventsTest, EventIdsMustCountFromOne) {
  app::RunRecord run = RunningRun("r", At(0));
  run.events = {{1, "run", "{}"}, {3, "route", "{}"}};
  Status finished = store_->FinishRun(run);
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().code, ErrorCode::kInvalidArgument);
}

TEST_P(RunEventsTest, AbandoningARunningRunFailsItWithTheReasonAndItsEvents) {
  ASSERT_TRUE(store_->CreateRun(RunningRun("r", At(0))));
  std::vector<app::RunEvent> events = {{1, "run", "{}"},
                                       {2, "error", R"({"code":"RUN_ABANDONED"})"},
                                       {3, "done", "{}"}};
  ASSERT_TRUE(store_->AbandonRun({"r", "SERVER_SHUTDOWN", "DIAGNOSIS", At(900), events}));
  auto run = store_->GetRun("r");
  ASSERT_TRUE(run && run->has_value());
  EXPECT_EQ((*run)->route, "DIAGNOSIS") << "the route the run was given, though never stored";
  EXPECT_EQ((*run)->status, "FAILED");
  EXPECT_EQ((*run)->internal_status, "FAILED");
  EXPECT_EQ((*run)->failure_reason, "SERVER_SHUTDOWN");
  EXPECT_EQ((*run)->finished_at, At(900));
  EXPECT_TRUE((*run)->result_json.empty());
  auto stored = store_->RunEvents("r", 0);
  ASSERT_TRUE(stored);
  EXPECT_EQ(Ids(*stored), (std::vector<std::int64_t>{1, 2, 3}));
}

TEST_P(RunEventsTest, AFinishedRunIsNeverAbandonedAndAnUnknownOneIsNotFound) {
  app::RunRecord run = RunningRun("r", At(0));
  run.status = "SUCCEEDED";
  run.internal_status = "COMPLETED";
  run.events = Stream();
  ASSERT_TRUE(store_->FinishRun(run));
  Status late = store_->AbandonRun({"r", "SERVER_SHUTDOWN", "", At(900), {}});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, ErrorCode::kFailedPrecondition);
  auto kept = store_->GetRun("r");
  ASSERT_TRUE(kept && kept->has_value());
  EXPECT_EQ((*kept)->status, "SUCCEEDED");
  EXPECT_FALSE((*kept)->failure_reason.has_value());
  EXPECT_EQ(store_->RunEvents("r", 0)->size(), 5u);

  Status unknown = store_->AbandonRun({"nope", "SERVER_SHUTDOWN", "", At(900), {}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
}

DIAGD_ON_BOTH_STORES(RunEventsTest);

}  // namespace
}  // namespace diagd::store
