// search_documents' settings from [tools.documents].
#include "config/config.h"
#include "tools/documents/documents_tool.h"
#include "tools/tool_boundary.h"

namespace diagd::tools::documents {

void SearchDocuments::ConfigureCatalog(const config::ToolsConfig&, CatalogOptions&) {}

void SearchDocuments::ConfigureBoundary(const config::ToolsConfig& tools,
                                        BoundaryOptions& boundary) {
  boundary.timeouts[kName] = std::chrono::milliseconds(tools.documents.timeout_ms);
  boundary.limits.max_evidence = static_cast<std::size_t>(tools.documents.max_evidence);
  boundary.limits.max_excerpt_chars = static_cast<std::size_t>(tools.documents.max_excerpt_chars);
}

}  // namespace diagd::tools::documents
