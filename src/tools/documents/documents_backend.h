// Opening search_documents' backend from [tools.documents]: the face's
// OpenBackend, and the local backend as its own type for `diagd check`.
#pragma once

#include <chrono>
#include <memory>

#include "core/clock.h"
#include "core/result.h"
#include "tools/documents/documents_section.h"
#include "tools/documents/local_documents_adapter.h"
#include "tools/tool_adapter.h"

namespace diagd::tools::documents {

// The local or http backend, as a run opens it. The error is the adapter's
// own, without the key.
Result<std::unique_ptr<ToolAdapter>> OpenAdapter(const DocumentsToolConfig& documents,
                                                 const Clock& clock);

// The local backend, for the census `diagd check` takes of its index.
// `refresh_interval`: how often a search looks at the tree again (check: 0,
// every time).
Result<std::unique_ptr<LocalDocumentsAdapter>> OpenLocalAdapter(
    const DocumentsToolConfig& documents, const Clock& clock,
    std::chrono::milliseconds refresh_interval = std::chrono::milliseconds(2000));

}  // namespace diagd::tools::documents
