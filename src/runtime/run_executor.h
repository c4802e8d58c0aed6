// Where admitted runs execute. A run spends nearly all its life waiting on
// a model, so each running run is a fiber (runtime/fiber.h) on a small stack
// of its own, and a few worker threads execute whichever fibers are not
// waiting (docs/server.md explains the choice and its measurements); past
// `max_running` runs wait in a bounded queue, and past that a run is
// refused, so the server answers 503 instead of piling up.
//
// Thread safety: all members may be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>

#include "runtime/fiber.h"
#include "core/mutex.h"

namespace diagd::runtime {

class RunExecutor {
 public:
  struct Job {
    std::function<void()> run;
    std::function<void()> cancel;  // the job will never run (shutdown)
  };
  enum class Admission { kRunning, kQueued, kOverloaded, kClosed };

  // Each run's stack: deep enough for every backend (SQLite, Xapian,
  // MariaDB, libcurl, the offline provider's regexes), far below a thread's
  // 8 MiB default. Only the pages a run touches cost memory, and a waiting
  // run gives back those below where it waits.
  static constexpr std::size_t kRunStackBytes = 512 * 1024;
  // Workers: a run that blocks on an fsync holds one for that long, so a
  // few more than the cores.
  static int WorkerCount();
  // Threads for SQL statements (RunBlocking): a slow datasource holds
  // one of these, not a worker; past them statements wait their turn, parked.
  static constexpr int kBlockingThreads = 32;
  // How long without a run before the heap's free pages go back.
  static constexpr std::chrono::seconds kTrimHeapAfterIdle{10};

  RunExecutor(int max_running, int max_queued);
  // Waits for the running runs to end: Close() first, or leave the process
  // without destroying it (runs abandoned on shutdown).
  ~RunExecutor() = default;
  RunExecutor(const RunExecutor&) = delete;
  RunExecutor& operator=(const RunExecutor&) = delete;

  Admission Submit(Job job);
  // Refuses new jobs from now on and cancels the queued ones (their
  // `cancel` runs on the calling thread).
  void Close();

  int running() const;
  int queued() const;

 private:
  void Work(Job job);
  bool StartFiber(Job& job) REQUIRES(mu_);

  const int max_running_;
  const int max_queued_;
  mutable Mutex mu_;
  int running_ GUARDED_BY(mu_) = 0;
  bool closed_ GUARDED_BY(mu_) = false;
  std::deque<Job> queue_ GUARDED_BY(mu_);
  FiberPool fibers_;  // last: destroyed (and waited for) first
};

}  // namespace diagd::runtime
