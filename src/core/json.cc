#include "core/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

namespace diagd::json {

Result<boost::json::value> Parse(std::string_view text) {
  boost::system::error_code ec;
  boost::json::parse_options options;  // strict defaults: no comments, no trailing commas
  boost::json::stream_parser parser({}, options);
  std::size_t consumed = parser.write_some(text.data(), text.size(), ec);
  if (!ec && consumed == text.size()) parser.finish(ec);
  if (ec || consumed != text.size()) {
    return Error::InvalidArgument("malformed JSON near byte " + std::to_string(consumed) + ": " +
                                  (ec ? ec.message() : std::string("trailing content")));
  }
  return parser.release();
}

namespace {

// Doubles in their shortest round-trip form ("0.5", "42", "1e+20") rather
// than Boost's "5E-1": models and people read these, and quotes of numbers
// must match what they read. Non-finite values have no JSON form: null.
void WriteDouble(double d, std::string& out) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  out.append(buf, ec == std::errc() ? end : buf);
}

void WriteValue(const boost::json::value& value, std::string& out, bool sorted) {
  switch (value.kind()) {
    case boost::json::kind::double_:
      WriteDouble(value.get_double(), out);
      return;
    case boost::json::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : value.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        WriteValue(item, out, sorted);
      }
      out.push_back(']');
      return;
    }
    case boost::json::kind::object: {
      const auto& object = value.get_object();
      std::vector<const boost::json::key_value_pair*> members;
      members.reserve(object.size());
      for (const auto& member : object) members.push_back(&member);
      if (sorted) {
        std::sort(members.begin(), members.end(),
                  [](const auto* a, const auto* b) { return a->key() < b->key(); });
      }
      out.push_back('{');
      bool first = true;
      for (const auto* member : members) {
        if (!first) out.push_back(',');
        first = false;
        out += boost::json::serialize(member->key());
        out.push_back(':');
        WriteValue(member->value(), out, sorted);
      }
      out.push_back('}');
      return;
    }
    default:
      out += boost::json::serialize(value);
      return;
  }
}

}  // namespace

std::string Serialize(const boost::json::value& value) {
  std::string out;
  WriteValue(value, out, false);
  return out;
}

std::string Canonical(const boost::json::value& value) {
  std::string out;
  WriteValue(value, out, true);
  return out;
}

std::optional<std::string_view> GetString(const boost::json::object& object, std::string_view key) {
  const auto* found = object.if_contains(key);
  if (found == nullptr || !found->is_string()) return std::nullopt;
  return std::string_view(found->get_string());
}

const char* KindName(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "integer";
    case boost::json::kind::double_:
      return "number";
    case boost::json::kind::string:
      return "string";
    case boost::json::kind::array:
      return "array";
    case boost::json::kind::object:
      return "object";
  }
  return "value";
}

}  // namespace diagd::json
