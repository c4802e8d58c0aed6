// The body of POST /api/v1/chat (docs/server.md), read strictly:
// {"message": "...", "conversation_id": "...", "route": "..."} with
// `message` a non-empty string, the other two optional (null counts as
// absent), and nothing else. Whatever is wrong is named in the error.
#pragma once

#include <string_view>
#include <variant>

#include "app/chat_application.h"
#include "server/api_error.h"

namespace diagd::server {

// Longest conversation id a client may pass (ours are far shorter).
inline constexpr std::size_t kMaxConversationIdChars = 128;

std::variant<app::ChatRequest, ApiError> ParseChatRequest(std::string_view body);

}  // namespace diagd::server
