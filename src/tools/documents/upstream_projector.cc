#include "tools/documents/upstream_projector.h"

#include <boost/json.hpp>

#include "core/json.h"
#include "core/text.h"

namespace diagd::tools::documents {
namespace {

std::string StringOr(const boost::json::object& object, std::string_view key,
                     std::string_view fallback = {}) {
  auto value = json::GetString(object, key);
  return std::string(value ? *value : fallback);
}

}  // namespace

std::string CutExcerpt(const std::string& content, const std::string& query,
                       std::size_t max_chars) {
  std::string lowered = text::AsciiLower(content);
  std::size_t hit = std::string::npos;
  std::string terms = text::CollapseWhitespace(query);
  for (std::size_t start = 0; start < terms.size();) {
    std::size_t end = terms.find(' ', start);
    if (end == std::string::npos) end = terms.size();
    std::string term = text::AsciiLower(terms.substr(start, end - start));
    std::size_t found = term.empty() ? std::string::npos : lowered.find(term);
    if (found != std::string::npos && (hit == std::string::npos || found < hit)) hit = found;
    start = end + 1;
  }
  std::size_t begin = 0;
  if (hit != std::string::npos) {
    // Step back about a third of the window (in code points) so the hit sits
    // near the middle-left, where a reader looks first.
    std::size_t back = max_chars / 3;
    begin = hit;
    while (begin > 0 && back > 0) {
      begin = text::PreviousCodePoint(content, begin);
      --back;
    }
  }
  return text::TruncateCodePoints(std::string_view(content).substr(begin), max_chars);
}

Result<DocumentsResult> ProjectUpstream(const boost::json::value& upstream,
                                        const std::string& query,
                                        std::size_t max_excerpt_chars) {
  const auto* object = upstream.if_object();
  if (object == nullptr) return Error::InvalidArgument("upstream answer is not a JSON object");
  const auto* documents = object->if_contains("documents");
  if (documents == nullptr || !documents->is_array()) {
    return Error::InvalidArgument("upstream answer has no `documents` array");
  }
  DocumentsResult result;
  result.query = query;
  for (const char* key : {"relevance_level", "relevanceLevel"}) {
    if (auto level = json::GetString(*object, key)) {
      result.relevance_level = ParseRelevanceLevel(*level);
      if (result.relevance_level) break;
    }
  }
  for (const auto& item : documents->get_array()) {
    const auto* doc = item.if_object();
    if (doc == nullptr) continue;
    auto id = json::GetString(*doc, "document_id");
    if (!id || id->empty()) continue;
    DocumentEvidence evidence;
    evidence.document_id = std::string(*id);
    evidence.source = StringOr(*doc, "source");
    evidence.title = StringOr(*doc, "title");
    evidence.breadcrumb = StringOr(*doc, "breadcrumb");
    if (auto excerpt = json::GetString(*doc, "excerpt")) {
      evidence.excerpt = std::string(*excerpt);
    } else if (auto content = json::GetString(*doc, "content")) {
      evidence.excerpt = CutExcerpt(std::string(*content), query, max_excerpt_chars);
    }
    result.evidence.push_back(std::move(evidence));
  }
  return result;
}

}  // namespace diagd::tools::documents
