#include "server/run_list_query.h"

#include <charconv>
#include <optional>
#include <set>

#include "core/text.h"

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
  if (!created_at) return std::nullopt;
  return app::RunCursor{*created_at, raw.substr(split + 1)};
}

// The stored value of an API choice, or nothing when it is none of them.
std::optional<std::string> Choice(std::string_view value,
                                  std::initializer_list<std::pair<std::string_view,
                                                                  std::string_view>> choices) {
  for (const auto& [given, stored] : choices) {
    if (value == given) return std::string(stored);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      int high = text::HexValue(text[i + 1]);
      int low = text::HexValue(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

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
  std::set<std::string, std::less<>> seen;
  while (!query.empty()) {
    std::string_view pair = query.substr(0, query.find('&'));
    query.remove_prefix(std::min(query.size(), pair.size() + 1));
    if (pair.empty()) continue;
    std::size_t equals = pair.find('=');
    std::string_view key = pair.substr(0, equals);
    std::optional<std::string> value =
        PercentDecode(equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1));
    if (!seen.insert(std::string(key)).second) {
      return InvalidRequest("query parameter " + std::string(key.substr(0, 40)) +
                            " is given more than once");
    }
    if (key == "limit") {
      int limit = 0;
      auto [end, ec] = value ? std::from_chars(value->data(), value->data() + value->size(), limit)
                             : std::from_chars_result{nullptr, std::errc::invalid_argument};
      if (!value || ec != std::errc() || end != value->data() + value->size() || limit < 1 ||
          limit > kMaxListLimit) {
        return InvalidRequest("limit must be an integer from 1 to 200");
      }
      parsed.limit = limit;
    } else if (key == "before") {
      std::optional<app::RunCursor> cursor;
      if (value) cursor = DecodeRunCursor(*value);
      if (!cursor) return InvalidRequest("before must be the `next` of a previous page");
      parsed.before = std::move(*cursor);
    } else if (key == "route") {
      auto route = value ? Choice(*value, {{"diagnosis", "DIAGNOSIS"},
                                           {"knowledge", "KNOWLEDGE"},
                                           {"chat", "SYSTEM_CHAT"}})
                         : std::nullopt;
      if (!route) return InvalidRequest("route must be diagnosis, knowledge or chat");
      parsed.route = std::move(*route);
    } else if (key == "outcome") {
      auto outcome = value ? Choice(*value, {{"DIAGNOSIS", "DIAGNOSIS"},
                                             {"FALLBACK", "FALLBACK"},
                                             {"ANSWER", "ANSWER"}})
                           : std::nullopt;
      if (!outcome) return InvalidRequest("outcome must be DIAGNOSIS, FALLBACK or ANSWER");
      parsed.release_outcome = std::move(*outcome);
    } else if (key == "status") {
      auto status = value ? Choice(*value, {{"RUNNING", "RUNNING"},
                                            {"SUCCEEDED", "SUCCEEDED"},
                                            {"FAILED", "FAILED"}})
                          : std::nullopt;
      if (!status) return InvalidRequest("status must be RUNNING, SUCCEEDED or FAILED");
      parsed.status = std::move(*status);
    } else if (key == "q") {
      if (!value || value->size() > kMaxQueryTextBytes) {
        return InvalidRequest("q must be percent-encoded text of at most " +
                              std::to_string(kMaxQueryTextBytes) + " bytes");
      }
      parsed.question_contains = std::move(*value);
    } else {
      return InvalidRequest("unknown query parameter " + std::string(key.substr(0, 40)) +
                            " (limit, before, route, outcome, status, q)");
    }
  }
  return parsed;
}

}  // namespace diagd::server
