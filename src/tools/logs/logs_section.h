// [tools.logs]: where query_logs reads topics, its lookback and bounds, and
// what people call each topic (tool_section.h).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tools/logs/logs_types.h"
#include "tools/tool_section.h"

namespace diagd::tools::logs {

struct QueryLogs;  // the face (logs_tool.h)

// One [tools.logs.topics.NAME] table: what people call the topic's service
// in their questions ("订单服务"), so that a question naming it in those
// words names the topic (docs/specs/release.md).
struct LogTopicConfig {
  std::string name;                  // [A-Za-z0-9_-][A-Za-z0-9._-]*
  std::vector<std::string> aliases;  // non-empty strings, none shared with another topic
};

// The only backend is "local" for now, so there is no backend field.
struct LogsToolConfig {
  std::filesystem::path path = "logs";  // absolute after loading
  int default_lookback_minutes = 60;    // <= max_lookback_minutes
  int max_lookback_minutes = 1440;
  int max_events = 30;
  int max_message_chars = 2000;
  int timeout_ms = 10000;
  std::vector<LogTopicConfig> topics;  // sorted by name
};

struct LogsSection {
  using Face = QueryLogs;
  using Catalog = LogsCatalog;
  using Limits = LogsLimits;
  static constexpr const char* kTable = "logs";

  LogsToolConfig logs;

  static void Read(config::internal::TableReader& table, LogsSection& out);
  static void ResolvePaths(const std::filesystem::path& base, LogsSection& out);
  static std::vector<LocalPath> LocalPaths(const LogsSection& section);
  // The default lookback within the maximum.
  static void CheckRules(const LogsSection& section, const config::internal::KeyLocations& at,
                         config::internal::Problems& problems);
};

}  // namespace diagd::tools::logs
