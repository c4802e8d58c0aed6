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

// Its bounds on a result, as a part of ResultLimits (tool_face.h).
struct DocumentsLimits {
  std::size_t max_evidence = 5;
  std::size_t max_excerpt_chars = 600;
  bool operator==(const DocumentsLimits&) const = default;
};
// Its part of CatalogOptions: none, its description names no rule.
struct DocumentsCatalog {
  bool operator==(const DocumentsCatalog&) const = default;
};
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
