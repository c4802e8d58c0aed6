// JSON forms of canonical results. A view of a result is a list of its keys
// (ResultView, tool_face.h): the canonical view (docs/specs/tool-contracts.md, what
// the canonical store keeps) lists them all; the model observation lists only its
// whitelist (observation.h). Both are written by the same per-key writers, so a
// key absent from a list cannot appear in that view.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_writer.h"
#include "tools/tool_request.h"
#include "tools/tool_result.h"

namespace diagd::tools {

// Every key of a canonical result of `tool`, in contract order (empty for
// a name no tool has).
const std::vector<std::string_view>& CanonicalKeys(ToolName tool);

// Writes the view's members (without braces) into the open object of `writer`.
void WriteResultMembers(const ToolResult& result, const ResultView& view,
                        json::JsonWriter& writer);

// The canonical JSON text of `result`.
std::string CanonicalResultText(const ToolResult& result);

boost::json::object RequestJson(const ToolRequest& request);

}  // namespace diagd::tools
