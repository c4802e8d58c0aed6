// What the configuration tells the tools' catalog: each registered tool's
// rules (its `Catalog` part, tool_section.h: known topics, datasources,
// lookback limits, as a member of the tool's own name) and the language of
// descriptions. Built by tool_settings.h; each face reads its own member.
#pragma once

#include "tools/tool_sections.h"

namespace diagd::tools {

struct CatalogOptions : RegisteredSections::Catalogs {
  bool english = false;  // descriptions in English instead of Chinese
  bool operator==(const CatalogOptions&) const = default;
};

}  // namespace diagd::tools
