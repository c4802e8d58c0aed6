// What the configuration tells the tools' catalog: each tool's rules (known
// topics, datasources, lookback limits) and the language of descriptions.
// Built by tool_settings.h; each tool's face reads its own member.
#pragma once

#include <optional>

#include "tools/logs/logs_types.h"
#include "tools/metrics/metrics_types.h"
#include "tools/mysql/mysql_types.h"

namespace diagd::tools {

struct CatalogOptions {
  logs::LogsRules logs;
  mysql::MysqlRules mysql;
  bool english = false;  // descriptions in English instead of Chinese
  std::optional<metrics::MetricsRules> metrics;  // set where [tools.metrics] is configured
};

}  // namespace diagd::tools
