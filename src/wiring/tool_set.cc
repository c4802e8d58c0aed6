#include "wiring/tool_set.h"

#include "store/fallback_canonical_store.h"
#include "tools/documents/http_documents_adapter.h"
#include "tools/documents/local_documents_adapter.h"
#include "tools/logs/local_logs_adapter.h"
#include "tools/metrics/metrics_adapter.h"
#include "tools/mysql/mysql_adapter.h"
#include "tools/tool_settings.h"

namespace diagd::wiring {
namespace {

Error KeyError(const char* key, const Error& cause) {
  return Error::InvalidArgument(std::string(key) + ": " + cause.message);
}

}  // namespace

Result<std::unique_ptr<tools::ToolAdapter>> OpenDocumentsAdapter(const config::Config& config,
                                                                 const Clock& clock) {
  const auto& documents = config.tools.documents;
  if (documents.backend == config::DocumentsToolConfig::Backend::kHttp) {
    return std::unique_ptr<tools::ToolAdapter>(std::make_unique<tools::documents::HttpDocumentsAdapter>(
        tools::documents::HttpDocumentsOptions{
            documents.url, static_cast<std::size_t>(documents.max_excerpt_chars),
            std::chrono::milliseconds(documents.timeout_ms)},
        clock));
  }
  auto local = OpenLocalDocumentsAdapter(config, clock);
  if (!local) return local.error();
  return std::unique_ptr<tools::ToolAdapter>(std::move(*local));
}

Result<std::unique_ptr<tools::documents::LocalDocumentsAdapter>> OpenLocalDocumentsAdapter(
    const config::Config& config, const Clock& clock, std::chrono::milliseconds refresh_interval) {
  const auto& documents = config.tools.documents;
  return tools::documents::LocalDocumentsAdapter::Open(
      {documents.path, documents.cache_path, static_cast<std::size_t>(documents.max_evidence),
       static_cast<std::size_t>(documents.max_excerpt_chars), refresh_interval},
      clock);
}

Result<std::unique_ptr<tools::logs::LocalLogsAdapter>> OpenLocalLogsAdapter(
    const config::Config& config, const Clock& clock) {
  const auto& logs = config.tools.logs;
  return tools::logs::LocalLogsAdapter::Open(
      {logs.path, config.now, static_cast<std::size_t>(logs.max_events),
       static_cast<std::size_t>(logs.max_message_chars)},
      clock);
}

Result<std::unique_ptr<tools::ToolAdapter>> OpenMysqlAdapter(const config::Config& config) {
  auto mysql = tools::mysql::MysqlAdapter::Open(config.tools.datasources);
  if (!mysql) return mysql.error();
  return std::unique_ptr<tools::ToolAdapter>(std::move(*mysql));
}

Result<std::unique_ptr<ToolSet>> OpenToolSet(const config::Config& config, const Clock& clock) {
  auto set = std::make_unique<ToolSet>();

  std::chrono::seconds canonical_ttl(config.storage.canonical_ttl_seconds);
  if (config.storage.canonical == "memory:") {
    set->canonical_store = std::make_unique<tools::MemoryCanonicalStore>(canonical_ttl, clock);
  } else {
    // The instance's own records in memory, mirrored to Redis for the
    // others. Redis is dialled on first use: it need not be up to start.
    auto shared = store::OpenRedisCanonicalStore(config.storage.canonical, canonical_ttl, clock);
    if (!shared) return KeyError("storage.canonical", shared.error());
    set->canonical_store = std::move(*shared);
  }

  auto documents = OpenDocumentsAdapter(config, clock);
  if (!documents) {
    bool cache = documents.error().message.starts_with(tools::documents::kCacheFolderError);
    return KeyError(cache ? "tools.documents.cache_path" : "tools.documents.path",
                    documents.error());
  }

  auto logs = OpenLocalLogsAdapter(config, clock);
  if (!logs) return KeyError("tools.logs.path", logs.error());
  tools::logs::LocalLogsAdapter* logs_adapter = logs->get();
  std::vector<std::string> topics = logs_adapter->ListTopics();

  auto mysql = OpenMysqlAdapter(config);
  if (!mysql) return KeyError("tools.mysql.datasources", mysql.error());

  std::map<tools::ToolName, tools::ToolAdapter*> adapters{
      {tools::documents::kSearchDocuments, documents->get()},
      {tools::logs::kQueryLogs, logs->get()},
      {tools::mysql::kQueryMysql, mysql->get()}};
  set->adapters.push_back(std::move(*documents));
  set->adapters.push_back(std::move(*logs));
  set->adapters.push_back(std::move(*mysql));

  if (config.tools.metrics) {
    auto metrics = OpenMetricsAdapter(config, clock);
    if (!metrics) return KeyError("tools.metrics", metrics.error());
    adapters.emplace(tools::metrics::kQueryMetrics, metrics->get());
    set->adapters.push_back(std::move(*metrics));
  }

  // A long-running server sees topic files added (or removed) while it
  // runs: the catalog lists them again at most every few seconds. The
  // adapter outlives the catalog (both belong to the set).
  tools::TopicSource topic_source{[logs_adapter] { return logs_adapter->ListTopics(); }, &clock,
                                  kTopicListingInterval};
  set->catalog = std::make_unique<tools::ToolCatalog>(
      tools::CatalogOptionsFrom(config, std::move(topics)), std::move(topic_source));
  set->boundary = std::make_unique<tools::ToolBoundary>(
      std::move(adapters), *set->canonical_store, clock, tools::BoundaryOptionsFrom(config));
  return set;
}

Result<std::unique_ptr<tools::metrics::MetricsAdapter>> OpenMetricsAdapter(
    const config::Config& config, const Clock& clock) {
  if (!config.tools.metrics)
    return Unexpected(Error::FailedPrecondition("tools.metrics is not configured"));
  return tools::metrics::MetricsAdapter::Open(tools::MetricsSettingsFrom(*config.tools.metrics),
                                              config.now, clock);
}

}  // namespace diagd::wiring
