#include "server/page_query.h"

#include <charconv>
#include <functional>
#include <optional>
#include <set>

#include "core/text.h"
#include "server/request_text.h"

namespace diagd::server {
namespace {

constexpr int kDefaultListLimit = 20;
constexpr int kMaxListLimit = 200;
constexpr char kCursorSeparator = '\x1f';  // never in a time or an id
constexpr std::string_view kHexDigits = "0123456789abcdef";

std::optional<app::RunCursor> DecodeRunCursor(std::string_view hex) {
  if (hex.empty() || hex.size() % 2 != 0 || hex.size() > 512) return std::nullopt;
  std::string raw;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int high = text::HexValue(hex[i]);
    int low = text::HexValue(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    raw += static_cast<char>(high * 16 + low);
  }
  std::size_t split = raw.find(kCursorSeparator);
  if (split == std::string::npos || split + 1 == raw.size()) return std::nullopt;
  std::optional<WallTime> created_at = ParseRfc3339(raw.substr(0, split));
  std::string run_id = raw.substr(split + 1);
  if (!created_at || !app::IsStorableText(run_id)) return std::nullopt;
  return app::RunCursor{*created_at, std::move(run_id)};
}

using Choices = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// The stored value of an API choice into `out`, or `refusal` when `value`
// is none of them.
std::optional<ApiError> ParseChoice(const std::optional<std::string>& value, Choices choices,
                                    const char* refusal, std::string& out) {
  for (const auto& [given, stored] : choices) {
    if (value && *value == given) {
      out = std::string(stored);
      return std::nullopt;
    }
  }
  return InvalidRequest(refusal);
}

using Parameter = std::function<std::optional<ApiError>(std::string_view key,
                                                        const std::optional<std::string>& value)>;

// Calls `parameter` with each key and its decoded value (nothing when it
// does not decode); a key given twice is refused. The first refusal ends it.
std::optional<ApiError> ForEachParameter(std::string_view query, const Parameter& parameter) {
  std::set<std::string, std::less<>> seen;
  while (!query.empty()) {
    std::string_view pair = query.substr(0, query.find('&'));
    query.remove_prefix(std::min(query.size(), pair.size() + 1));
    if (pair.empty()) continue;
    std::size_t equals = pair.find('=');
    std::string_view key = pair.substr(0, equals);
    if (!seen.insert(std::string(key)).second) {
      return InvalidRequest("query parameter " + std::string(key.substr(0, 40)) +
                            " is given more than once");
    }
    std::optional<std::string> value = DecodeQueryValue(
        equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1));
    if (std::optional<ApiError> refused = parameter(key, value)) return refused;
  }
  return std::nullopt;
}

std::optional<ApiError> ParseLimit(const std::optional<std::string>& value, int& limit) {
  int parsed = 0;
  auto [end, ec] = value ? std::from_chars(value->data(), value->data() + value->size(), parsed)
                         : std::from_chars_result{nullptr, std::errc::invalid_argument};
  if (!value || ec != std::errc() || end != value->data() + value->size() || parsed < 1 ||
      parsed > kMaxListLimit) {
    return InvalidRequest("limit must be an integer from 1 to 200");
  }
  limit = parsed;
  return std::nullopt;
}

std::optional<ApiError> ParseCursor(std::string_view name, const std::optional<std::string>& value,
                                    std::optional<app::RunCursor>& cursor) {
  if (value) cursor = DecodeRunCursor(*value);
  if (!cursor) {
    return InvalidRequest(std::string(name) + " must be the `next` of a previous page");
  }
  return std::nullopt;
}

}  // namespace

std::string EncodeRunCursor(const app::RunCursor& cursor) {
  std::string raw = FormatRfc3339Millis(cursor.created_at) + kCursorSeparator + cursor.run_id;
  std::string hex;
  hex.reserve(raw.size() * 2);
  for (unsigned char c : raw) {
    hex += kHexDigits[c >> 4];
    hex += kHexDigits[c & 0xf];
  }
  return hex;
}

std::variant<app::RunQuery, ApiError> ParseRunListQuery(std::string_view query) {
  app::RunQuery parsed;
  parsed.limit = kDefaultListLimit;
  std::optional<ApiError> error = ForEachParameter(
      query, [&](std::string_view key, const std::optional<std::string>& value)
                 -> std::optional<ApiError> {
        if (key == "limit") return ParseLimit(value, parsed.limit);
        if (key == "before") return ParseCursor("before", value, parsed.before);
        if (key == "route") {
          return ParseChoice(value,
                             {{"diagnosis", "DIAGNOSIS"}, {"knowledge", "KNOWLEDGE"},
                              {"chat", "SYSTEM_CHAT"}},
                             "route must be diagnosis, knowledge or chat", parsed.route);
        }
        if (key == "outcome") {
          return ParseChoice(value,
                             {{"DIAGNOSIS", "DIAGNOSIS"}, {"FALLBACK", "FALLBACK"},
                              {"ANSWER", "ANSWER"}},
                             "outcome must be DIAGNOSIS, FALLBACK or ANSWER",
                             parsed.release_outcome);
        }
        if (key == "status") {
          return ParseChoice(value,
                             {{"RUNNING", "RUNNING"}, {"SUCCEEDED", "SUCCEEDED"},
                              {"FAILED", "FAILED"}},
                             "status must be RUNNING, SUCCEEDED or FAILED", parsed.status);
        }
        if (key == "q") {
          if (!value || value->size() > kMaxQueryTextBytes) {
            return InvalidRequest("q must be percent-encoded UTF-8 text without NUL, of at most " +
                                  std::to_string(kMaxQueryTextBytes) + " bytes");
          }
          parsed.question_contains = std::move(*value);
          return std::nullopt;
        }
        return InvalidRequest("unknown query parameter " + std::string(key.substr(0, 40)) +
                              " (limit, before, route, outcome, status, q)");
      });
  if (error) return *error;
  return parsed;
}

std::variant<app::ConversationQuery, ApiError> ParseConversationQuery(
    std::string conversation_id, std::string_view query) {
  app::ConversationQuery parsed;
  parsed.conversation_id = std::move(conversation_id);
  parsed.limit = kDefaultListLimit;
  std::optional<ApiError> error = ForEachParameter(
      query, [&](std::string_view key, const std::optional<std::string>& value)
                 -> std::optional<ApiError> {
        if (key == "limit") return ParseLimit(value, parsed.limit);
        if (key == "after") return ParseCursor("after", value, parsed.after);
        return InvalidRequest("unknown query parameter " + std::string(key.substr(0, 40)) +
                              " (limit, after)");
      });
  if (error) return *error;
  return parsed;
}

}  // namespace diagd::server
