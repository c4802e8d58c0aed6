// Percent-decoding (RFC 3986) of URL parts: the server's path segments and
// query values, and the user and password of a Redis or MySQL URL.
//
// Thread safety: a pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace diagd {

// `text` with each `%XX` read as the byte XX (and `+` as a space when
// `plus_is_space`, as in a query string); nullopt when a `%` is not
// followed by two hex digits. The bytes are not checked to be UTF-8.
std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space = false);

}  // namespace diagd
