// JSON helpers on Boost.JSON, the one JSON library of the tree. Include this
// header only from .cc files: other headers expose plain types.
//
// Parsing never throws: a malformed document is an `INVALID_ARGUMENT` error
// whose message names the position but never echoes the input.
//
// Thread safety: pure functions.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace diagd::json {

// Parses exactly one JSON document (no comments, no trailing commas, no
// trailing content, valid UTF-8).
Result<boost::json::value> Parse(std::string_view text);

// Compact serialization.
std::string Serialize(const boost::json::value& value);

// Compact serialization with object keys sorted recursively: two values that
// are equal as JSON give the same text (used for scope identity).
std::string Canonical(const boost::json::value& value);

// The member `key` of `object` when present and a string.
std::optional<std::string_view> GetString(const boost::json::object& object, std::string_view key);

// A JSON value's kind for error messages: "string", "integer", "object"...
const char* KindName(const boost::json::value& value);

}  // namespace diagd::json
