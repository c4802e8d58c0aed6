#include "tools/logs/jsonl_record.h"

#include <boost/json.hpp>

#include "tools/logs/log_line.h"

namespace diagd::tools::logs {
namespace {

// pino and bunyan write levels as numbers.
std::string_view LevelOfNumber(std::int64_t n) {
  static constexpr std::string_view kByTens[] = {"TRACE", "DEBUG", "INFO",
                                                 "WARN",  "ERROR", "FATAL"};
  if (n < 10 || n > 60 || n % 10 != 0) return {};
  return kByTens[n / 10 - 1];
}

std::string LevelOf(const boost::json::value& value) {
  if (value.is_string()) return NormalizeLevelText(value.get_string());
  if (value.is_int64()) return std::string(LevelOfNumber(value.get_int64()));
  if (value.is_uint64() && value.get_uint64() <= 60) {
    return std::string(LevelOfNumber(static_cast<std::int64_t>(value.get_uint64())));
  }
  return {};
}

const boost::json::string* StringMember(const boost::json::object& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || !it->value().is_string()) return nullptr;
  return &it->value().get_string();
}

}  // namespace

std::optional<JsonRecord> ParseJsonRecord(std::string_view line, bool with_message) {
  // Not json::Parse: this runs once per line of a topic, so the document
  // lives in a stack buffer (no heap for a typical line), and ill-formed
  // UTF-8 in a message does not cost the event (it is sanitized on output).
  // The error_code overload never throws.
  unsigned char buffer[4096];
  boost::json::monotonic_resource resource(buffer, sizeof buffer);
  boost::json::parse_options options;
  options.allow_invalid_utf8 = true;
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(line, ec, &resource, options);
  if (ec || !value.is_object()) return std::nullopt;
  const auto& object = value.get_object();

  const auto* timestamp = StringMember(object, "timestamp");
  if (timestamp == nullptr) return std::nullopt;
  auto time_ms = ParseIso8601(*timestamp);
  if (!time_ms) return std::nullopt;

  JsonRecord record;
  record.time_ms = *time_ms;
  if (auto it = object.find("level"); it != object.end()) record.level = LevelOf(it->value());
  if (const auto* service = StringMember(object, "service")) record.service = *service;
  if (with_message) {
    const auto* message = StringMember(object, "message");
    if (message == nullptr) message = StringMember(object, "msg");
    if (message != nullptr) record.message = *message;
  }
  return record;
}

}  // namespace diagd::tools::logs
