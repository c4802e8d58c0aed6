#include "app/run_record_writer.h"

#include "runtime/fiber.h"

namespace diagd::app {

bool RunRecordWriter::Retryable(const Status& status) {
  return !status && status.error().code == ErrorCode::kUnavailable;
}

Status RunRecordWriter::Write(const RunRecord& record) {
  Status written = runs_.FinishRun(record);
  auto backoff = options_.first_backoff;
  for (int attempt = 1; attempt < options_.attempts && Retryable(written); ++attempt) {
    runtime::SleepFor(backoff);
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
    // The record a flush is writing now is not counted, nor dropped: it may
    // be stored a moment later, and must not be reported lost as well.
    std::size_t oldest = front_in_flight_ ? 1 : 0;
    if (backlog_.size() - oldest > options_.max_backlog) {
      dropped = std::move(backlog_[oldest]);
      backlog_.erase(backlog_.begin() + static_cast<std::ptrdiff_t>(oldest));
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
      front_in_flight_ = true;
    }
    Status written = runs_.FinishRun(*next);
    {
      MutexLock lock(mu_);
      front_in_flight_ = false;
      // Only flushes pop, flushes are serialized, and Keep leaves the front
      // alone while it is in flight: the front is still `next`.
      if (!Retryable(written)) backlog_.pop_front();
    }
    if (Retryable(written)) return stored;  // the store is still down: try later
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
