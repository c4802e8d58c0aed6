#include "tools/documents/documents_tool.h"

#include <boost/json.hpp>

#include "core/json.h"
#include "core/text.h"

namespace diagd::tools::documents {

InputResult<DocumentsRequest> ParseInput(const boost::json::object& input) {
  if (auto keys = CheckKeys(input, {"query"}, {"query"}); !keys) return Unexpected(keys.error());
  auto query = ReadString(input, "query", Blank::kRejected, kMaxQueryChars);
  if (!query) return Unexpected(query.error());
  return DocumentsRequest{std::move(*query)};
}

Scope ScopeOf(const DocumentsRequest& request) {
  std::string query = text::CollapseWhitespace(request.query);
  boost::json::array identity{"search_documents", query};
  return {json::Canonical(identity), text::TruncateCodePoints(query, 80)};
}

boost::json::object InputSchema() {
  return {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"query"}},
      {"properties",
       {{"query",
         {{"type", "string"}, {"minLength", 1}, {"maxLength", kMaxQueryChars}}}}},
  };
}

boost::json::object RequestJson(const DocumentsRequest& request) {
  return {{"query", request.query}};
}

}  // namespace diagd::tools::documents
