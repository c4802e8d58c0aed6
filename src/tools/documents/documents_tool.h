// search_documents: business input rules, schema and scope.
#pragma once

#include <boost/json/fwd.hpp>

#include "tools/input_rules.h"
#include "tools/scope.h"
#include "tools/tool_request.h"

namespace diagd::tools::documents {

inline constexpr std::size_t kMaxQueryChars = 500;

InputResult<DocumentsRequest> ParseInput(const boost::json::object& input);
// Identity: the query with white space trimmed and collapsed.
Scope ScopeOf(const DocumentsRequest& request);
boost::json::object InputSchema();
boost::json::object RequestJson(const DocumentsRequest& request);

}  // namespace diagd::tools::documents
