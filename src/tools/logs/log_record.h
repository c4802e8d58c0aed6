// Events of a topic file: where each one lies (the scanner, used when
// indexing) and what it says (DecodeRecord, used when a query reads one
// back). A `.jsonl` event is one line; a `.log` event is a line that starts
// with a timestamp plus the continuation lines after it (a stack trace, a
// wrapped payload: any line that does not start with a timestamp).
//
// Thread safety: RecordScanner is a plain value (one per scan);
// DecodeRecord is a pure function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tools/logs/log_timestamp.h"

namespace diagd::tools::logs {

enum class TopicFormat {
  kJsonLines,  // <topic>.jsonl
  kPlainText,  // <topic>.log
};

// An event is at most this long: a longer `.jsonl` line is a broken line; a
// `.log` event stops growing (later continuation lines are not read back).
inline constexpr std::uint32_t kMaxRecordBytes = 1u << 20;

struct ScannedEvent {
  UnixMillis time_ms = 0;
  std::uint64_t offset = 0;  // file offset of the event's first byte
  std::uint32_t length = 0;  // bytes, up to the end of its last line (no line ending)
  std::string_view level;    // normalized; empty when none. Valid during the call only
  std::string_view service;  // empty when none. Valid during the call only
};

// What a scan finds, in file order.
class ScanSink {
 public:
  virtual ~ScanSink() = default;
  virtual void OnEvent(const ScannedEvent& event) = 0;
  // The last event reported now spans `length` bytes: a continuation line.
  virtual void OnExtend(std::uint32_t length) = 0;
  // A line that is no event and belongs to none: a broken `.jsonl` line, or
  // text before the first timestamp of a `.log` file. Blank lines are never
  // reported.
  virtual void OnSkipped(std::uint64_t offset) = 0;
};

class RecordScanner {
 public:
  // `reference_ms` dates year-less timestamps (MatchLeadingTimestamp).
  RecordScanner(TopicFormat format, UnixMillis reference_ms, ScanSink& sink)
      : format_(format), reference_ms_(reference_ms), sink_(sink) {}

  // One line at file offset `offset`, without its '\n' (a '\r' before it is
  // ignored). Lines must come in file order, starting at an event or at the
  // start of the file.
  void Feed(std::string_view line, std::uint64_t offset);

 private:
  void FeedJson(std::string_view line, std::uint64_t offset);
  void FeedPlain(std::string_view line, std::uint64_t offset);

  TopicFormat format_;
  UnixMillis reference_ms_;
  ScanSink& sink_;
  bool in_event_ = false;  // plain text: a line that continues an event joins it
  std::uint64_t event_offset_ = 0;
};

struct DecodedRecord {
  std::string level;    // normalized; empty when none
  std::string service;  // empty when none
  // The message, exactly as written but for line endings: `\r\n` inside a
  // multi-line event reads `\n`, and the final line break is dropped.
  std::string message;
};

// The event whose bytes the scanner delimited (`length` bytes at `offset`),
// read back; nothing when those bytes hold no event (the file changed).
std::optional<DecodedRecord> DecodeRecord(TopicFormat format, std::string_view bytes,
                                          UnixMillis reference_ms);

}  // namespace diagd::tools::logs
