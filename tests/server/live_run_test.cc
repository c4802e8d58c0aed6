// A live run's event stream: appended by the run's worker, read and waited
// on by any number of watchers, closed by `done` or by an error of its own.
#include "server/live_run.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace diagd::server {
namespace {

app::RunEvent Event(std::int64_t id, std::string name) { return {id, std::move(name), "{}"}; }

TEST(LiveRun, EventsAfterAnIdAndClosedByDone) {
  LiveRun run;
  run.Append(Event(1, "run"));
  run.Append(Event(2, "route"));
  auto slice = run.EventsAfter(1);
  ASSERT_EQ(slice.events.size(), 1u);
  EXPECT_EQ(slice.events[0].name, "route");
  EXPECT_FALSE(slice.closed);
  run.Append(Event(3, "result"));
  run.Append(Event(4, "done"));
  EXPECT_TRUE(run.EventsAfter(4).closed);
  EXPECT_TRUE(run.EventsAfter(4).events.empty());
  run.Append(Event(5, "progress"));
  EXPECT_EQ(run.EventsAfter(0).events.size(), 4u) << "nothing after done";
}

TEST(LiveRun, CloseWithErrorNumbersOnAndSealsTheStream) {
  LiveRun run;
  run.Append(Event(1, "run"));
  run.Append(Event(2, "route"));
  auto all = run.CloseWithError("RUN_ABANDONED", "gone");
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[2].id, 3);
  EXPECT_EQ((*all)[2].name, "error");
  EXPECT_EQ((*all)[2].data, R"({"code":"RUN_ABANDONED","message":"gone"})");
  EXPECT_EQ((*all)[3].name, "done");
  EXPECT_FALSE(run.CloseWithError("AGAIN", "x").has_value()) << "closed once";
  run.Append(Event(3, "progress"));  // the abandoned worker still talking
  EXPECT_EQ(run.EventsAfter(0).events.size(), 4u);
}

TEST(LiveRun, WakesAWaiterOnceANewerEventExists) {
  LiveRun run;
  run.Append(Event(1, "run"));
  int woken = 0;
  run.WhenEventAfter(0, [&] { ++woken; });
  EXPECT_EQ(woken, 1) << "an event after 0 exists: at once";
  run.WhenEventAfter(1, [&] { ++woken; });
  EXPECT_EQ(woken, 1) << "waits for event 2";
  run.Append(Event(2, "route"));
  EXPECT_EQ(woken, 2);
  run.Append(Event(3, "progress"));
  EXPECT_EQ(woken, 2) << "a waiter is woken once";
  run.WhenEventAfter(3, [&] { ++woken; });
  run.CloseWithError("X", "y");
  EXPECT_EQ(woken, 3) << "closing wakes";
  run.WhenEventAfter(100, [&] { ++woken; });
  EXPECT_EQ(woken, 4) << "a closed run wakes at once";
}

TEST(LiveRun, AWaiterForTheEndIsWokenByTheCloseAlone) {
  LiveRun run;
  run.Append(Event(1, "run"));
  int woken = 0;
  run.WhenClosed([&] { ++woken; });
  run.Append(Event(2, "route"));
  run.Append(Event(3, "result"));
  EXPECT_EQ(woken, 0) << "events before done do not wake it";
  EXPECT_FALSE(run.closed());
  run.Append(Event(4, "done"));
  EXPECT_EQ(woken, 1);
  EXPECT_TRUE(run.closed());
  run.WhenClosed([&] { ++woken; });
  EXPECT_EQ(woken, 2) << "a closed run wakes at once";
}

TEST(LiveRun, AWaiterForTheEndIsWokenOnlyOnceASealedErrorIsRevealed) {
  LiveRun run;
  run.Append(Event(1, "run"));
  int woken = 0;
  run.WhenClosed([&] { ++woken; });
  ASSERT_TRUE(run.Seal("STORE_UNAVAILABLE", "down").has_value());
  EXPECT_EQ(woken, 0) << "sealed, but the end is not visible before it is stored";
  EXPECT_FALSE(run.closed());
  run.Reveal();
  EXPECT_EQ(woken, 1);
  EXPECT_TRUE(run.EventsAfter(0).closed);
}

TEST(LiveRun, ConcurrentWatchersSeeEveryEventInOrder) {
  LiveRun run;
  constexpr int kEvents = 2000;
  std::vector<std::thread> watchers;
  std::atomic<int> complete{0};
  for (int w = 0; w < 4; ++w) {
    watchers.emplace_back([&] {
      std::int64_t last = 0;
      while (true) {
        auto slice = run.EventsAfter(last);
        for (const auto& event : slice.events) {
          ASSERT_EQ(event.id, last + 1);
          last = event.id;
        }
        if (slice.closed) break;
        std::atomic<bool> ready{false};
        run.WhenEventAfter(last, [&] { ready = true; });
        while (!ready) std::this_thread::yield();
      }
      if (last == kEvents) ++complete;
    });
  }
  for (int i = 1; i < kEvents; ++i) run.Append(Event(i, "progress"));
  run.Append(Event(kEvents, "done"));
  for (auto& t : watchers) t.join();
  EXPECT_EQ(complete, 4);
}

TEST(LiveRunRegistry, FindsRunsUntilRemoved) {
  LiveRunRegistry registry;
  auto run = std::make_shared<LiveRun>();
  registry.Add("r1", run);
  EXPECT_EQ(registry.Find("r1"), run);
  EXPECT_EQ(registry.Find("r2"), nullptr);
  EXPECT_EQ(registry.All().size(), 1u);
  registry.Remove("r1");
  EXPECT_EQ(registry.Find("r1"), nullptr);
}

}  // namespace
}  // namespace diagd::server
