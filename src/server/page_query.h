// The query strings of the paged reads (docs/server.md): GET /api/v1/runs takes `limit`, `before` (the opaque
// cursor of a page's `next`), `route`, `outcome`, `status` and `q`; GET
// /api/v1/conversations/{id} takes `limit` and `after`, its own page's
// `next`. Values are percent-decoded (request_text.h) and checked. A bad
// value is a 400 INVALID_REQUEST naming the parameter; an unknown or
// repeated one too.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "app/run_store.h"
#include "server/api_error.h"

namespace diagd::server {

// `q` longer than this many bytes is refused (a question is a chat message,
// bounded by max_body_bytes; a search text needs far less).
inline constexpr std::size_t kMaxQueryTextBytes = 1000;

std::variant<app::RunQuery, ApiError> ParseRunListQuery(std::string_view query);

std::variant<app::ConversationQuery, ApiError> ParseConversationQuery(
    std::string conversation_id, std::string_view query);

// The cursor of a page's `next`: opaque to clients (hex of the last run's
// creation time and id), read back by the parsers above.
std::string EncodeRunCursor(const app::RunCursor& cursor);

}  // namespace diagd::server
