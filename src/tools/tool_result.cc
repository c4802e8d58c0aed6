#include "tools/tool_result.h"

#include <type_traits>

#include "core/text.h"

namespace diagd::tools {

std::optional<ToolName> ParseToolName(std::string_view name) {
  for (ToolName tool : kAllTools) {
    if (name == tool.view()) return tool;
  }
  return std::nullopt;
}

ToolName ToolOf(const ToolRequest& request) {
  return VisitFace(request, [](auto face, const auto&) { return decltype(face)::kName; });
}

ToolName ToolOf(const ToolResult& result) {
  return VisitFace(result, [](auto face, const auto&) { return decltype(face)::kName; });
}

EvidenceStatus EvidenceStatusOf(const ToolResult& result) {
  return std::visit([](const auto& r) { return r.evidence_status; }, result);
}

const std::string& ToolCallIdOf(const ToolResult& result) {
  return std::visit([](const auto& r) -> const std::string& { return r.tool_call_id; }, result);
}

std::size_t ReturnedCountOf(const ToolResult& result) {
  return std::visit([](const auto& r) { return r.returned_count; }, result);
}

bool TruncatedOf(const ToolResult& result) {
  return std::visit([](const auto& r) { return r.truncated; }, result);
}

void Canonicalize(ToolResult& result, const ResultLimits& limits) {
  VisitFace(result, [&](auto face, auto& r) { decltype(face)::Canonicalize(r, limits); });
}

bool BindToRequest(ToolResult& result, const ToolRequest& request,
                   const std::string& tool_call_id) {
  return std::visit(
      [&](auto& r, const auto& q) {
        using Face = FaceFor<decltype(r)>;
        if constexpr (std::is_same_v<Face, FaceFor<decltype(q)>>) {
          Face::Bind(r, q);
          r.tool_call_id = tool_call_id;
          return true;
        } else {
          return false;
        }
      },
      result, request);
}

ToolResult ErrorResultFor(const ToolRequest& request, const std::string& tool_call_id) {
  ToolResult result = VisitFace(request, [](auto face, const auto&) -> ToolResult {
    return typename decltype(face)::Result{};
  });
  BindToRequest(result, request, tool_call_id);
  std::visit([](auto& r) { r.evidence_status = EvidenceStatus::kError; }, result);
  return result;
}

namespace face {

void BoundText(std::string& s, std::size_t max_chars, bool& truncated) {
  if (text::BoundCodePoints(s, max_chars)) truncated = true;
}

void AppendNames(std::string& description, const char* label,
                 const std::vector<std::string>& names) {
  if (names.empty()) return;
  description += label;
  for (std::size_t i = 0; i < names.size(); ++i) description += (i ? ", " : "") + names[i];
}

void WriteOptional(const std::optional<std::string>& s, json::JsonWriter& w) {
  if (s) {
    w.String(*s);
  } else {
    w.Null();
  }
}

}  // namespace face
}  // namespace diagd::tools
