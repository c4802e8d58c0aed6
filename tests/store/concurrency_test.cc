// Many threads on one store, and two stores (two connections, as two
// processes would have) on one file.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "store/sqlite_run_store.h"
#include "store/store_backends.h"
#include "store/store_test_support.h"

namespace diagd::store {
namespace {

using testing::At;
using testing::RunningRun;

constexpr int kWriters = 8;
constexpr int kRunsPerWriter = 25;

app::RunRecord Finished(app::RunRecord run, int writer) {
  run.status = "SUCCEEDED";
  run.internal_status = "COMPLETED";
  run.release_outcome = "DIAGNOSIS";
  run.finished_at = run.created_at + std::chrono::milliseconds(5);
  run.result_json = R"({"run_id":")" + run.run_id + "\"}";
  run.steps = {{1, 10, {"call-a"}}, {2, 20, {"call-b"}}};
  for (std::int64_t seq = 1; seq <= 6; ++seq) {
    harness::TraceEvent event;
    event.seq = seq;
    event.type = harness::TraceEventType::kModelCall;
    event.time = run.created_at;
    event.fields = {{"writer", std::int64_t{writer}}, {"seq", seq}};
    run.trace.push_back(event);
  }
  return run;
}

// Writes kRunsPerWriter runs (create, then finish) for `writer`; returns
// how many calls failed.
int WriteRuns(app::RunStore& store, int writer) {
  int failures = 0;
  for (int i = 0; i < kRunsPerWriter; ++i) {
    std::string id = "w" + std::to_string(writer) + "-" + std::to_string(i);
    app::RunRecord run = RunningRun(id, At(i * kWriters + writer));
    if (!store.CreateRun(run)) ++failures;
    if (!store.FinishRun(Finished(run, writer))) ++failures;
  }
  return failures;
}

bool NewestFirst(const std::vector<app::RunSummary>& runs) {
  return std::is_sorted(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
    return a.created_at != b.created_at ? a.created_at > b.created_at : a.run_id > b.run_id;
  });
}

class RunStoreConcurrency : public ::testing::TestWithParam<testing::Backend> {};

TEST_P(RunStoreConcurrency, EightWritersAndAListerShareOneStore) {
  testing::TempDir dir;
  ManualClock clock(At(0));
  DIAGD_FRESH_STORE_URL(url, GetParam(), dir.Url("runs.db"));
  auto opened = testing::OpenStore(url, clock);
  ASSERT_TRUE(opened) << opened.error().ToString();
  app::RunStore& store = **opened;

  std::atomic<int> failures{0};
  std::atomic<int> writers_left{kWriters};
  std::atomic<int> bad_listings{0};
  std::atomic<int> listings{0};
  std::thread lister([&] {
    while (writers_left.load() > 0) {
      auto runs = store.ListRuns(50);
      if (!runs || runs->size() > 50 || !NewestFirst(*runs)) ++bad_listings;
      ++listings;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      failures += WriteRuns(store, w);
      --writers_left;
    });
  }
  for (auto& t : writers) t.join();
  lister.join();

  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(bad_listings.load(), 0);
  EXPECT_GT(listings.load(), 0);
  auto all = store.ListRuns(200);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), static_cast<std::size_t>(kWriters * kRunsPerWriter));
  EXPECT_TRUE(NewestFirst(*all));
  for (const auto& summary : *all) {
    auto run = store.GetRun(summary.run_id);
    ASSERT_TRUE(run && run->has_value()) << summary.run_id;
    EXPECT_EQ((*run)->status, "SUCCEEDED");
    EXPECT_EQ((*run)->steps.size(), 2u);
    EXPECT_EQ((*run)->trace.size(), 6u);
  }
}

TEST_P(RunStoreConcurrency, TwoStoresOnOneDatabaseWriteAtOnce) {
  testing::TempDir dir;
  ManualClock clock(At(0));
  DIAGD_FRESH_STORE_URL(url, GetParam(), dir.Url("runs.db"));
  auto a = testing::OpenStore(url, clock);
  auto b = testing::OpenStore(url, clock);
  ASSERT_TRUE(a && b);

  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    app::RunStore& store = w % 2 == 0 ? static_cast<app::RunStore&>(**a) : **b;
    writers.emplace_back([&failures, &store, w] { failures += WriteRuns(store, w); });
  }
  for (auto& t : writers) t.join();

  EXPECT_EQ(failures.load(), 0);
  auto seen_by_a = (*a)->ListRuns(200);
  ASSERT_TRUE(seen_by_a);
  EXPECT_EQ(seen_by_a->size(), static_cast<std::size_t>(kWriters * kRunsPerWriter));
}

TEST_P(RunStoreConcurrency, ConcurrentAppendsToOneConversationKeepEveryTurnInOrder) {
  testing::TempDir dir;
  ManualClock clock(At(0));
  DIAGD_FRESH_STORE_URL(url, GetParam(), dir.Url("runs.db"));
  auto opened = testing::OpenStore(url, clock);
  ASSERT_TRUE(opened);
  app::RunStore& store = **opened;
  constexpr int kTurnsPerThread = 20;

  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kTurnsPerThread; ++i) {
        app::ConversationTurn turn{"user", std::to_string(t) + ":" + std::to_string(i),
                                   "run-" + std::to_string(t), At(i)};
        if (!store.AppendTurn("conv-shared", turn)) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();

  EXPECT_EQ(failures.load(), 0);
  auto turns = store.RecentTurns("conv-shared", 1000);
  ASSERT_TRUE(turns);
  ASSERT_EQ(turns->size(), static_cast<std::size_t>(kWriters * kTurnsPerThread));
  // Each thread's turns appear in the order it appended them.
  std::vector<int> next(kWriters, 0);
  for (const auto& turn : *turns) {
    int t = std::stoi(turn.content.substr(0, turn.content.find(':')));
    int i = std::stoi(turn.content.substr(turn.content.find(':') + 1));
    EXPECT_EQ(i, next[t]++) << turn.content;
  }
}

// Two instances append to one conversation at once: every turn is kept,
// each under its own seq, and each writer's turns stay in its order.
TEST_P(RunStoreConcurrency, TwoStoresAppendToOneConversationAtOnce) {
  testing::TempDir dir;
  ManualClock clock(At(0));
  DIAGD_FRESH_STORE_URL(url, GetParam(), dir.Url("runs.db"));
  auto a = testing::OpenStore(url, clock);
  auto b = testing::OpenStore(url, clock);
  ASSERT_TRUE(a && b);
  constexpr int kTurnsPerThread = 20;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    app::RunStore& store = t % 2 == 0 ? static_cast<app::RunStore&>(**a) : **b;
    threads.emplace_back([&, t] {
      for (int i = 0; i < kTurnsPerThread; ++i) {
        app::ConversationTurn turn{"user", std::to_string(t) + ":" + std::to_string(i),
                                   "run-" + std::to_string(t), At(i)};
        if (!store.AppendTurn("conv-shared", turn)) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto turns = (*b)->RecentTurns("conv-shared", 1000);
  ASSERT_TRUE(turns);
  ASSERT_EQ(turns->size(), static_cast<std::size_t>(kWriters * kTurnsPerThread));
  std::vector<int> next(kWriters, 0);
  for (const auto& turn : *turns) {
    int t = std::stoi(turn.content.substr(0, turn.content.find(':')));
    int i = std::stoi(turn.content.substr(turn.content.find(':') + 1));
    EXPECT_EQ(i, next[t]++) << turn.content;
  }
}

DIAGD_ON_BOTH_STORES(RunStoreConcurrency);

}  // namespace
}  // namespace diagd::store

namespace diagd::store {
namespace {

// Concurrent writes are committed in groups, each under its own savepoint:
// writes that fail (a second create of one run id) never undo the writes
// committed with them, and every caller gets its own write's status.
class RunStoreGroupCommit : public ::testing::TestWithParam<testing::Backend> {};

TEST_P(RunStoreGroupCommit, FailingWritesInAGroupLeaveTheOthersCommitted) {
  testing::TempDir dir;
  ManualClock clock(testing::At(0));
  DIAGD_FRESH_STORE_URL(url, GetParam(), dir.Url("runs.db"));
  auto opened = testing::OpenStore(url, clock);
  ASSERT_TRUE(opened) << opened.error().ToString();
  app::RunStore& store = **opened;
  ASSERT_TRUE(store.CreateRun(testing::RunningRun("taken", testing::At(0))));

  constexpr int kThreads = 16;
  constexpr int kRounds = 20;
  std::atomic<int> created{0}, refused{0}, wrong_code{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        bool duplicate = (t + i) % 2 == 0;
        std::string id = duplicate ? "taken" : "t" + std::to_string(t) + "-" + std::to_string(i);
        Status status = store.CreateRun(testing::RunningRun(id, testing::At(i)));
        if (status) {
          ++created;
        } else if (status.error().code == ErrorCode::kFailedPrecondition) {
          ++refused;
        } else {
          ++wrong_code;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(created, kThreads * kRounds / 2);
  EXPECT_EQ(refused, kThreads * kRounds / 2);
  EXPECT_EQ(wrong_code, 0);
  auto runs = store.ListRuns(200);
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->size(), 161u) << "every created run, and the first one";
}

DIAGD_ON_BOTH_STORES(RunStoreGroupCommit);

}  // namespace
}  // namespace diagd::store
