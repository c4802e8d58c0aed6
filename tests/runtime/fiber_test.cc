#include "runtime/fiber.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "testing/eventually.h"

namespace diagd::runtime {
namespace {

using diagd::testing::Eventually;

constexpr std::size_t kStack = 256 * 1024;

// Wakes handed out by parked fibers, for the test's thread to call.
struct WakeBox {
  std::mutex mu;
  std::vector<Wake> wakes;
  void Add(Wake wake) {
    std::lock_guard lock(mu);
    wakes.push_back(std::move(wake));
  }
  std::size_t size() {
    std::lock_guard lock(mu);
    return wakes.size();
  }
  void WakeAll() {
    std::vector<Wake> taken;
    {
      std::lock_guard lock(mu);
      taken.swap(wakes);
    }
    for (auto& wake : taken) wake();
  }
};

TEST(FiberPool, RunsEverySpawnedFiberAndWaitsForThemWhenDestroyed) {
  std::atomic<int> ran{0};
  {
    FiberPool pool(2, kStack);
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(pool.Spawn([&] {
        EXPECT_TRUE(OnFiber());
        ++ran;
      }));
    }
  }
  EXPECT_EQ(ran.load(), 1000);
}

TEST(FiberPool, ParkedFibersHoldNoWorker) {
  // One worker, 200 fibers parked at once: only possible if a parked fiber
  // gives its worker back.
  WakeBox box;
  std::atomic<int> resumed{0};
  FiberPool pool(1, kStack);
  for (int i = 0; i < 200; ++i) {
    pool.Spawn([&] {
      Park([&](Wake wake) { box.Add(std::move(wake)); });
      ++resumed;
    });
  }
  ASSERT_TRUE(Eventually([&] { return box.size() == 200; }));
  EXPECT_EQ(resumed.load(), 0);
  EXPECT_EQ(pool.live_fibers(), 200);
  box.WakeAll();
  ASSERT_TRUE(Eventually([&] { return resumed.load() == 200; }));
}

TEST(FiberPool, AWakeCalledFromArmResumesAtOnce) {
  std::atomic<bool> done{false};
  FiberPool pool(1, kStack);
  pool.Spawn([&] {
    Park([](Wake wake) { wake(); });
    done = true;
  });
  ASSERT_TRUE(Eventually([&] { return done.load(); }));
}

// Fills `depth` frames with values derived from their depth, parks at the
// bottom, and checks every frame's values after the wake.
int DeepThenPark(int depth, WakeBox& box) {
  volatile char frame[512];
  for (std::size_t i = 0; i < sizeof(frame); ++i) frame[i] = static_cast<char>(depth + i);
  int below = 0;
  if (depth == 0) {
    Park([&box](Wake wake) { box.Add(std::move(wake)); });
  } else {
    below = DeepThenPark(depth - 1, box);
  }
  int intact = 1;
  for (std::size_t i = 0; i < sizeof(frame); ++i) {
    if (frame[i] != static_cast<char>(depth + i)) intact = 0;
  }
  return below + intact;
}

TEST(FiberPool, AFiberKeepsItsStackAcrossAParkOnWhicheverWorkerResumesIt) {
  WakeBox box;
  std::atomic<int> intact_frames{0};
  FiberPool pool(4, kStack);
  constexpr int kFibers = 16;
  constexpr int kDepth = 64;  // about 40 KiB of frames below the park
  for (int i = 0; i < kFibers; ++i) {
    pool.Spawn([&] { intact_frames += DeepThenPark(kDepth, box); });
  }
  ASSERT_TRUE(Eventually([&] { return box.size() == kFibers; }));
  box.WakeAll();
  ASSERT_TRUE(Eventually([&] { return pool.live_fibers() == 0; }));
  EXPECT_EQ(intact_frames.load(), kFibers * (kDepth + 1));
}

// True when the page holding `address` is resident.
bool Resident(std::uintptr_t address) {
  auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  auto start = address & ~(page - 1);
  unsigned char state = 0;
  if (mincore(reinterpret_cast<void*>(start), page, &state) != 0) return false;
  return (state & 1) != 0;
}

// Touches 64 KiB of stack and notes an address deep inside it.
[[gnu::noinline]] std::uintptr_t TouchDeep() {
  volatile char scratch[64 * 1024];
  for (std::size_t i = 0; i < sizeof(scratch); i += 512) scratch[i] = 1;
  return reinterpret_cast<std::uintptr_t>(&scratch[0]);
}

TEST(FiberPool, AParkedFiberGivesBackTheStackBelowWhereItParkedOnceIdle) {
  WakeBox box;
  std::uintptr_t deep = 0;
  std::atomic<bool> resident_before{false};
  std::atomic<bool> done{false};
  FiberPool pool(1, kStack);
  pool.Spawn([&] {
    deep = TouchDeep();
    resident_before = Resident(deep);
    Park([&](Wake wake) { box.Add(std::move(wake)); });
    done = true;
  });
  ASSERT_TRUE(Eventually([&] { return box.size() == 1; }));
  EXPECT_TRUE(resident_before.load());
  // Given back by a later pass over idle stacks, while it still waits.
  EXPECT_TRUE(Eventually([&] { return !Resident(deep); }));
  box.WakeAll();
  ASSERT_TRUE(Eventually([&] { return done.load(); }));
}

TEST(FiberPool, AFinishedFibersStackIsGivenBackOnceIdleAndServesTheNextFiber) {
  std::atomic<std::uintptr_t> deep{0};
  std::atomic<int> finished{0};
  FiberPool pool(1, kStack);
  pool.Spawn([&] {
    deep = TouchDeep();
    ++finished;
  });
  ASSERT_TRUE(Eventually([&] { return finished.load() == 1; }));
  EXPECT_TRUE(Eventually([&] { return !Resident(deep); }));
  // The next fiber runs on a stack that was in use, and uses all of it.
  std::atomic<std::uintptr_t> deep_again{0};
  pool.Spawn([&] {
    deep_again = TouchDeep();
    ++finished;
  });
  ASSERT_TRUE(Eventually([&] { return finished.load() == 2; }));
  EXPECT_EQ(deep_again.load(), deep.load());
}

TEST(FiberPool, OnIdleRunsOnceEachTimeThePoolHasBeenIdleThatLong) {
  using std::chrono::milliseconds;
  std::atomic<int> idle_calls{0};
  std::atomic<int> finished{0};
  WakeBox box;
  FiberPool pool(1, kStack);
  pool.OnIdle(milliseconds(100), [&] { ++idle_calls; });
  pool.Spawn([&] {
    Park([&](Wake wake) { box.Add(std::move(wake)); });
    ++finished;
  });
  ASSERT_TRUE(Eventually([&] { return box.size() == 1; }));
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_EQ(idle_calls.load(), 0) << "a parked fiber is alive: the pool is not idle";

  box.WakeAll();
  ASSERT_TRUE(Eventually([&] { return idle_calls.load() == 1; })) << "once the last fiber ended";
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_EQ(idle_calls.load(), 1) << "once per idle spell";

  pool.Spawn([&] { ++finished; });
  ASSERT_TRUE(Eventually([&] { return finished.load() == 2; }));
  EXPECT_TRUE(Eventually([&] { return idle_calls.load() == 2; })) << "and again after the next";
}

TEST(FiberPool, SleepingFibersWakeInDeadlineOrderWithoutHoldingTheWorker) {
  std::mutex mu;
  std::vector<int> order;
  FiberPool pool(1, kStack);
  for (int delay_ms : {300, 100, 200}) {
    pool.Spawn([&, delay_ms] {
      SleepFor(std::chrono::milliseconds(delay_ms));
      std::lock_guard lock(mu);
      order.push_back(delay_ms);
    });
  }
  ASSERT_TRUE(Eventually([&] { return pool.live_fibers() == 0; }));
  EXPECT_EQ(order, (std::vector<int>{100, 200, 300}));
}

TEST(FiberPool, OffAFiberSleepForSleepsTheThread) {
  EXPECT_FALSE(OnFiber());
  auto start = std::chrono::steady_clock::now();
  SleepFor(std::chrono::milliseconds(20));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
}

TEST(FiberPool, ABlockingCallHoldsNoWorker) {
  // One worker: the second fiber runs while the first one's call is
  // blocked only if that call is on a blocking thread.
  std::atomic<bool> release{false};
  std::atomic<bool> second_ran{false};
  std::atomic<bool> first_done{false};
  FiberPool pool(1, kStack, 2);
  pool.Spawn([&] {
    RunBlocking([&] {
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    first_done = true;
  });
  pool.Spawn([&] { second_ran = true; });
  EXPECT_TRUE(Eventually([&] { return second_ran.load(); }));
  EXPECT_FALSE(first_done.load());
  release = true;
  ASSERT_TRUE(Eventually([&] { return first_done.load(); }));
}

TEST(FiberPool, BlockingCallsBeyondTheThreadsWaitTheirTurn) {
  std::atomic<bool> release{false};
  std::atomic<int> in_progress{0};
  std::atomic<int> most_at_once{0};
  std::atomic<int> done{0};
  FiberPool pool(1, kStack, 2);
  for (int i = 0; i < 5; ++i) {
    pool.Spawn([&] {
      RunBlocking([&] {
        int now = ++in_progress;
        int seen = most_at_once;
        while (now > seen && !most_at_once.compare_exchange_weak(seen, now)) {
        }
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        --in_progress;
      });
      ++done;
    });
  }
  ASSERT_TRUE(Eventually([&] { return in_progress.load() == 2; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a third would start now
  release = true;
  ASSERT_TRUE(Eventually([&] { return done.load() == 5; }));
  EXPECT_EQ(most_at_once.load(), 2);
}

TEST(FiberPool, ABlockingCallsExceptionIsRethrownOnTheFiber) {
  std::atomic<bool> caught{false};
  FiberPool pool(1, kStack, 1);
  pool.Spawn([&] {
    try {
      RunBlocking([] { throw std::runtime_error("backend gone"); });
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "backend gone";
    }
  });
  ASSERT_TRUE(Eventually([&] { return pool.live_fibers() == 0; }));
  EXPECT_TRUE(caught.load());
}

TEST(FiberPool, WithoutBlockingThreadsOrOffAFiberABlockingCallRunsInPlace) {
  auto here = std::this_thread::get_id();
  std::thread::id ran_on;
  RunBlocking([&] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, here);

  std::atomic<bool> same_thread{false};
  FiberPool pool(1, kStack);
  pool.Spawn([&] {
    auto worker = std::this_thread::get_id();
    std::thread::id call_thread;
    RunBlocking([&] { call_thread = std::this_thread::get_id(); });
    same_thread = call_thread == worker;
  });
  ASSERT_TRUE(Eventually([&] { return pool.live_fibers() == 0; }));
  EXPECT_TRUE(same_thread.load());
}

TEST(FiberCondition, FibersAndThreadsWaitOnTheSameConditionAndNoWakeIsLost) {
  // Ping-pong between a fiber and a thread, 2,000 times over one mutex and
  // one condition: a lost wake would leave both waiting.
  std::mutex mu;
  Condition changed;
  int turn = 0;  // even: the fiber's move; odd: the thread's
  constexpr int kRounds = 2000;
  FiberPool pool(1, kStack);
  pool.Spawn([&] {
    std::unique_lock lock(mu);
    for (int i = 0; i < kRounds; ++i) {
      while (turn % 2 != 0) changed.Wait(lock);
      ++turn;
      changed.NotifyAll();
    }
  });
  std::thread player([&] {
    std::unique_lock lock(mu);
    for (int i = 0; i < kRounds; ++i) {
      while (turn % 2 != 1) changed.Wait(lock);
      ++turn;
      changed.NotifyAll();
    }
  });
  player.join();
  ASSERT_TRUE(Eventually([&] { return pool.live_fibers() == 0; }));
  EXPECT_EQ(turn, 2 * kRounds);
}

// Deep on purpose: a kilobyte a frame, far past any fiber's stack. The
// frame is used after the call, so no call is a tail call.
[[gnu::noinline]] int RecurseDeeply(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  if (depth == 0) return 0;
  int below = RecurseDeeply(depth - 1);
  asm volatile("" : : "r"(&frame[0]) : "memory");
  return below + frame[0];
}

// Frames larger than a page, each touched at its far end first, so the
// first touch past the stack lands below the guard region's first page.
[[gnu::noinline]] int RecurseInLargeFrames(int depth) {
  volatile char frame[24 * 1024];
  frame[0] = static_cast<char>(depth);
  if (depth == 0) return 0;
  int below = RecurseInLargeFrames(depth - 1);
  asm volatile("" : : "r"(&frame[0]) : "memory");
  return below + frame[0] + frame[sizeof(frame) - 1];
}

void WriteNowhere() {
  volatile int* volatile nowhere = nullptr;
  *nowhere = 1;
}

// The children that die on purpose leave no core file behind.
void NoCoreDump() {
  rlimit none{0, 0};
  setrlimit(RLIMIT_CORE, &none);
}

// "threadsafe": each child runs the test binary afresh, so the handler is
// installed (by its first pool) inside the statement, as in a fresh server.
// ThreadSanitizer passes these faults on to it (scripts/tsan runs them);
// AddressSanitizer's own SIGSEGV handling is not tried here.
class FiberDeathTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer handles SIGSEGV itself";
#endif
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

TEST_F(FiberDeathTest, AStackOverflowSaysWhichLimitAndStillKillsTheProcess) {
  EXPECT_EXIT(
      {
        NoCoreDump();
        FiberPool pool(1, kStack);
        pool.Spawn([] { RecurseDeeply(1 << 20); });
      },
      ::testing::KilledBySignal(SIGSEGV),
      "^diagd: a run overflowed its 256 KiB fiber stack \\(guard page hit\\); aborting\n$");
}

TEST_F(FiberDeathTest, AFrameLargerThanAPageThatRunsPastTheStackIsAnOverflowToo) {
  EXPECT_EXIT(
      {
        NoCoreDump();
        FiberPool pool(1, kStack);
        pool.Spawn([] { RecurseInLargeFrames(1 << 10); });
      },
      ::testing::KilledBySignal(SIGSEGV),
      "^diagd: a run overflowed its 256 KiB fiber stack \\(guard page hit\\); aborting\n$");
}

TEST_F(FiberDeathTest, AnotherFaultOnAFiberDiesAsBefore) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer reports this fault itself and exits with 66";
#endif
  EXPECT_EXIT(
      {
        NoCoreDump();
        FiberPool pool(1, kStack);
        pool.Spawn([] { WriteNowhere(); });
      },
      ::testing::KilledBySignal(SIGSEGV), ::testing::Not(::testing::HasSubstr("overflowed")));
}

void SayAndExit(int) {
  constexpr char kSaid[] = "the earlier handler ran\n";
  ssize_t ignored = write(STDERR_FILENO, kSaid, sizeof kSaid - 1);
  (void)ignored;
  _exit(3);
}

TEST_F(FiberDeathTest, AFaultOffTheFibersGoesToTheEarlierHandler) {
  EXPECT_EXIT(
      {
        signal(SIGSEGV, &SayAndExit);
        FiberPool pool(1, kStack);
        WriteNowhere();
      },
      ::testing::ExitedWithCode(3), "the earlier handler ran");
}

}  // namespace
}  // namespace diagd::runtime
