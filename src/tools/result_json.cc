#include "tools/result_json.h"

#include <boost/json.hpp>

namespace diagd::tools {
namespace {

// The keys every result has; true when `key` was one of them.
template <typename R>
bool WriteCommon(const R& r, std::string_view key, std::size_t items, const ResultView& view,
                 json::JsonWriter& w) {
  if (key == "evidence_status") {
    w.Key(key).String(EvidenceStatusString(r.evidence_status));
  } else if (key == "tool_call_id") {
    w.Key(key).String(r.tool_call_id);
  } else if (key == "returned_count") {
    w.Key(key).Int(static_cast<std::int64_t>(r.returned_count));
  } else if (key == "truncated") {
    w.Key(key).Bool(r.truncated || items > view.max_items);
  } else {
    return false;
  }
  return true;
}

}  // namespace

const std::vector<std::string_view>& CanonicalKeys(ToolName tool) {
  static const std::vector<std::string_view> kNone;
  const std::vector<std::string_view>* keys = &kNone;
  RegisteredTools::ForEach([&](auto face) {
    if (decltype(face)::kName == tool) keys = &decltype(face)::CanonicalKeys();
  });
  return *keys;
}

void WriteResultMembers(const ToolResult& result, const ResultView& view,
                        json::JsonWriter& writer) {
  VisitFace(result, [&](auto face, const auto& r) {
    using Face = decltype(face);
    const auto& keys = view.keys != nullptr ? *view.keys : Face::CanonicalKeys();
    for (std::string_view key : keys) {
      if (!WriteCommon(r, key, Face::Items(r), view, writer)) {
        Face::WriteField(r, key, view, writer);
      }
    }
  });
}

std::string CanonicalResultText(const ToolResult& result) {
  json::JsonWriter writer;
  writer.BeginObject();
  WriteResultMembers(result, ResultView{}, writer);
  writer.EndObject();
  return writer.Take();
}

boost::json::object RequestJson(const ToolRequest& request) {
  return VisitFace(request,
                   [](auto face, const auto& q) { return decltype(face)::RequestJson(q); });
}

}  // namespace diagd::tools
