// The registered tools, by their config sections: the one registration line
// of a tool (src/tools/README.md, "Adding a tool"). tool_registry.h takes the
// faces from it; config/ reads the sections. Light on purpose: config.h
// includes it.
#pragma once

#include "tools/documents/documents_section.h"
#include "tools/logs/logs_section.h"
#include "tools/metrics/metrics_section.h"
#include "tools/mysql/mysql_section.h"
#include "tools/tool_section.h"

namespace diagd::tools {

// The one registration line. The order is the catalog's, the registry's and
// `diagd check`'s.
using RegisteredSections = SectionList<documents::DocumentsSection, logs::LogsSection,
                                       mysql::MysqlSection, metrics::MetricsSection>;

}  // namespace diagd::tools
