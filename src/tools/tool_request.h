// The business requests of the registered tools, after validation: what an
// adapter executes and what scope normalization reads. Built only by
// `ToolCatalog` (from a model's envelope input) or directly by product code
// that calls a tool without the envelope (the knowledge route).
#pragma once

#include "tools/tool_registry.h"

namespace diagd::tools {

using ToolRequest = RegisteredTools::Request;

ToolName ToolOf(const ToolRequest& request);

}  // namespace diagd::tools
