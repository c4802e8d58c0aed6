#include "core/json.h"

#include <algorithm>
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

std::string Serialize(const boost::json::value& value) { return boost::json::serialize(value); }

namespace {

void WriteCanonical(const boost::json::value& value, std::string& out) {
  if (!value.is_object()) {
    if (!value.is_array()) {
      out += boost::json::serialize(value);
      return;
    }
    out.push_back('[');
    bool first = true;
    for (const auto& item : value.get_array()) {
      if (!first) out.push_back(',');
      first = false;
      WriteCanonical(item, out);
    }
    out.push_back(']');
    return;
  }
  const auto& object = value.get_object();
  std::vector<const boost::json::key_value_pair*> members;
  members.reserve(object.size());
  for (const auto& member : object) members.push_back(&member);
  std::sort(members.begin(), members.end(),
            [](const auto* a, const auto* b) { return a->key() < b->key(); });
  out.push_back('{');
  bool first = true;
  for (const auto* member : members) {
    if (!first) out.push_back(',');
    first = false;
    out += boost::json::serialize(boost::json::value(member->key()));
    out.push_back(':');
    WriteCanonical(member->value(), out);
  }
  out.push_back('}');
}

}  // namespace

std::string Canonical(const boost::json::value& value) {
  std::string out;
  WriteCanonical(value, out);
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
