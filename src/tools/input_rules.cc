#include "tools/input_rules.h"

#include <algorithm>
#include <cmath>

#include "core/json.h"
#include "core/text.h"

namespace diagd::tools {

std::string InputField(std::string_view key) { return "input." + std::string(key); }

Result<void, InputError> CheckKeys(const boost::json::object& input,
                                   std::initializer_list<std::string_view> allowed,
                                   std::initializer_list<std::string_view> required) {
  for (const auto& member : input) {
    std::string_view key = member.key();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      // The key is model-chosen text: bound it before it goes back to the model.
      return InputFailure(InputField(text::TruncateCodePoints(key, 64)), "UNKNOWN_FIELD");
    }
  }
  for (std::string_view key : required) {
    if (!input.contains(key)) return InputFailure(InputField(key), "MISSING_FIELD");
  }
  return {};
}

InputResult<std::string> ReadString(const boost::json::object& input, std::string_view key,
                                    Blank blank, std::size_t max_chars) {
  const auto* value = input.if_contains(key);
  if (value == nullptr) return InputFailure(InputField(key), "MISSING_FIELD");
  if (!value->is_string()) return InputFailure(InputField(key), "WRONG_TYPE");
  std::string_view s = value->get_string();
  if (blank == Blank::kRejected && text::IsBlank(s)) {
    return InputFailure(InputField(key), "EMPTY");
  }
  if (text::CodePointCount(s) > max_chars) return InputFailure(InputField(key), "TOO_LONG");
  return std::string(s);
}

InputResult<std::optional<std::int64_t>> ReadOptionalInteger(const boost::json::object& input,
                                                             std::string_view key) {
  const auto* value = input.if_contains(key);
  if (value == nullptr || value->is_null()) return std::optional<std::int64_t>();
  if (value->is_int64()) return std::optional<std::int64_t>(value->get_int64());
  if (value->is_uint64()) {
    auto u = value->get_uint64();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) {
      return InputFailure(InputField(key), "OUT_OF_RANGE");
    }
    return std::optional<std::int64_t>(static_cast<std::int64_t>(u));
  }
  if (value->is_double()) {
    double d = value->get_double();
    // 30.0 is an integer written as a float; 30.5 is not.
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e15) {
      return std::optional<std::int64_t>(static_cast<std::int64_t>(d));
    }
  }
  return InputFailure(InputField(key), "WRONG_TYPE");
}

}  // namespace diagd::tools
