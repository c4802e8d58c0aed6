// JSON forms of canonical results: the full canonical JSON (CONTRACT.md
// section 2, what the canonical store keeps) and the request JSON. The model
// view is built from these by `observation.h`'s whitelist.
#pragma once

#include <boost/json/object.hpp>

#include "tools/tool_request.h"
#include "tools/tool_result.h"

namespace diagd::tools {

boost::json::object CanonicalResultJson(const ToolResult& result);
boost::json::object RequestJson(const ToolRequest& request);

}  // namespace diagd::tools
