// Where admitted runs execute. A run spends nearly all its life blocked on
// a model or a tool, so each running run gets a thread of its own with a
// small stack (docs/server.md explains the choice and its measurements);
// past `max_running` runs wait in a bounded queue, and past that a run is
// refused, so the server answers 503 instead of piling up.
//
// Thread safety: all members may be called from any thread.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>

#include "core/mutex.h"

namespace diagd::server {

class RunExecutor {
 public:
  struct Job {
    std::function<void()> run;
    std::function<void()> cancel;  // the job will never run (shutdown)
  };
  enum class Admission { kRunning, kQueued, kOverloaded, kClosed };

  // Each run's thread stack: deep enough for every backend (SQLite, Xapian,
  // MariaDB, libcurl, the offline provider's regexes), far below the 8 MiB
  // default. Only the pages a run touches cost memory.
  static constexpr std::size_t kRunStackBytes = 512 * 1024;

  RunExecutor(int max_running, int max_queued);
  // Waits for nothing: Close() and wait for `running() == 0` first, or leave
  // the process without destroying it (runs abandoned on shutdown).
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
  static void* ThreadMain(void* self_and_job);
  void Work(Job job);
  bool StartThread(Job& job) REQUIRES(mu_);

  const int max_running_;
  const int max_queued_;
  mutable Mutex mu_;
  int running_ GUARDED_BY(mu_) = 0;
  bool closed_ GUARDED_BY(mu_) = false;
  std::deque<Job> queue_ GUARDED_BY(mu_);
};

}  // namespace diagd::server
