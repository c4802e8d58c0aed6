// Writes finished runs' records so that no released run is lost to a store
// that fails for a while (another process holding SQLite's write lock past
// its busy timeout, a full disk, a database server restarting).
//
// A write the store refuses with UNAVAILABLE is tried again with doubling
// backoff, a few times (Options); a record it still refuses is kept in a
// bounded backlog, and FlushBacklog writes the kept records again, oldest
// first, until the store takes them. Any other refusal (the run was ended
// as lost by another instance, an invalid record) is final: retrying cannot
// help.
//
// Thread safety: safe for concurrent use. Write may park a run's fiber
// (runtime::SleepFor) while it backs off.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>

#include "app/run_store.h"
#include "core/mutex.h"

namespace diagd::app {

class RunRecordWriter {
 public:
  struct Options {
    int attempts = 5;  // in all, the first included
    std::chrono::milliseconds first_backoff{250};
    // Records kept past that: the oldest is dropped (and said so).
    std::size_t max_backlog = 1000;
  };
  // Called for each record the backlog wrote late, and for each it dropped.
  using Stored = std::function<void(const RunRecord&)>;
  using Dropped = std::function<void(const RunRecord&)>;

  explicit RunRecordWriter(RunStore& runs) : RunRecordWriter(runs, Options{}) {}
  RunRecordWriter(RunStore& runs, Options options) : runs_(runs), options_(options) {}

  // Writes the finished run. OK once stored; otherwise the last refusal,
  // and when it was UNAVAILABLE the record is kept for FlushBacklog.
  Status Write(const RunRecord& record) EXCLUDES(mu_);

  // Writes kept records, oldest first, until the store refuses one; a
  // final refusal drops that record. Returns how many were stored. Call
  // from a plain thread (the server's store upkeep), not a run's fiber.
  int FlushBacklog() EXCLUDES(mu_);

  std::size_t backlog() const EXCLUDES(mu_);
  // Set before the first Write.
  void set_callbacks(Stored stored, Dropped dropped);

 private:
  static bool Retryable(const Status& status);
  void Keep(RunRecord record) EXCLUDES(mu_);

  RunStore& runs_;
  const Options options_;
  Stored stored_;
  Dropped dropped_;
  mutable Mutex mu_;
  std::deque<RunRecord> backlog_ GUARDED_BY(mu_);
  bool front_in_flight_ GUARDED_BY(mu_) = false;  // a flush is writing backlog_.front()
  Mutex flush_mu_;  // one flush at a time keeps the backlog's order
};

}  // namespace diagd::app
