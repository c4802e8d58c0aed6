// Text a client puts in a request's target: the percent-decoded path
// segments (ids) and query values. Each is held to the run stores' text
// rule (app::IsStorableText) here, where it comes in, so both stores see
// only text they keep and look up exactly; what fails it names nothing
// that can exist.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace diagd::server {

// A path segment with its %XX escapes decoded (RFC 3986: `+` is itself);
// nothing when an escape is malformed or the text is not storable.
std::optional<std::string> DecodePathSegment(std::string_view segment);

// A query value with its %XX escapes decoded and `+` read as a space (HTML
// forms); nothing when an escape is malformed or the text is not storable.
std::optional<std::string> DecodeQueryValue(std::string_view value);

}  // namespace diagd::server
