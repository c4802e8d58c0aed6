// The checks of a request head that Beast's parser leaves to its user
// (RFC 9112): a body whose length could be read two ways (a
// Transfer-Encoding other than one `chunked`, or one with Content-Length),
// folded header lines, and a missing, repeated or malformed Host. A request
// that fails one is answered and its connection closed: the bytes after it
// cannot be told from a next request. Internal to server/ (http_session.cc).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "server/api_error.h"
#include "server/server_impl.h"

namespace diagd::server {

// The length of the request head at the front of `bytes`, through the empty
// line that ends it; npos while it is incomplete. `searched` bytes were
// searched before (none of a head's end among them), so a head arriving in
// pieces is searched once.
std::size_t RequestHeadLength(std::string_view bytes, std::size_t searched = 0);

// Why a request must be refused, from its raw head (`raw_head`, as
// RequestHeadLength measured it) and its fields as Beast parsed them; nothing
// when it may be served. 400 INVALID_REQUEST, or 501 NOT_IMPLEMENTED for a
// chunked body under another transfer coding.
std::optional<ApiError> FramingError(std::string_view raw_head,
                                     const http::request_header<>& header);

// Whether a read failed because the client sent bytes that are no HTTP
// request (to be answered 400), rather than going away or falling silent
// (closed without an answer). Over-limit errors are neither: callers answer
// them first.
bool IsMalformed(const beast::error_code& error);

}  // namespace diagd::server
