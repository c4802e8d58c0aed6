#include "server/remote_run_feed.h"

#include <utility>

namespace diagd::server {

RemoteRunFeed::RemoteRunFeed(RemoteRunFeeds& feeds, std::string run_id)
    : feeds_(feeds), run_id_(std::move(run_id)) {
  feeds_.Add(run_id_, this);
}

RemoteRunFeed::~RemoteRunFeed() { feeds_.Remove(run_id_, this); }

std::vector<app::RunEvent> RemoteRunFeed::Take() {
  MutexLock lock(mu_);
  nudged_ = false;
  return std::exchange(pending_, {});
}

void RemoteRunFeed::WhenWoken(Wake wake) {
  MutexLock lock(mu_);
  wake_ = std::move(wake);
  if (!pending_.empty() || nudged_) WakeLocked();
}

void RemoteRunFeed::Push(const app::RunEvent& event) {
  MutexLock lock(mu_);
  pending_.push_back(event);
  WakeLocked();
}

void RemoteRunFeed::Nudge() {
  MutexLock lock(mu_);
  nudged_ = true;
  WakeLocked();
}

void RemoteRunFeed::WakeLocked() {
  if (wake_) std::exchange(wake_, nullptr)();
}

void RemoteRunFeeds::Deliver(const std::string& run_id, const app::RunEvent& event) {
  MutexLock lock(mu_);
  auto found = feeds_.find(run_id);
  if (found == feeds_.end()) return;  // nobody here follows that run
  for (RemoteRunFeed* feed : found->second) feed->Push(event);
}

void RemoteRunFeeds::NudgeAll() {
  MutexLock lock(mu_);
  for (auto& [run_id, feeds] : feeds_) {
    for (RemoteRunFeed* feed : feeds) feed->Nudge();
  }
}

void RemoteRunFeeds::Add(const std::string& run_id, RemoteRunFeed* feed) {
  MutexLock lock(mu_);
  feeds_[run_id].insert(feed);
}

void RemoteRunFeeds::Remove(const std::string& run_id, RemoteRunFeed* feed) {
  MutexLock lock(mu_);
  auto found = feeds_.find(run_id);
  if (found == feeds_.end()) return;
  found->second.erase(feed);
  if (found->second.empty()) feeds_.erase(found);
}

}  // namespace diagd::server
