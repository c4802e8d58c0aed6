#include "tools/logs/logs_backend.h"

#include <algorithm>

#include "config/config.h"
#include "tools/catalog_options.h"
#include "tools/logs/logs_tool.h"

namespace diagd::tools::logs {

Result<std::unique_ptr<LocalLogsAdapter>> OpenLocalAdapter(const LogsToolConfig& logs,
                                                           std::optional<WallTime> now,
                                                           const Clock& clock) {
  return LocalLogsAdapter::Open({logs.path, now, static_cast<std::size_t>(logs.max_events),
                                 static_cast<std::size_t>(logs.max_message_chars)},
                                clock);
}

Result<OpenedBackend> QueryLogs::OpenBackend(const BackendContext& context) {
  auto adapter = OpenLocalAdapter(context.config.tools.logs, context.config.now, context.clock);
  if (!adapter) return Error::InvalidArgument("tools.logs.path: " + adapter.error().message);
  // A long-running server sees topic files added (or removed) while it
  // runs; the adapter outlives the catalog that asks.
  LocalLogsAdapter* logs = adapter->get();
  auto refresh = [logs](CatalogOptions& options) {
    std::vector<std::string> topics = logs->ListTopics();
    std::sort(topics.begin(), topics.end());
    options.logs.topics = std::move(topics);
  };
  return OpenedBackend{std::move(*adapter), std::move(refresh)};
}

}  // namespace diagd::tools::logs
