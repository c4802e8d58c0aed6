#include "server/live_run.h"

#include <utility>

namespace diagd::server {

void LiveRun::Append(app::RunEvent event) {
  std::vector<Wake> wake;
  {
    MutexLock lock(mu_);
    if (closed_ || sealing_) return;
    closed_ = event.name == "done";
    events_.push_back(std::move(event));
    wake = TakeWaiters();
  }
  for (auto& w : wake) w();
}

std::optional<std::vector<app::RunEvent>> LiveRun::CloseWithError(std::string_view code,
                                                                  std::string_view message) {
  auto events = Seal(code, message);
  if (events) Reveal();
  return events;
}

std::optional<std::vector<app::RunEvent>> LiveRun::Seal(std::string_view code,
                                                        std::string_view message) {
  MutexLock lock(mu_);
  if (closed_ || sealing_) return std::nullopt;
  std::int64_t next = events_.empty() ? 1 : events_.back().id + 1;
  sealing_ = true;
  sealed_ = {{next, "error", app::RunErrorData(code, message)}, {next + 1, "done", "{}"}};
  std::vector<app::RunEvent> all = events_;
  all.insert(all.end(), sealed_.begin(), sealed_.end());
  return all;
}

void LiveRun::Reveal() {
  std::vector<Wake> wake;
  {
    MutexLock lock(mu_);
    if (!sealing_ || closed_) return;
    for (auto& event : sealed_) events_.push_back(std::move(event));
    sealed_.clear();
    closed_ = true;
    wake = TakeWaiters();
  }
  for (auto& w : wake) w();
}

LiveRun::Slice LiveRun::EventsAfter(std::int64_t after_id) const {
  MutexLock lock(mu_);
  Slice slice;
  slice.closed = closed_;
  for (const auto& event : events_) {
    if (event.id > after_id) slice.events.push_back(event);
  }
  return slice;
}

void LiveRun::WhenEventAfter(std::int64_t after_id, Wake wake) {
  {
    MutexLock lock(mu_);
    bool ready = closed_ || (!events_.empty() && events_.back().id > after_id);
    if (!ready) {
      waiters_.push_back(std::move(wake));
      return;
    }
  }
  wake();
}

void LiveRun::WhenClosed(Wake wake) {
  {
    MutexLock lock(mu_);
    if (!closed_) {
      closing_waiters_.push_back(std::move(wake));
      return;
    }
  }
  wake();
}

bool LiveRun::closed() const {
  MutexLock lock(mu_);
  return closed_;
}

bool LiveRun::Cancel() {
  {
    MutexLock lock(mu_);
    if (closed_ || sealing_) return false;
  }
  // Outside the lock: the stop callbacks (an HTTP transfer's abort) run
  // on this thread and never call back into the run's stream.
  cancel_.request_stop();
  return true;
}

void LiveRun::set_run_id(std::string run_id) {
  MutexLock lock(mu_);
  run_id_ = std::move(run_id);
}

std::string LiveRun::run_id() const {
  MutexLock lock(mu_);
  return run_id_;
}

void LiveRun::set_route(std::string route) {
  MutexLock lock(mu_);
  route_ = std::move(route);
}

std::string LiveRun::route() const {
  MutexLock lock(mu_);
  return route_;
}

std::vector<LiveRun::Wake> LiveRun::TakeWaiters() {
  std::vector<Wake> wake = std::exchange(waiters_, {});
  if (closed_) {
    for (auto& w : closing_waiters_) wake.push_back(std::move(w));
    closing_waiters_.clear();
  }
  return wake;
}

void LiveRunRegistry::Add(const std::string& run_id, std::shared_ptr<LiveRun> run) {
  MutexLock lock(mu_);
  runs_[run_id] = std::move(run);
}

void LiveRunRegistry::Remove(const std::string& run_id) {
  MutexLock lock(mu_);
  runs_.erase(run_id);
}

std::shared_ptr<LiveRun> LiveRunRegistry::Find(const std::string& run_id) const {
  MutexLock lock(mu_);
  auto it = runs_.find(run_id);
  return it == runs_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<LiveRun>> LiveRunRegistry::All() const {
  MutexLock lock(mu_);
  std::vector<std::shared_ptr<LiveRun>> all;
  for (const auto& [id, run] : runs_) all.push_back(run);
  return all;
}

}  // namespace diagd::server
