// Strict reading of a tool's business `input` object: the shared rules
// behind every tool's validation, so each rule and its `reason` name has one
// home. A failure names the field (`input.query`, `input.params[2]`) and a
// stable reason; it never echoes the value.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace diagd::tools {

// What the model sees in an INVALID_TOOL_INPUT observation.
struct InputError {
  std::string field;   // "input.sql"
  std::string reason;  // "MISSING_FIELD", "UNKNOWN_FIELD", "WRONG_TYPE", "EMPTY",
                       // "TOO_LONG", "OUT_OF_RANGE", "UNKNOWN_TOPIC", "INVALID_NAME",
                       // "UNKNOWN_DATASOURCE", "PARAM_COUNT_MISMATCH", or a SQL
                       // rejection such as "NOT_READ_ONLY" (docs/sql-safety.md)
};

template <typename T>
using InputResult = Result<T, InputError>;

inline Unexpected<InputError> InputFailure(std::string field, std::string reason) {
  return Unexpected(InputError{std::move(field), std::move(reason)});
}

// Every key of `input` is one of `allowed` and every key of `required` is
// present.
Result<void, InputError> CheckKeys(const boost::json::object& input,
                                   std::initializer_list<std::string_view> allowed,
                                   std::initializer_list<std::string_view> required);

enum class Blank { kAllowed, kRejected };

// A required string of at most `max_chars` code points, returned as given.
// With Blank::kRejected, an empty or all-white-space string is EMPTY.
InputResult<std::string> ReadString(const boost::json::object& input, std::string_view key,
                                    Blank blank, std::size_t max_chars);

// An optional integer (a JSON integer, or a float with no fractional part).
InputResult<std::optional<std::int64_t>> ReadOptionalInteger(const boost::json::object& input,
                                                             std::string_view key);

// "input." + key
std::string InputField(std::string_view key);

}  // namespace diagd::tools
