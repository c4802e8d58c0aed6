#include "core/json.h"

#include "core/json_writer.h"

#include <algorithm>
#include <vector>

namespace diagd::json {
namespace {

// A parsed tree takes about as many bytes as its text; most documents here
// are a few hundred bytes to a few KiB.
constexpr std::size_t kFirstArenaBlock = 1024;

}  // namespace

Result<boost::json::value> Parse(std::string_view text) {
  boost::system::error_code ec;
  boost::json::parse_options options;  // strict defaults: no comments, no trailing commas
  boost::json::stream_parser parser({}, options);
  // The tree goes into one arena, freed with the last value that uses it,
  // instead of a malloc per key, string, object and array: a run parses its
  // model answers, tool arguments and stored fields, about 800 allocations
  // a run with a malloc each. Parsed trees are read and dropped;
  // one that is edited a lot keeps what it replaced until it goes.
  parser.reset(boost::json::make_shared_resource<boost::json::monotonic_resource>(
      std::max<std::size_t>(kFirstArenaBlock, text.size())));
  std::size_t consumed = parser.write_some(text.data(), text.size(), ec);
  if (!ec && consumed == text.size()) parser.finish(ec);
  if (ec || consumed != text.size()) {
    return Error::InvalidArgument("malformed JSON near byte " + std::to_string(consumed) + ": " +
                                  (ec ? ec.message() : std::string("trailing content")));
  }
  return parser.release();
}

namespace {

void WriteValue(const boost::json::value& value, std::string& out, bool sorted) {
  switch (value.kind()) {
    case boost::json::kind::string:
      AppendEscaped(value.get_string(), out);
      return;
    case boost::json::kind::double_:
      AppendDouble(value.get_double(), out);
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
      out.push_back('{');
      bool first = true;
      auto write_member = [&](const boost::json::key_value_pair& member) {
        if (!first) out.push_back(',');
        first = false;
        AppendEscaped(member.key(), out);
        out.push_back(':');
        WriteValue(member.value(), out, sorted);
      };
      if (sorted) {
        std::vector<const boost::json::key_value_pair*> members;
        members.reserve(object.size());
        for (const auto& member : object) members.push_back(&member);
        std::sort(members.begin(), members.end(),
                  [](const auto* a, const auto* b) { return a->key() < b->key(); });
        for (const auto* member : members) write_member(*member);
      } else {
        for (const auto& member : object) write_member(member);
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
  out.reserve(512);
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
