#include "runtime/run_executor.h"

#include <algorithm>
#include <memory>
#include <thread>
#include <utility>

#include "core/heap.h"

namespace diagd::runtime {

int RunExecutor::WorkerCount() {
  return std::max(4, 2 * static_cast<int>(std::thread::hardware_concurrency()));
}

RunExecutor::RunExecutor(int max_running, int max_queued)
    : max_running_(max_running),
      max_queued_(max_queued),
      fibers_(WorkerCount(), kRunStackBytes, kBlockingThreads) {
  // Once no run has been left for kTrimHeapAfterIdle, the heap's free pages
  // go back to the system at once. On glibc's malloc an idle server kept
  // its peak for good (118 MiB of RSS after a burst of 1,000 runs, 728 MiB
  // after 30-event runs, where with this it keeps 40; docs/performance.md,
  // "Server under load"); the binary's jemalloc keeps them on purpose, for the
  // next run (src/cli/allocator.cc). The next burst faults them in again,
  // as on a fresh server, so bursts closer together than that keep their
  // memory; under steady load this never runs.
  fibers_.OnIdle(kTrimHeapAfterIdle, [] { core::ReturnFreeHeap(); });
}

RunExecutor::Admission RunExecutor::Submit(Job job) {
  MutexLock lock(mu_);
  if (closed_) return Admission::kClosed;
  if (running_ < max_running_) {
    // A stack that cannot be had (ENOMEM) is an overload like any other.
    return StartFiber(job) ? Admission::kRunning : Admission::kOverloaded;
  }
  if (static_cast<int>(queue_.size()) >= max_queued_) return Admission::kOverloaded;
  queue_.push_back(std::move(job));
  return Admission::kQueued;
}

bool RunExecutor::StartFiber(Job& job) {
  // Shared so that a refused spawn hands the job back intact.
  auto shared = std::make_shared<Job>(std::move(job));
  if (!fibers_.Spawn([this, shared] { Work(std::move(*shared)); })) {
    job = std::move(*shared);
    return false;
  }
  ++running_;
  return true;
}

// Runs the job, then the queued ones, while there are any: a fiber that
// is already up serves the queue before it ends.
void RunExecutor::Work(Job job) {
  while (true) {
    job.run();
    job = Job{};  // release the finished run's captures before waiting
    MutexLock lock(mu_);
    if (queue_.empty()) {
      --running_;
      return;
    }
    job = std::move(queue_.front());
    queue_.pop_front();
  }
}

void RunExecutor::Close() {
  std::deque<Job> cancelled;
  {
    MutexLock lock(mu_);
    closed_ = true;
    cancelled.swap(queue_);
  }
  for (auto& job : cancelled) {
    if (job.cancel) job.cancel();
  }
}

int RunExecutor::running() const {
  MutexLock lock(mu_);
  return running_;
}

int RunExecutor::queued() const {
  MutexLock lock(mu_);
  return static_cast<int>(queue_.size());
}

}  // namespace diagd::runtime
