// search_documents' request and canonical result (docs/specs/tool-contracts.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tools/tool_types.h"

namespace diagd::tools {

namespace documents {
inline constexpr ToolName kSearchDocuments{"search_documents"};
}  // namespace documents

struct DocumentsRequest {
  std::string query;  // 1..500 code points
};

struct DocumentEvidence {
  std::string document_id;
  std::string source;
  std::string title;
  std::string breadcrumb;
  std::string excerpt;  // an exact substring of the document
};

struct DocumentsResult {
  EvidenceStatus evidence_status = EvidenceStatus::kNoEvidence;
  std::string tool_call_id;
  std::string query;
  std::vector<DocumentEvidence> evidence;
  std::size_t returned_count = 0;
  std::optional<RelevanceLevel> relevance_level;
  bool truncated = false;
};

}  // namespace diagd::tools
