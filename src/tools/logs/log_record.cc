#include "tools/logs/log_record.h"

#include <algorithm>

#include "tools/logs/jsonl_record.h"
#include "tools/logs/log_line.h"

namespace diagd::tools::logs {
namespace {

std::string_view WithoutCarriageReturn(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool IsBlankLine(std::string_view line) {
  return line.find_first_not_of(" \t\r\f\v") == std::string_view::npos;
}

// `text` with every "\r\n" read as "\n" and the line breaks at either end
// dropped (an event whose first line ends at its level starts on the next).
std::string NormalizeLineEndings(std::string_view text) {
  auto is_break = [](char c) { return c == '\n' || c == '\r'; };
  while (!text.empty() && is_break(text.back())) text.remove_suffix(1);
  while (!text.empty() && is_break(text.front())) text.remove_prefix(1);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out.push_back(text[i]);
  }
  return out;
}

}  // namespace

void RecordScanner::Feed(std::string_view line, std::uint64_t offset) {
  line = WithoutCarriageReturn(line);
  if (format_ == TopicFormat::kJsonLines) {
    FeedJson(line, offset);
  } else {
    FeedPlain(line, offset);
  }
}

void RecordScanner::FeedJson(std::string_view line, std::uint64_t offset) {
  if (IsBlankLine(line)) return;
  std::optional<JsonRecord> record;
  if (line.size() <= kMaxRecordBytes) record = ParseJsonRecord(line, /*with_message=*/false);
  if (!record) {
    sink_.OnSkipped(offset);
    return;
  }
  sink_.OnEvent({record->time_ms, offset, static_cast<std::uint32_t>(line.size()), record->level,
                 record->service});
}

void RecordScanner::FeedPlain(std::string_view line, std::uint64_t offset) {
  if (auto head = ParseLineHead(line, reference_ms_)) {
    in_event_ = true;
    event_offset_ = offset;
    auto length = static_cast<std::uint32_t>(std::min<std::size_t>(line.size(), kMaxRecordBytes));
    sink_.OnEvent({head->time_ms, offset, length, head->level, head->service});
    return;
  }
  if (IsBlankLine(line)) return;  // joins the event only if more text follows
  if (!in_event_) {
    sink_.OnSkipped(offset);
    return;
  }
  std::uint64_t length = offset + line.size() - event_offset_;
  if (length <= kMaxRecordBytes) sink_.OnExtend(static_cast<std::uint32_t>(length));
}

std::optional<DecodedRecord> DecodeRecord(TopicFormat format, std::string_view bytes,
                                          UnixMillis reference_ms) {
  DecodedRecord decoded;
  if (format == TopicFormat::kJsonLines) {
    auto record = ParseJsonRecord(WithoutCarriageReturn(bytes), /*with_message=*/true);
    if (!record) return std::nullopt;
    decoded.level = std::move(record->level);
    decoded.service = std::move(record->service);
    decoded.message = std::move(record->message);
    return decoded;
  }
  std::size_t newline = bytes.find('\n');
  std::string_view first = WithoutCarriageReturn(bytes.substr(0, newline));
  auto head = ParseLineHead(first, reference_ms);
  if (!head) return std::nullopt;
  decoded.level = std::string(head->level);
  decoded.service = std::string(head->service);
  if (newline == std::string_view::npos) {
    decoded.message = std::string(first.substr(head->message_offset));
  } else {
    // The message runs from its start on the first line to the end of the
    // event; offsets on the first line are the same with or without '\r'.
    decoded.message = NormalizeLineEndings(bytes.substr(head->message_offset));
  }
  return decoded;
}

}  // namespace diagd::tools::logs
