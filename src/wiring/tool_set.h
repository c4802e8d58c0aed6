// The tools a diagd process opens from its configuration: every registered
// tool's backend (each face's OpenBackend, tool_backend.h), the canonical
// store, the catalog offered to models (brought up to date with the backends
// at most every `kCatalogRefreshInterval`: a topic file added to
// tools.logs.path is offered), and the boundary in front of them. wiring/
// is the one place that names concrete implementations; cli/ and server/
// call it.
//
// Thread safety: everything in a ToolSet is shared by concurrent runs and
// safe for concurrent use.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "config/config.h"
#include "core/clock.h"
#include "core/result.h"
#include "tools/canonical_store.h"
#include "tools/tool_adapter.h"
#include "tools/tool_boundary.h"
#include "tools/tool_catalog.h"

namespace diagd::wiring {

// What a backend offers (a topic file added to tools.logs.path) is offered
// this long after, at most.
inline constexpr std::chrono::seconds kCatalogRefreshInterval{5};

struct ToolSet {
  std::vector<std::unique_ptr<tools::ToolAdapter>> adapters;  // owned; the boundary borrows
  std::unique_ptr<tools::CanonicalInvocationStore> canonical_store;
  std::unique_ptr<tools::ToolCatalog> catalog;
  std::unique_ptr<tools::ToolBoundary> boundary;
};

// INVALID_ARGUMENT naming the key when a configured folder or URL cannot be
// used (the caller exits 2); nothing is searched or indexed yet.
Result<std::unique_ptr<ToolSet>> OpenToolSet(const config::Config& config, const Clock& clock);

}  // namespace diagd::wiring
