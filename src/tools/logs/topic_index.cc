#include "tools/logs/topic_index.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "core/text.h"

namespace diagd::tools::logs {
namespace {

// Enough of the file's start to notice it was replaced by other content.
constexpr std::size_t kHeadBytes = 4096;
// How many events a query walks between two looks at the clock.
constexpr std::size_t kDeadlineStride = 256;

bool Before(const TopicIndex::Entry& a, const TopicIndex::Entry& b) {
  return a.time_ms != b.time_ms ? a.time_ms < b.time_ms : a.offset < b.offset;
}

}  // namespace

struct TopicIndex::Batch {
  bool reset = false;          // replaces the whole index
  std::vector<Entry> entries;  // file order
  std::vector<Name> new_levels;
  std::vector<Name> new_services;
  std::size_t skipped = 0;
  std::optional<std::uint64_t> last_skipped;
};

// Turns scanned events into entries, interning their level and service.
class TopicIndex::BatchBuilder final : public ScanSink {
 public:
  BatchBuilder(TopicIndex& index, Batch& batch) : index_(index), batch_(batch) {}

  void OnEvent(const ScannedEvent& event) override {
    batch_.entries.push_back({event.time_ms, event.offset, event.length,
                              Intern(event.service, index_.service_ids_, index_.service_count_,
                                     batch_.new_services, kUnlistedService),
                              Intern(event.level, index_.level_ids_, index_.level_count_,
                                     batch_.new_levels, kUnlistedLevel),
                              0});
  }
  void OnExtend(std::uint32_t length) override {
    if (!batch_.entries.empty()) batch_.entries.back().length = length;
  }
  void OnSkipped(std::uint64_t offset) override {
    ++batch_.skipped;
    batch_.last_skipped = offset;
  }

 private:
  // Past the id space a name is "unlisted": queries read it from the record.
  template <typename Id>
  static Id Intern(std::string_view name, IdMap<Id>& ids, std::size_t published,
                   std::vector<Name>& added, Id unlisted) {
    if (name.empty()) return 0;
    if (auto it = ids.find(name); it != ids.end()) return it->second;
    std::size_t id = published + added.size();
    if (id >= unlisted) return unlisted;
    ids.emplace(std::string(name), static_cast<Id>(id));
    added.push_back({std::string(name), text::CaseFold(name)});
    return static_cast<Id>(id);
  }

  TopicIndex& index_;
  Batch& batch_;
};

Result<LogFile> TopicIndex::Refresh(const Clock& clock, MonoTime deadline,
                                    UnixMillis reference_ms, const std::stop_token& cancel) {
  {
    std::unique_lock lock(gate_mu_);
    auto remaining = deadline - clock.Monotonic();
    if (remaining <= MonoTime::duration::zero() ||
        !gate_cv_.wait_for(lock, remaining, [this] { return !refreshing_; })) {
      return Error::DeadlineExceeded("log index busy past the deadline");
    }
    refreshing_ = true;
  }
  auto file = RefreshLocked(clock, deadline, reference_ms, cancel);
  {
    std::lock_guard lock(gate_mu_);
    refreshing_ = false;
  }
  gate_cv_.notify_one();
  return file;
}

void TopicIndex::ResetScanState() {
  indexed_ = false;
  scanned_to_ = 0;
  resume_at_ = 0;
  head_hash_ = 0;
  head_bytes_ = 0;
  provisional_.clear();
  provisional_skipped_ = 0;
  level_ids_.clear();
  service_ids_.clear();
  level_count_ = 1;
  service_count_ = 1;
}

Result<LogFile> TopicIndex::RefreshLocked(const Clock& clock, MonoTime deadline,
                                          UnixMillis reference_ms, const std::stop_token& cancel) {
  auto file = LogFile::Open(file_);
  if (!file) return file.error();
  const FileIdentity& now = file->opened();

  bool rebuild = stale_.exchange(false) || !indexed_ || now.device != identity_.device ||
                 now.inode != identity_.inode || now.size < scanned_to_ ||
                 (now.size == scanned_to_ && now.mtime_ns != identity_.mtime_ns);
  if (!rebuild && now.size == scanned_to_) return std::move(*file);
  if (!rebuild) {
    auto head = HashPrefix(*file, head_bytes_);
    if (!head) return head.error();
    rebuild = *head != head_hash_;
  }

  Batch batch;
  if (rebuild) {
    ResetScanState();
    batch.reset = true;
  }
  BatchBuilder builder(*this, batch);
  RecordScanner scanner(format_, reference_ms, builder);
  auto scan = ForEachLine(
      *file, resume_at_, now.size, kMaxRecordBytes,
      [&] { return cancel.stop_requested() || clock.Monotonic() > deadline; },
      [&](std::string_view line, std::uint64_t offset) { scanner.Feed(line, offset); });
  if (!scan) {
    ResetScanState();  // names were interned that will not be published
    return scan.error();
  }

  // Where the next scan starts: at the last event of a `.log` file (lines
  // may still join it), else at a last line without '\n' (it may still be
  // being written), else where this scan ended.
  std::uint64_t resume = scan->unterminated_line.value_or(scan->end);
  if (format_ == TopicFormat::kPlainText && !batch.entries.empty()) {
    resume = batch.entries.back().offset;
  }
  std::vector<std::pair<UnixMillis, std::uint64_t>> provisional;
  for (auto it = batch.entries.rbegin(); it != batch.entries.rend() && it->offset >= resume; ++it) {
    provisional.emplace_back(it->time_ms, it->offset);
  }
  std::size_t provisional_skipped = batch.last_skipped && *batch.last_skipped >= resume ? 1 : 0;

  std::size_t added_levels = batch.new_levels.size();
  std::size_t added_services = batch.new_services.size();
  Publish(batch, !scan->stopped);
  level_count_ += added_levels;
  service_count_ += added_services;
  provisional_ = std::move(provisional);
  provisional_skipped_ = provisional_skipped;
  identity_ = now;
  scanned_to_ = scan->end;
  resume_at_ = resume;
  indexed_ = true;
  if (head_bytes_ < kHeadBytes) {
    head_bytes_ = static_cast<std::size_t>(std::min<std::uint64_t>(kHeadBytes, scan->end));
    auto head = HashPrefix(*file, head_bytes_);
    if (!head) {
      ResetScanState();
      return head.error();
    }
    head_hash_ = *head;
  }
  if (scan->stopped) {
    if (cancel.stop_requested()) return Error::Cancelled("log indexing stopped: the run was cancelled");
    return Error::DeadlineExceeded("log indexing stopped at the deadline");
  }
  return std::move(*file);
}

void TopicIndex::Publish(Batch& batch, bool complete) {
  // Sorting and trimming happen before the lock, so queries wait only for
  // the merge.
  if (!std::is_sorted(batch.entries.begin(), batch.entries.end(), Before)) {
    std::stable_sort(batch.entries.begin(), batch.entries.end(), Before);
  }
  if (batch.reset) batch.entries.shrink_to_fit();

  std::unique_lock lock(data_mu_);
  if (batch.reset) {
    entries_ = std::move(batch.entries);
    levels_.assign(1, Name{});
    services_.assign(1, Name{});
    skipped_lines_ = 0;
  } else {
    for (const auto& [time_ms, offset] : provisional_) {
      Entry key{time_ms, offset, 0, 0, 0, 0};
      auto it = std::lower_bound(entries_.begin(), entries_.end(), key, Before);
      if (it != entries_.end() && it->time_ms == time_ms && it->offset == offset)
        entries_.erase(it);
    }
    skipped_lines_ -= provisional_skipped_;
    std::size_t old_size = entries_.size();
    entries_.insert(entries_.end(), batch.entries.begin(), batch.entries.end());
    if (old_size > 0 && !batch.entries.empty() &&
        Before(batch.entries.front(), entries_[old_size - 1])) {
      std::inplace_merge(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(old_size),
                         entries_.end(), Before);
    }
  }
  for (auto& name : batch.new_levels) levels_.push_back(std::move(name));
  for (auto& name : batch.new_services) services_.push_back(std::move(name));
  skipped_lines_ += batch.skipped;
  complete_ = complete;
}

Result<SearchOutcome> TopicIndex::Search(const SearchRequest& request, const LogFile& file,
                                         const Clock& clock, MonoTime deadline,
                                         const std::stop_token& cancel) const {
  const LogQuery& query = *request.query;
  SearchOutcome out;
  std::shared_lock lock(data_mu_);
  if (!complete_) return Error::Unavailable("log index is still being built");
  out.indexed_events = entries_.size();
  out.skipped_lines = skipped_lines_;
  auto first = std::lower_bound(entries_.begin(), entries_.end(), request.from_ms,
                                [](const Entry& e, UnixMillis t) { return e.time_ms < t; });
  auto last = std::upper_bound(first, entries_.end(), request.to_ms,
                               [](UnixMillis t, const Entry& e) { return t < e.time_ms; });
  out.window_events = static_cast<std::size_t>(last - first);
  if (first == last) return out;

  // Level and service filters are decided once per distinct name.
  std::vector<char> level_ok(levels_.size());
  for (std::size_t i = 0; i < levels_.size(); ++i)
    level_ok[i] = LevelMatches(query, levels_[i].text);
  bool filter_services = !query.services.empty();
  std::vector<char> service_ok(filter_services ? services_.size() : 0);
  for (std::size_t i = 0; i < service_ok.size(); ++i) {
    service_ok[i] = ServiceMatches(query, services_[i].folded);
  }

  auto changed = [this] {
    stale_ = true;
    return Error::Unavailable("log file changed under its index");
  };
  MessageMatcher matcher(query);
  std::size_t steps = 0;
  // The event of `it` when it matches, read through `reader`.
  const std::optional<LogEvent> kNoMatch;
  auto examine = [&](std::vector<Entry>::const_iterator it,
                     BlockReader& reader) -> Result<std::optional<LogEvent>> {
    if (++steps % kDeadlineStride == 0) {
      if (cancel.stop_requested()) return Error::Cancelled("log query stopped: the run was cancelled");
      if (clock.Monotonic() > deadline) {
        return Error::DeadlineExceeded("log query stopped at the deadline");
      }
    }
    bool unlisted_level = it->level == kUnlistedLevel;
    bool unlisted_service = it->service == kUnlistedService;
    if (!unlisted_level && !level_ok[it->level]) return kNoMatch;
    if (filter_services && !unlisted_service && !service_ok[it->service]) return kNoMatch;

    auto bytes = reader.Read(it->offset, it->length);
    if (!bytes) return changed();
    // A JSON line without escapes holds its message verbatim: when a term is
    // missing from the whole line, the JSON need not be parsed (the common
    // case of a query that finds little).
    if (format_ == TopicFormat::kJsonLines && bytes->find('\\') == std::string_view::npos &&
        !matcher.MayMatch(*bytes)) {
      ++out.examined;
      return kNoMatch;
    }
    auto record = DecodeRecord(format_, *bytes, request.reference_ms);
    if (!record) return changed();
    ++out.examined;
    std::string_view level = unlisted_level ? record->level : levels_[it->level].text;
    std::string_view service = unlisted_service ? record->service : services_[it->service].text;
    if (unlisted_level && !LevelMatches(query, level)) return kNoMatch;
    if (filter_services && unlisted_service && !ServiceMatches(query, text::CaseFold(service))) {
      return kNoMatch;
    }
    // An event without a message has nothing a diagnosis could quote.
    if (record->message.empty() || !matcher.Matches(record->message)) return kNoMatch;
    LogEvent event;
    event.timestamp = FormatRfc3339Millis(WallTime(std::chrono::milliseconds(it->time_ms)));
    if (!level.empty()) event.level = std::string(level);
    if (!service.empty()) event.service = std::string(service);
    event.message = std::move(record->message);
    return std::optional<LogEvent>(std::move(event));
  };
  auto kept = [&](LogEvent event) {
    out.message_cut |= text::BoundCodePoints(event.message, request.max_message_chars);
    return event;
  };

  // The earliest matches, walking forward from the window's start; then the
  // newest, walking back from its end down to where the first walk stopped.
  // Each walk stops at its share, so a query that matches much reads about
  // max_events events, and one that matches little reads the window once.
  std::size_t earliest_share = EarliestShare(request.max_events);
  std::size_t newest_share = request.max_events - earliest_share;
  auto forward_end = first;
  {
    BlockReader reader(file, BlockReader::Walk::kForward);
    for (; forward_end != last && out.events.size() < earliest_share; ++forward_end) {
      auto event = examine(forward_end, reader);
      if (!event) return Unexpected(event.error());
      if (*event) out.events.push_back(kept(std::move(**event)));
    }
  }
  std::vector<LogEvent> newest;  // newest first
  BlockReader reader(file, BlockReader::Walk::kBackward);
  for (auto it = last; it != forward_end;) {
    auto event = examine(--it, reader);
    if (!event) return Unexpected(event.error());
    if (!*event) continue;
    if (newest.size() >= newest_share) {
      out.more_matched = true;
      break;
    }
    newest.push_back(kept(std::move(**event)));
  }
  std::move(newest.rbegin(), newest.rend(), std::back_inserter(out.events));
  return out;
}

std::size_t TopicIndex::EventCount() const {
  std::shared_lock lock(data_mu_);
  return entries_.size();
}

std::size_t TopicIndex::MemoryBytes() const {
  std::shared_lock lock(data_mu_);
  std::size_t bytes = entries_.capacity() * sizeof(Entry);
  for (const auto* names : {&levels_, &services_}) {
    for (const auto& name : *names)
      bytes += sizeof(Name) + name.text.capacity() + name.folded.capacity();
  }
  return bytes;
}

}  // namespace diagd::tools::logs
