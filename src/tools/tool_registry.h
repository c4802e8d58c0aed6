// The registered tools: the one list that names them all. A tool is added
// by its folder (its face, tool_face.h, and its backend) and one entry
// here; wiring/ opens its backend. Everything else reaches a tool through
// the helpers below, which dispatch on the request's or result's type.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "tools/documents/documents_tool.h"
#include "tools/logs/logs_tool.h"
#include "tools/metrics/metrics_tool.h"
#include "tools/mysql/mysql_tool.h"
#include "tools/tool_face.h"
#include "tools/tool_sections.h"

namespace diagd::tools {

template <ToolFace... Faces>
struct ToolList {
  using Request = std::variant<typename Faces::Request...>;
  using Result = std::variant<typename Faces::Result...>;
  static constexpr std::array<ToolName, sizeof...(Faces)> kNames = {Faces::kName...};

  // Calls `f(Face{})` for each tool, in registration order.
  template <typename F>
  static void ForEach(F&& f) {
    (f(Faces{}), ...);
  }
};

namespace registry_internal {
template <typename List>
struct FacesOf;
template <typename... Sections>
struct FacesOf<SectionList<Sections...>> {
  using type = ToolList<typename Sections::Face...>;
};
}  // namespace registry_internal

// The faces of the registered sections (tool_sections.h holds the one
// registration line).
using RegisteredTools = registry_internal::FacesOf<RegisteredSections>::type;

inline constexpr const auto& kAllTools = RegisteredTools::kNames;

namespace registry_internal {
// The face whose Request or Result is `T`.
template <typename T, typename... Faces>
struct FaceOf;
template <typename T, typename First, typename... Rest>
struct FaceOf<T, First, Rest...> {
  using type = std::conditional_t<std::is_same_v<T, typename First::Request> ||
                                      std::is_same_v<T, typename First::Result>,
                                  First, typename FaceOf<T, Rest...>::type>;
};
template <typename T>
struct FaceOf<T> {
  using type = void;
};
template <typename T, typename List>
struct FaceIn;
template <typename T, typename... Faces>
struct FaceIn<T, ToolList<Faces...>> {
  using type = typename FaceOf<T, Faces...>::type;
};
}  // namespace registry_internal

// The face of a request or result type.
template <typename T>
using FaceFor = typename registry_internal::FaceIn<std::remove_cvref_t<T>, RegisteredTools>::type;

// `f(Face{}, body)` with the face of whatever `value` (a ToolRequest or
// ToolResult) holds.
template <typename Value, typename F>
decltype(auto) VisitFace(Value&& value, F&& f) {
  return std::visit(
      [&](auto&& body) -> decltype(auto) {
        return f(FaceFor<decltype(body)>{}, std::forward<decltype(body)>(body));
      },
      std::forward<Value>(value));
}

}  // namespace diagd::tools
