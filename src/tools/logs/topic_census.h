// What one log topic holds, read once from its file without touching any
// index: the event count, the time range and the lines that are no event.
// For `diagd check` (docs/check.md), which reports each topic before a
// run ever queries it.
//
// Thread safety: a pure function (it reads the file system).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/result.h"
#include "tools/logs/log_record.h"

namespace diagd::tools::logs {

struct TopicCensus {
  std::filesystem::path file;  // the topic's file, as a query would read it
  TopicFormat format = TopicFormat::kJsonLines;
  std::uint64_t bytes = 0;
  std::size_t events = 0;
  std::optional<UnixMillis> oldest_ms;  // absent when there is no event
  std::optional<UnixMillis> newest_ms;
  std::size_t skipped_lines = 0;  // broken `.jsonl` lines, text before a `.log`'s first timestamp
};

// Reads `topic` under `root` (`<topic>.jsonl`, else `<topic>.log`, as
// LocalLogsAdapter finds it) from start to end. `reference_ms` dates the
// year-less timestamps, as a query's `now` does. NOT_FOUND for a topic with
// no file, UNAVAILABLE when it cannot be read, DEADLINE_EXCEEDED when
// `deadline` came before the end of the file.
Result<TopicCensus> CountTopicEvents(const std::filesystem::path& root, const std::string& topic,
                                     UnixMillis reference_ms, const Clock& clock,
                                     MonoTime deadline);

}  // namespace diagd::tools::logs
