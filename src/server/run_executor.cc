#include "server/run_executor.h"

#include <pthread.h>

#include <memory>
#include <utility>

namespace diagd::server {
namespace {

struct ThreadStart {
  RunExecutor* executor;
  RunExecutor::Job job;
};

}  // namespace

RunExecutor::RunExecutor(int max_running, int max_queued)
    : max_running_(max_running), max_queued_(max_queued) {}

RunExecutor::Admission RunExecutor::Submit(Job job) {
  MutexLock lock(mu_);
  if (closed_) return Admission::kClosed;
  if (running_ < max_running_) {
    // A thread that cannot be had (EAGAIN) is an overload like any other.
    return StartThread(job) ? Admission::kRunning : Admission::kOverloaded;
  }
  if (static_cast<int>(queue_.size()) >= max_queued_) return Admission::kOverloaded;
  queue_.push_back(std::move(job));
  return Admission::kQueued;
}

bool RunExecutor::StartThread(Job& job) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  pthread_attr_setstacksize(&attr, kRunStackBytes);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  auto start = std::make_unique<ThreadStart>(ThreadStart{this, std::move(job)});
  pthread_t thread;
  int created = pthread_create(&thread, &attr, &RunExecutor::ThreadMain, start.get());
  pthread_attr_destroy(&attr);
  if (created != 0) {
    job = std::move(start->job);
    return false;
  }
  start.release();  // the thread owns it now
  ++running_;
  return true;
}

void* RunExecutor::ThreadMain(void* arg) {
  std::unique_ptr<ThreadStart> start(static_cast<ThreadStart*>(arg));
  start->executor->Work(std::move(start->job));
  return nullptr;
}

// Runs the job, then the queued ones, while there are any: a thread that
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

}  // namespace diagd::server
