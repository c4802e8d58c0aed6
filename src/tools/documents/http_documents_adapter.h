// The `http` backend of search_documents (docs/configuration.md): POSTs
// `{"query": "..."}` to an upstream retrieval service and projects its answer
// (documents_tool's `ProjectUpstream`): only document_id, source, title,
// breadcrumb and an excerpt pass on, plus a normalized relevance level.
//
// Failures: no connection -> TOOL_UNAVAILABLE; no answer in time ->
// TOOL_TIMEOUT; HTTP 5xx or 429 -> TOOL_UNAVAILABLE (a retry may help); any
// other non-2xx status, a body that is not JSON or not of the expected shape
// -> QUERY_FAILED with a short message that names neither the URL nor the
// body.
//
// Thread safety: `Execute` is safe for concurrent use.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "core/clock.h"
#include "tools/tool_adapter.h"

namespace diagd::tools::documents {

struct HttpDocumentsOptions {
  std::string url;
  std::size_t max_excerpt_chars = 600;
  std::chrono::milliseconds timeout{10000};  // per call; the deadline may shorten it
};

class HttpDocumentsAdapter final : public ToolAdapter {
 public:
  HttpDocumentsAdapter(HttpDocumentsOptions options, const Clock& clock);

 private:
  // ToolAdapter. `raw_response` is the upstream body as received. The
  // request is abandoned (its transfer aborted) once `cancel` is requested:
  // TOOL_UNAVAILABLE.
  Result<AdapterOutput, AdapterFailure> DoExecute(const ToolRequest& request, MonoTime deadline,
                                                  const std::stop_token& cancel) override;

  const HttpDocumentsOptions options_;
  const Clock& clock_;
};

}  // namespace diagd::tools::documents
