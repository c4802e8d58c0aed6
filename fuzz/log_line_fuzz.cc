// tools::logs::ParseLineHead and ParseJsonRecord: every line of every log
// topic, plain `.log` and `.jsonl`, whoever wrote it. The input is a log
// file: each line goes through both readers.
//
// Checks: the message offset stays within the line, the service is a view
// into it, a level is one of the normalized names; a `.jsonl` record's time
// is its `timestamp` read by ParseIso8601 and its level is normalized text.
#include <array>

#include "fuzz/fuzz_check.h"
#include "tools/logs/jsonl_record.h"
#include "tools/logs/log_line.h"

namespace {

namespace logs = diagd::tools::logs;

// 2026-11-29T12:00:00Z: "now" for formats without a year.
constexpr logs::UnixMillis kReference = 1'795'953'600'000;

bool IsNormalizedLevel(std::string_view level) {
  static constexpr std::array<std::string_view, 8> kLevels = {
      "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "CRITICAL", "SEVERE"};
  for (std::string_view name : kLevels) {
    if (level == name) return true;
  }
  return false;
}

void CheckLine(std::string_view line) {
  if (auto head = logs::ParseLineHead(line, kReference)) {
    FUZZ_CHECK(head->message_offset <= line.size());
    FUZZ_CHECK(diagd::fuzz::ViewsInto(head->service, line));
    FUZZ_CHECK(head->level.empty() || IsNormalizedLevel(head->level));
    FUZZ_CHECK(logs::NormalizeLevelWord(head->level) == head->level);
  }
  if (auto record = logs::ParseJsonRecord(line, /*with_message=*/true)) {
    FUZZ_CHECK(logs::NormalizeLevelText(record->level) == record->level);
    auto without = logs::ParseJsonRecord(line, /*with_message=*/false);
    FUZZ_CHECK(without.has_value() && without->time_ms == record->time_ms);
    FUZZ_CHECK(without->level == record->level && without->service == record->service);
    FUZZ_CHECK(without->message.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view file = diagd::fuzz::Bytes(data, size);
  while (!file.empty()) {
    std::size_t newline = file.find('\n');
    std::string_view line = file.substr(0, newline);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    CheckLine(line);
    if (newline == std::string_view::npos) break;
    file.remove_prefix(newline + 1);
  }
  return 0;
}
