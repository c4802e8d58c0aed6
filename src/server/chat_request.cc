#include "server/chat_request.h"

#include <boost/json.hpp>

#include "app/run_store.h"
#include "core/text.h"

namespace diagd::server {
namespace {

// Conversation ids end up in logs and URLs: printable ASCII, no spaces.
// In a URL the id is percent-encoded, which every character survives but
// "." and "..": clients resolve those as dot segments, so the id could
// never be read back (GET /api/v1/conversations/{id}).
bool IsPlainId(std::string_view id) {
  if (id.empty() || id.size() > kMaxConversationIdChars || id == "." || id == "..") return false;
  for (char c : id) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

std::variant<std::optional<std::string>, ApiError> OptionalString(const boost::json::object& body,
                                                                 std::string_view key) {
  auto it = body.find(key);
  if (it == body.end() || it->value().is_null()) return std::optional<std::string>();
  if (!it->value().is_string()) return InvalidRequest(std::string(key) + " must be a string");
  return std::optional<std::string>(std::string(it->value().as_string()));
}

}  // namespace

std::variant<app::ChatRequest, ApiError> ParseChatRequest(std::string_view body) {
  boost::system::error_code ec;
  boost::json::value parsed = boost::json::parse(body, ec);
  if (ec) return InvalidJson("the body is not valid JSON (UTF-8)");
  if (!parsed.is_object()) return InvalidRequest("the body must be a JSON object");
  const boost::json::object& object = parsed.as_object();
  for (const auto& field : object) {
    std::string_view key = field.key();
    if (key != "message" && key != "conversation_id" && key != "route") {
      return InvalidRequest("unknown field: " + text::TruncateCodePoints(key, 64));
    }
  }
  app::ChatRequest request;
  auto message = object.find("message");
  if (message == object.end() || message->value().is_null()) {
    return InvalidRequest("message is required");
  }
  if (!message->value().is_string()) return InvalidRequest("message must be a string");
  request.message = std::string(message->value().as_string());
  if (text::IsBlank(request.message)) return InvalidRequest("message is empty");
  // JSON may carry a NUL (\u0000) that no store keeps; the question is
  // refused rather than stored cut short.
  if (!app::IsStorableText(request.message)) {
    return InvalidRequest("message must be UTF-8 text without NUL (\\u0000)");
  }

  auto conversation = OptionalString(object, "conversation_id");
  if (auto* error = std::get_if<ApiError>(&conversation)) return *error;
  request.conversation_id = std::get<std::optional<std::string>>(conversation);
  if (request.conversation_id && !IsPlainId(*request.conversation_id)) {
    return InvalidRequest("conversation_id must be 1 to " +
                          std::to_string(kMaxConversationIdChars) +
                          " printable ASCII characters without spaces, not . or ..");
  }
  auto route = OptionalString(object, "route");
  if (auto* error = std::get_if<ApiError>(&route)) return *error;
  if (auto name = std::get<std::optional<std::string>>(route)) {
    request.route = app::ParseRouteName(*name);
    if (!request.route) return InvalidRequest("route must be diagnosis, knowledge or chat");
  }
  return request;
}

}  // namespace diagd::server
