#include "tools/logs/topic_census.h"

#include <algorithm>
#include <system_error>

#include "tools/logs/log_file.h"
#include "tools/logs/logs_tool.h"

namespace diagd::tools::logs {
namespace {

namespace fs = std::filesystem;

bool IsRegularFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);  // follows symlinks, as the adapter does
}

// Counts what the scanner finds; nothing is kept but the totals.
class CensusSink final : public ScanSink {
 public:
  explicit CensusSink(TopicCensus& census) : census_(census) {}

  void OnEvent(const ScannedEvent& event) override {
    ++census_.events;
    census_.oldest_ms = std::min(census_.oldest_ms.value_or(event.time_ms), event.time_ms);
    census_.newest_ms = std::max(census_.newest_ms.value_or(event.time_ms), event.time_ms);
  }
  void OnExtend(std::uint32_t) override {}
  void OnSkipped(std::uint64_t) override { ++census_.skipped_lines; }

 private:
  TopicCensus& census_;
};

}  // namespace

Result<TopicCensus> CountTopicEvents(const fs::path& root, const std::string& topic,
                                     UnixMillis reference_ms, const Clock& clock,
                                     MonoTime deadline) {
  if (!IsPlainName(topic)) return Error::NotFound("no such topic");
  TopicCensus census;
  // The adapter's order: where both files exist the `.jsonl` one is the topic.
  if (fs::path jsonl = root / (topic + ".jsonl"); IsRegularFile(jsonl)) {
    census.file = jsonl;
    census.format = TopicFormat::kJsonLines;
  } else if (fs::path log = root / (topic + ".log"); IsRegularFile(log)) {
    census.file = log;
    census.format = TopicFormat::kPlainText;
  } else {
    return Error::NotFound("no such topic");
  }
  auto file = LogFile::Open(census.file);
  if (!file) return file.error();
  const FileIdentity& identity = file->opened();
  census.bytes = identity.size;

  CensusSink sink(census);
  RecordScanner scanner(census.format, reference_ms, sink);
  auto scan = ForEachLine(
      *file, 0, identity.size, kMaxRecordBytes, [&] { return clock.Monotonic() > deadline; },
      [&](std::string_view line, std::uint64_t offset) { scanner.Feed(line, offset); });
  if (!scan) return scan.error();
  if (scan->stopped)
    return Error::DeadlineExceeded("the topic file was not read to its end in time");
  return census;
}

}  // namespace diagd::tools::logs
