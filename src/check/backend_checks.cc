#include "check/backend_checks.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <variant>

#include "check/misconfigurations.h"
#include "http/http_client.h"
#include "tools/documents/index_census.h"
#include "tools/documents/markdown_tree.h"
#include "tools/logs/topic_census.h"
#include "tools/mysql/datasource_census.h"
#include "wiring/tool_set.h"

namespace diagd::check {
namespace {

namespace fs = std::filesystem;
using M = Misconfiguration;
using Millis = std::chrono::milliseconds;

// The query the http documents backend is sent: any text will do.
constexpr const char* kDocumentsProbeQuery = "diagd check";

CheckItem Problem(CheckItem item, std::string detail, M misconfiguration,
                  const AdviceValues& values) {
  item.ok = false;
  item.detail = std::move(detail);
  item.advice = Advise(misconfiguration, values);
  return item;
}

std::string Plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string Rfc3339(tools::logs::UnixMillis ms) {
  return FormatRfc3339Millis(WallTime(std::chrono::milliseconds(ms)));
}

CheckItem CheckLocalDocuments(const config::Config& config, const Clock& clock, Millis max_time) {
  const auto& documents = config.tools.documents;
  CheckItem item{"documents", documents.path.string(), true, "", ""};
  AdviceValues values{{"path", documents.path.string()}, {"cache", documents.cache_path.string()}};
  auto adapter = wiring::OpenLocalDocumentsAdapter(config, clock, Millis(0));
  if (!adapter) {
    bool cache = adapter.error().message.starts_with(tools::documents::kCacheFolderError);
    return Problem(item, adapter.error().message,
                   cache ? M::kDocumentsCacheUnusable : M::kDocumentsFolderUnusable, values);
  }
  Status refreshed = (*adapter)->Refresh(clock.Monotonic() + max_time);
  bool unfinished = !refreshed && refreshed.error().code == ErrorCode::kDeadlineExceeded;
  if (!refreshed && !unfinished) {
    return Problem(item, refreshed.error().message, M::kDocumentsIndexFailed, values);
  }
  std::error_code error;
  auto tree = tools::documents::ScanMarkdownTree(fs::canonical(documents.path, error));
  if (!tree) return Problem(item, tree.error().message, M::kDocumentsFolderUnusable, values);
  auto sections = tools::documents::CountIndexedSections((*adapter)->index_directory());
  if (!sections) return Problem(item, sections.error().message, M::kDocumentsIndexFailed, values);

  item.detail = Plural(tree->size(), "Markdown file", "Markdown files") + ", " +
                Plural(*sections, "section", "sections") + " indexed";
  if (unfinished) {
    item.detail += " so far (the index was not complete after " +
                   std::to_string(max_time.count() / 1000) + " s; the next search goes on)";
  }
  if (tree->empty() || (*sections == 0 && !unfinished)) {
    return Problem(item, item.detail, M::kDocumentsEmpty, values);
  }
  return item;
}

// The adapter's own result, before the boundary counts it.
std::size_t EvidenceCount(const tools::ToolResult& result) {
  const auto* documents = std::get_if<tools::DocumentsResult>(&result);
  return documents == nullptr ? 0 : documents->evidence.size();
}

CheckItem CheckHttpDocuments(const config::Config& config, const Clock& clock) {
  const auto& documents = config.tools.documents;
  std::string url = http::RedactUrl(documents.url);
  CheckItem item{"documents", url, true, "", ""};
  AdviceValues values{{"url", url}};
  // The http backend opens without I/O and cannot fail to.
  auto adapter = wiring::OpenDocumentsAdapter(config, clock);
  if (!adapter) return Problem(item, adapter.error().message, M::kDocumentsServiceDown, values);
  auto answered = (*adapter)->Execute(tools::DocumentsRequest{kDocumentsProbeQuery},
                                      clock.Monotonic() + Millis(documents.timeout_ms));
  if (!answered) {
    const tools::AdapterFailure& failure = answered.error();
    std::string detail =
        std::string("the documents service: ") + tools::ToolErrorCodeString(failure.code);
    if (!failure.message.empty()) detail += " (" + failure.message + ")";
    bool down = failure.code != tools::ToolErrorCode::kQueryFailed;
    return Problem(item, detail, down ? M::kDocumentsServiceDown : M::kDocumentsServiceRefused,
                   values);
  }
  item.detail = "answers: " + Plural(EvidenceCount(answered->result), "document", "documents") +
                " for the query \"" + kDocumentsProbeQuery + "\"";
  return item;
}

// The aliases [tools.logs.topics.TOPIC] gives the topic; nothing when none.
const std::vector<std::string>* AliasesOf(const config::LogsToolConfig& logs,
                                          const std::string& topic) {
  for (const auto& configured : logs.topics) {
    if (configured.name == topic && !configured.aliases.empty()) return &configured.aliases;
  }
  return nullptr;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

CheckItem CheckTopic(const config::LogsToolConfig& logs, const std::string& topic,
                     tools::logs::UnixMillis now_ms, const Clock& clock, Millis max_time) {
  CheckItem item{"logs", topic, true, "", ""};
  auto census =
      tools::logs::CountTopicEvents(logs.path, topic, now_ms, clock, clock.Monotonic() + max_time);
  AdviceValues values{{"file", (logs.path / topic).string() + ".*"}, {"path", logs.path.string()}};
  if (!census) {
    if (census.error().code == ErrorCode::kDeadlineExceeded) {
      item.detail = "too large to count within " + std::to_string(max_time.count() / 1000) + " s";
      return item;
    }
    return Problem(item, census.error().message, M::kLogsTopicUnreadable, values);
  }
  values["file"] = census->file.string();
  const char* format = census->format == tools::logs::TopicFormat::kJsonLines ? "jsonl" : "log";
  if (census->bytes == 0) {
    item.detail = std::string("empty ") + format + " file, no events yet";
    return item;
  }
  std::string skipped =
      census->skipped_lines == 0
          ? ""
          : "; " + Plural(census->skipped_lines, "line", "lines") + " skipped (no event)";
  if (census->events == 0) {
    return Problem(item, std::string("no events in its ") + format + " file" + skipped,
                   M::kLogsTopicNoEvents, values);
  }
  item.detail = Plural(census->events, "event", "events") + ", " + Rfc3339(*census->oldest_ms) +
                " to " + Rfc3339(*census->newest_ms) + " (" + format + ")" + skipped;
  const tools::logs::UnixMillis reach_ms =
      now_ms - static_cast<tools::logs::UnixMillis>(logs.max_lookback_minutes) * 60'000;
  if (*census->newest_ms < reach_ms || *census->oldest_ms > now_ms) {
    return Problem(item,
                   item.detail + "; now is " + Rfc3339(now_ms) + ", a query reaches back " +
                       std::to_string(logs.max_lookback_minutes) + " min at most",
                   M::kLogsTopicOutOfWindow, values);
  }
  return item;
}

CheckItem CheckDatasource(tools::ToolAdapter& adapter, const config::DatasourceConfig& datasource,
                          const Clock& clock, Millis max_time) {
  CheckItem item{"datasource", datasource.name, true, "", ""};
  auto census = tools::mysql::CensusDatasource(adapter, datasource, clock.Monotonic() + max_time);
  AdviceValues values{{"name", datasource.name}, {"reason", census.problem}};
  const char* kind = census.kind == tools::mysql::DatasourceKind::kSqlite ? "SQLite" : "MySQL";
  if (!census.reachable) {
    return Problem(item, std::string("not reachable (") + kind + "): " + census.problem,
                   M::kDatasourceUnreachable, values);
  }
  if (!census.write_answered) {
    return Problem(item, std::string("reachable (") + kind + "), " + census.problem,
                   M::kDatasourceUnreachable, values);
  }
  std::string read_only = census.write_refused
                              ? "read-only enforced (a write was refused: " + census.refusal + ")"
                              : "A WRITE WAS NOT REFUSED";
  std::string tables = census.tables ? Plural(static_cast<std::size_t>(*census.tables),
                                              "table or view", "tables and views")
                                     : census.problem;
  item.detail = std::string("reachable (") + kind + "), " + read_only + ", " + tables;
  if (!census.write_refused) return Problem(item, item.detail, M::kDatasourceWritable, values);
  if (!census.tables) return Problem(item, item.detail, M::kDatasourceCountFailed, values);
  if (*census.tables == 0) return Problem(item, item.detail, M::kDatasourceNoTables, values);
  return item;
}

}  // namespace

CheckItem CheckDocuments(const config::Config& config, const Clock& clock, Millis max_time) {
  const auto& documents = config.tools.documents;
  if (documents.backend == config::DocumentsToolConfig::Backend::kHttp) {
    return CheckHttpDocuments(config, clock);
  }
  return CheckLocalDocuments(config, clock, max_time);
}

std::vector<CheckItem> CheckLogs(const config::Config& config, const Clock& clock, Millis max_time,
                                 CheckProgress* progress) {
  const auto& logs = config.tools.logs;
  CheckItem folder{"logs", logs.path.string(), true, "", ""};
  AdviceValues values{{"path", logs.path.string()}};
  auto adapter = wiring::OpenLocalLogsAdapter(config, clock);
  if (!adapter) return {Problem(folder, adapter.error().message, M::kLogsFolderUnusable, values)};
  std::vector<std::string> topics = (*adapter)->ListTopics();
  if (topics.empty()) {
    return {Problem(folder, "no topic files", M::kLogsNoTopics, values)};
  }
  folder.detail = Plural(topics.size(), "topic", "topics");
  std::vector<CheckItem> items{folder};
  const auto now_ms =
      std::chrono::floor<Millis>(config.now.value_or(clock.Now()).time_since_epoch()).count();
  for (const std::string& topic : topics) {
    if (progress != nullptr) progress->OnChecking("logs", topic);
    items.push_back(CheckTopic(logs, topic, now_ms, clock, max_time));
    if (const auto* aliased = AliasesOf(logs, topic)) {
      items.back().detail += "; aliases: " + JoinNames(*aliased);
    }
  }
  // Aliases of a topic that is not there make no question's subject findable.
  for (const auto& configured : logs.topics) {
    if (std::find(topics.begin(), topics.end(), configured.name) != topics.end()) continue;
    CheckItem item{"logs", configured.name, true, "", ""};
    items.push_back(Problem(item,
                            "configured under [tools.logs.topics] (aliases: " +
                                JoinNames(configured.aliases) + ") but no topic file",
                            M::kLogsAliasedTopicMissing,
                            {{"name", configured.name}, {"path", logs.path.string()}}));
  }
  return items;
}

std::vector<CheckItem> CheckDatasources(const config::Config& config, const Clock& clock,
                                        Millis max_time, CheckProgress* progress) {
  const auto& datasources = config.tools.datasources;
  if (datasources.empty()) {
    return {{"datasource", "(none)", true, "no tools.mysql.datasources configured", ""}};
  }
  auto adapter = wiring::OpenMysqlAdapter(config);
  if (!adapter) {
    // The config's own validation makes this unreachable; say it plainly if not.
    return {Problem({"datasource", "tools.mysql.datasources", true, "", ""},
                    adapter.error().message, M::kDatasourcesInvalid, {})};
  }
  std::vector<CheckItem> items;
  for (const config::DatasourceConfig& datasource : datasources) {
    if (progress != nullptr) progress->OnChecking("datasource", datasource.name);
    items.push_back(CheckDatasource(**adapter, datasource, clock, max_time));
  }
  return items;
}

std::vector<CheckItem> CheckMetrics(const config::Config& config, const Clock& clock,
                                    Millis max_time) {
  if (!config.tools.metrics) return {};
  CheckItem item{"metrics", http::RedactUrl(config.tools.metrics->url), true, "", ""};
  auto adapter = wiring::OpenMetricsAdapter(config, clock);
  if (!adapter) return {Problem(item, adapter.error().message, M::kMetricsUnreachable,
                                {{"reason", adapter.error().message}})};
  const auto& client = (*adapter)->client();
  auto census = client.Census((*adapter)->Now(), clock.Monotonic() + max_time);
  if (!census) {
    return {Problem(item, "not reachable: " + census.error().message, M::kMetricsUnreachable,
                    {{"reason", census.error().message}})};
  }
  item.detail = "reachable, " + Plural(census->names, "metric name", "metric names") +
                " over the last " + std::to_string(client.rules().max_lookback_minutes) + " min";
  if (census->names == 0) return {Problem(item, item.detail, M::kMetricsNoNames, {})};
  return {item};
}

}  // namespace diagd::check
