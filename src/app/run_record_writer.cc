#include "app/run_record_writer.h"

#include "core/fiber.h"

namespace diagd::app {

bool RunRecordWriter::Retryable(const Status& status) {
  return !status && status.error().code == ErrorCode::kUnavailable;
}

Status RunRecordWriter::Write(const RunRecord& record) {
  Status written = runs_.FinishRun(record);
  auto backoff = options_.first_backoff;
  for (int attempt = 1; attempt < options_.attempts && Retryable(written); ++attempt) {
    core::SleepFor(backoff);
    backoff *= 2;
    written = runs_.FinishRun(record);
  }
  if (Retryable(written)) Keep(record);
  return written;
}

void RunRecordWriter::Keep(RunRecord record) {
  std::optional<RunRecord> dropped;
  {
    MutexLock lock(mu_);
    backlog_.push_back(std::move(record));
    if (backlog_.size() > options_.max_backlog) {
      dropped = std::move(backlog_.front());
      backlog_.pop_front();
    }
  }
  if (dropped && dropped_) dropped_(*dropped);
}

int RunRecordWriter::FlushBacklog() {
  MutexLock flushing(flush_mu_);
  int stored = 0;
  while (true) {
    std::optional<RunRecord> next;
    {
      MutexLock lock(mu_);
      if (backlog_.empty()) return stored;
      next = backlog_.front();
    }
    Status written = runs_.FinishRun(*next);
    if (Retryable(written)) return stored;  // the store is still down: try later
    {
      MutexLock lock(mu_);
      // Only flushes pop, and flushes are serialized: the front is `next`
      // unless Keep dropped it past max_backlog meanwhile.
      if (!backlog_.empty() && backlog_.front().run_id == next->run_id) backlog_.pop_front();
    }
    if (written) {
      ++stored;
      if (stored_) stored_(*next);
    } else if (dropped_) {
      dropped_(*next);
    }
  }
}

std::size_t RunRecordWriter::backlog() const {
  MutexLock lock(mu_);
  return backlog_.size();
}

void RunRecordWriter::set_callbacks(Stored stored, Dropped dropped) {
  stored_ = std::move(stored);
  dropped_ = std::move(dropped);
}

}  // namespace diagd::app
