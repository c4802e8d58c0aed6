// The tools' settings taken from the validated configuration: each
// registered tool's rules for the catalog and its timeout and result bounds
// for the boundary (each face's ConfigureCatalog / ConfigureBoundary).
#pragma once

#include "config/config.h"
#include "tools/tool_boundary.h"
#include "tools/tool_catalog.h"

namespace diagd::tools {

// The rules of every tool the configuration has, and the language of the
// descriptions. What a backend finds (the log topics) is left to its
// refresh_catalog (tool_backend.h); until then any plain topic name is
// accepted and the backend answers for it.
CatalogOptions CatalogOptionsFrom(const config::Config& config);

// Timeouts per tool, attempts, and the final result bounds.
BoundaryOptions BoundaryOptionsFrom(const config::Config& config);

}  // namespace diagd::tools
