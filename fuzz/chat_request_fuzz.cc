// server::ParseChatRequest: the body of POST /api/v1/chat, from any client.
//
// Checks: an accepted request has a non-blank message that every run store
// keeps whole (UTF-8 without NUL), a conversation id of 1 to
// kMaxConversationIdChars printable ASCII bytes, and written back as
// JSON it parses to the same request. A refusal is a 400 INVALID_JSON or
// INVALID_REQUEST whose answer body is valid JSON (and so valid UTF-8).
#include <boost/json.hpp>
#include <variant>

#include "app/run_store.h"
#include "core/json.h"
#include "core/text.h"
#include "fuzz/fuzz_check.h"
#include "server/chat_request.h"

namespace {

using diagd::app::ChatRequest;
using diagd::app::Route;

const char* RouteName(Route route) {
  switch (route) {
    case Route::kDiagnosis:
      return "diagnosis";
    case Route::kKnowledge:
      return "knowledge";
    case Route::kSystemChat:
      return "chat";
  }
  return "";
}

std::string Rewrite(const ChatRequest& request) {
  boost::json::object body{{"message", request.message}};
  if (request.conversation_id) body["conversation_id"] = *request.conversation_id;
  if (request.route) body["route"] = RouteName(*request.route);
  return diagd::json::Serialize(body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = diagd::server::ParseChatRequest(diagd::fuzz::Bytes(data, size));
  if (auto* error = std::get_if<diagd::server::ApiError>(&parsed)) {
    FUZZ_CHECK(error->status == 400);
    FUZZ_CHECK(error->code == "INVALID_JSON" || error->code == "INVALID_REQUEST");
    FUZZ_CHECK(diagd::json::Parse(diagd::server::ApiErrorJson(*error)).has_value());
    return 0;
  }
  const ChatRequest& request = std::get<ChatRequest>(parsed);
  FUZZ_CHECK(!diagd::text::IsBlank(request.message));
  FUZZ_CHECK(diagd::app::IsStorableText(request.message));  // no NUL: kept whole by every store
  if (request.conversation_id) {
    const std::string& id = *request.conversation_id;
    FUZZ_CHECK(!id.empty() && id.size() <= diagd::server::kMaxConversationIdChars);
    for (char c : id) FUZZ_CHECK(c > ' ' && c <= '~');
  }

  auto again = diagd::server::ParseChatRequest(Rewrite(request));
  const auto* same = std::get_if<ChatRequest>(&again);
  FUZZ_CHECK(same != nullptr);
  FUZZ_CHECK(same->message == request.message);
  FUZZ_CHECK(same->conversation_id == request.conversation_id);
  FUZZ_CHECK(same->route == request.route);
  return 0;
}
