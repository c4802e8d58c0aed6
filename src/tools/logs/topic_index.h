// The in-memory index of one topic file: for every event its time, where its
// bytes lie, and ids of its level and service, sorted by time. A query
// binary-searches its time window and reads back only the events in it that
// pass the level and service filters; nothing else of the file is touched.
//
// The index is built on first use and kept up to date by Refresh: an
// appended file is indexed from where the last scan stopped (the last event
// is read again, since continuation lines or the rest of a half-written line
// may have joined it); a truncated, rotated or rewritten file is indexed
// anew. 24 bytes per event (kBytesPerEvent), plus the distinct level and
// service names.
//
// Thread safety: every method may be called from any thread. Refreshes are
// serialized by a gate (`refreshing_`; a waiter gives up at its deadline).
// The scan itself runs without blocking queries, which hold `data_mu_`
// shared; its result is published under `data_mu_` exclusive, in one short
// step.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "tools/logs/log_file.h"
#include "tools/logs/log_query.h"
#include "tools/logs/log_record.h"
#include "tools/tool_result.h"

namespace diagd::tools::logs {

struct SearchRequest {
  const LogQuery* query = nullptr;
  UnixMillis from_ms = 0;  // the window, both ends included
  UnixMillis to_ms = 0;
  std::size_t max_events = 30;
  std::size_t max_message_chars = 2000;
  UnixMillis reference_ms = 0;  // as for Refresh
};

struct SearchOutcome {
  // Oldest first (equal times: in file order); when more matched than
  // max_events, the earliest EarliestShare(max_events) and the newest rest.
  std::vector<LogEvent> events;
  bool more_matched = false;      // an event beyond max_events matched too
  bool message_cut = false;       // a message was cut to max_message_chars
  std::size_t window_events = 0;  // indexed events in the time window
  std::size_t examined = 0;       // of them, read back and matched against the text
  std::size_t indexed_events = 0;
  std::size_t skipped_lines = 0;  // broken or orphan lines of the file (ScanSink::OnSkipped)
};

class TopicIndex {
 public:
  struct Entry {
    UnixMillis time_ms;
    std::uint64_t offset;
    std::uint32_t length;
    std::uint16_t service;  // 0: none; kUnlistedService: look in the record
    std::uint8_t level;     // 0: none; kUnlistedLevel: look in the record
    std::uint8_t reserved;
  };
  static constexpr std::size_t kBytesPerEvent = sizeof(Entry);

  TopicIndex(std::filesystem::path file, TopicFormat format)
      : file_(std::move(file)), format_(format) {}

  // Brings the index up to date with the file. `reference_ms` dates the
  // year-less timestamps of newly read lines. NOT_FOUND: the file is gone;
  // UNAVAILABLE: it cannot be read; DEADLINE_EXCEEDED: `deadline` came first,
  // CANCELLED: `cancel` was requested first (what was read by then is kept,
  // and the next call goes on from there). Returns the file it looked at,
  // open, for the Search that follows: that reads the file the index was
  // just brought up to, even if the path is rotated meanwhile, and opens
  // and stats nothing again.
  Result<LogFile> Refresh(const Clock& clock, MonoTime deadline, UnixMillis reference_ms,
                          const std::stop_token& cancel = {});

  // The events of the window that match, in time order, read from `file`
  // (what Refresh returned): all of them, or when more than max_events
  // match, the earliest and the newest (SearchOutcome::events).
  // UNAVAILABLE when the file changed under the index, or when another
  // call's refresh left the index incomplete (a retry refreshes it);
  // DEADLINE_EXCEEDED; CANCELLED.
  Result<SearchOutcome> Search(const SearchRequest& request, const LogFile& file,
                               const Clock& clock, MonoTime deadline,
                               const std::stop_token& cancel = {}) const;

  std::size_t EventCount() const;
  // The index's own memory: entries (with vector slack) and names.
  std::size_t MemoryBytes() const;

 private:
  static constexpr std::uint16_t kUnlistedService = 0xFFFF;
  static constexpr std::uint8_t kUnlistedLevel = 0xFF;

  // Lookups by string_view without building a string.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <typename Id>
  using IdMap = std::unordered_map<std::string, Id, NameHash, std::equal_to<>>;

  // A distinct level or service name, with its case-folded form for filters.
  struct Name {
    std::string text;
    std::string folded;
  };
  // What one scan found, ready to publish.
  struct Batch;
  class BatchBuilder;

  Result<LogFile> RefreshLocked(const Clock& clock, MonoTime deadline, UnixMillis reference_ms,
                                const std::stop_token& cancel);
  void ResetScanState();
  // `complete`: the read reached the end of the file as it was.
  void Publish(Batch& batch, bool complete);

  const std::filesystem::path file_;
  const TopicFormat format_;

  // One refresher at a time; the others wait, until their deadline at most.
  // Not std::timed_mutex: GCC 12's ThreadSanitizer does not see its
  // try_lock_for (pthread_mutex_clocklock) and reports every unlock.
  std::mutex gate_mu_;
  std::condition_variable gate_cv_;
  bool refreshing_ = false;  // guarded by gate_mu_

  // Scan state: only the refresher (the one that set refreshing_) touches it.
  bool indexed_ = false;
  FileIdentity identity_;         // of the file as last scanned
  std::uint64_t scanned_to_ = 0;  // bytes read so far
  std::uint64_t resume_at_ = 0;   // where the next scan starts
  std::uint64_t head_hash_ = 0;   // of the first head_bytes_ bytes
  std::size_t head_bytes_ = 0;
  // Read past resume_at_ and so read again by the next scan: taken out
  // before its result is published.
  std::vector<std::pair<UnixMillis, std::uint64_t>> provisional_;
  std::size_t provisional_skipped_ = 0;
  IdMap<std::uint8_t> level_ids_;  // name -> id, as published (or about to be)
  IdMap<std::uint16_t> service_ids_;
  std::size_t level_count_ = 1;  // names published, "none" included
  std::size_t service_count_ = 1;

  // Set by a query that found the file disagreeing with the index (a
  // rewrite that kept the size and mtime, or the first 4 KiB): the next
  // refresh rebuilds, so the boundary's retry cures it.
  mutable std::atomic<bool> stale_{false};

  // What queries read.
  mutable std::shared_mutex data_mu_;
  std::vector<Entry> entries_;  // sorted by (time_ms, offset)
  std::vector<Name> levels_{Name{}};
  std::vector<Name> services_{Name{}};
  std::size_t skipped_lines_ = 0;
  // False while a read stopped by a deadline left the file's end unread:
  // such an index misses the newest events and must not answer.
  bool complete_ = false;
};

}  // namespace diagd::tools::logs
