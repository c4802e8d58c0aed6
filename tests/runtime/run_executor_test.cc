// Admission: max_running at once, a bounded queue, refusal past it, and
// queued jobs cancelled on Close.
#include "runtime/run_executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace diagd::runtime {
namespace {

// Jobs that block until released.
class Gate {
 public:
  void Wait() {
    std::unique_lock lock(mu_);
    ++waiting_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
  }
  void WaitForWaiting(int n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return waiting_ >= n; });
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_ = 0;
  bool open_ = false;
};

void WaitUntilIdle(const RunExecutor& executor) {
  while (executor.running() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(RunExecutor, RunsUpToTheLimitQueuesTheNextAndRefusesPastTheQueue) {
  RunExecutor executor(2, 1);
  Gate gate;
  std::atomic<int> ran{0};
  auto job = [&] { return RunExecutor::Job{[&] { gate.Wait(); ++ran; }, {}}; };
  EXPECT_EQ(executor.Submit(job()), RunExecutor::Admission::kRunning);
  EXPECT_EQ(executor.Submit(job()), RunExecutor::Admission::kRunning);
  gate.WaitForWaiting(2);
  EXPECT_EQ(executor.Submit(job()), RunExecutor::Admission::kQueued);
  EXPECT_EQ(executor.Submit(job()), RunExecutor::Admission::kOverloaded);
  EXPECT_EQ(executor.running(), 2);
  EXPECT_EQ(executor.queued(), 1);
  gate.Open();
  WaitUntilIdle(executor);
  EXPECT_EQ(ran, 3) << "the queued job ran on a freed thread";
  EXPECT_EQ(executor.queued(), 0);
}

TEST(RunExecutor, CloseCancelsQueuedJobsAndRefusesNewOnes) {
  RunExecutor executor(1, 4);
  Gate gate;
  std::atomic<int> ran{0}, cancelled{0};
  auto job = [&] { return RunExecutor::Job{[&] { gate.Wait(); ++ran; }, [&] { ++cancelled; }}; };
  ASSERT_EQ(executor.Submit(job()), RunExecutor::Admission::kRunning);
  gate.WaitForWaiting(1);
  ASSERT_EQ(executor.Submit(job()), RunExecutor::Admission::kQueued);
  ASSERT_EQ(executor.Submit(job()), RunExecutor::Admission::kQueued);
  executor.Close();
  EXPECT_EQ(cancelled, 2);
  EXPECT_EQ(executor.Submit(job()), RunExecutor::Admission::kClosed);
  gate.Open();
  WaitUntilIdle(executor);
  EXPECT_EQ(ran, 1) << "the running job finishes; the cancelled ones never run";
}

TEST(RunExecutor, ManyShortJobsFromManyThreadsAllRunOnce) {
  RunExecutor executor(8, 10000);
  std::atomic<int> ran{0};
  std::vector<std::thread> submitters;
  std::atomic<int> refused{0};
  for (int t = 0; t < 4; ++t) {
    submitters.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        auto admission = executor.Submit({[&] { ++ran; }, {}});
        if (admission == RunExecutor::Admission::kOverloaded) ++refused;
      }
    });
  }
  for (auto& t : submitters) t.join();
  WaitUntilIdle(executor);
  EXPECT_EQ(refused, 0);
  EXPECT_EQ(ran, 2000);
}

}  // namespace
}  // namespace diagd::runtime
