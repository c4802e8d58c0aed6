#include "tools/documents/documents_backend.h"

#include "config/config.h"
#include "tools/documents/documents_tool.h"
#include "tools/documents/http_documents_adapter.h"

namespace diagd::tools::documents {

Result<std::unique_ptr<ToolAdapter>> OpenAdapter(const DocumentsToolConfig& documents,
                                                 const Clock& clock) {
  if (documents.backend == DocumentsToolConfig::Backend::kHttp) {
    return std::unique_ptr<ToolAdapter>(std::make_unique<HttpDocumentsAdapter>(
        HttpDocumentsOptions{documents.url, static_cast<std::size_t>(documents.max_excerpt_chars),
                             std::chrono::milliseconds(documents.timeout_ms)},
        clock));
  }
  auto local = OpenLocalAdapter(documents, clock);
  if (!local) return local.error();
  return std::unique_ptr<ToolAdapter>(std::move(*local));
}

Result<std::unique_ptr<LocalDocumentsAdapter>> OpenLocalAdapter(
    const DocumentsToolConfig& documents, const Clock& clock,
    std::chrono::milliseconds refresh_interval) {
  return LocalDocumentsAdapter::Open(
      {documents.path, documents.cache_path, static_cast<std::size_t>(documents.max_evidence),
       static_cast<std::size_t>(documents.max_excerpt_chars), refresh_interval},
      clock);
}

Result<OpenedBackend> SearchDocuments::OpenBackend(const BackendContext& context) {
  auto adapter = OpenAdapter(context.config.tools.documents, context.clock);
  if (!adapter) {
    bool cache = adapter.error().message.starts_with(kCacheFolderError);
    return Error::InvalidArgument(
        std::string(cache ? "tools.documents.cache_path: " : "tools.documents.path: ") +
        adapter.error().message);
  }
  return OpenedBackend{std::move(*adapter), {}};
}

}  // namespace diagd::tools::documents
