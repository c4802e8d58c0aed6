// Group commit, for a run store over any database connection: writes that
// arrive while a group is committing wait and go into the next group, one
// transaction for all of them. The first writer to find no group in
// progress commits everything queued so far, its own write included (or a
// later group does, if an earlier leader took it; then it is done when it
// wakes). A queue of plain std types, waited on with runtime::Condition, which
// parks a run's fiber instead of holding its worker.
//
// Thread safety: Write may be called from any number of threads and fibers.
#pragma once

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "runtime/fiber.h"
#include "core/result.h"

namespace diagd::store {

template <typename Conn>
class GroupCommit {
 public:
  // One write, committed with whatever other writes are queued with it.
  struct PendingWrite {
    std::function<Status(Conn&)> apply;  // runs inside the group's transaction
    Status result = OkStatus();
    bool done = false;
  };
  using Group = std::vector<PendingWrite*>;

  // Queues `apply` and returns its result once a group holding it was
  // committed by `commit(group)`, which sets every write's result.
  template <typename Commit>
  Status Write(std::function<Status(Conn&)> apply, Commit&& commit) {
    PendingWrite mine{std::move(apply)};
    std::unique_lock lock(mu_);
    queue_.push_back(&mine);
    while (!mine.done) {
      if (committing_) {
        cv_.Wait(lock);
        continue;
      }
      committing_ = true;
      Group group;
      group.swap(queue_);
      lock.unlock();
      commit(group);
      lock.lock();
      for (PendingWrite* write : group) write->done = true;
      committing_ = false;
      cv_.NotifyAll();
    }
    return mine.result;
  }

 private:
  std::mutex mu_;
  runtime::Condition cv_;
  Group queue_;              // guarded by mu_
  bool committing_ = false;  // guarded by mu_
};

}  // namespace diagd::store
