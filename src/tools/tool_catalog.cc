#include "tools/tool_catalog.h"

#include <boost/json.hpp>
#include <algorithm>

#include "core/json.h"
#include "core/overloaded.h"

namespace diagd::tools {
namespace {

struct Descriptions {
  const char* documents;
  const char* logs;
  const char* mysql;
  const char* previous_observation;
};

// Descriptions explain what each tool is for and how to grade the previous
// result; they never mention limits, counters or budgets.
constexpr Descriptions kZh = {
    "检索运维手册、Runbook 与技术文档，返回与查询相关的章节摘录。适合查找错误信息的含义、"
    "已知故障的排查步骤与处理办法。",
    "按主题查询日志事件，按时间先后排列（最早在前）；匹配过多时返回最早的一批和最新的一批。"
    "查询语法：空格分隔的词须同时出现；\"带引号的短语\"；-词 表示排除；level:ERROR 按级别过滤；"
    "service:名称 按服务过滤；after:时间 与 before:时间 限定时间范围（RFC 3339，如 "
    "after:2026-11-29T09:55:00Z before:2026-11-29T10:10:00Z）。lookback_minutes 为回看分钟数，"
    "时间范围不会超出它。",
    "在已配置的数据源上执行一条只读 SQL（SELECT/WITH/SHOW/DESCRIBE/EXPLAIN），参数用 ? "
    "占位并放在 params 中。",
    "对上一次返回了证据（EVIDENCE_FOUND）的工具结果的评价：tool_call_id 为该次调用的 "
    "id；GAINED 表示它带来了确认、排除或缩小假设的新可验证事实，NO_GAIN 表示正确但无用、"
    "泛泛或重复。该结果尚未评价时必须填写，否则不要填写。",
};

constexpr Descriptions kEn = {
    "Search runbooks and technical documents; returns excerpts of the matching sections. Use "
    "it to learn what an error means and how a known failure is investigated and fixed.",
    "Query the events of a log topic, in time order (oldest first); when many match, the "
    "earliest and the newest are returned. Query language: space-separated terms must all "
    "appear; \"quoted phrases\"; -term excludes; level:ERROR filters by level; service:NAME by "
    "service; after:TIME and before:TIME bound the time (RFC 3339, e.g. "
    "after:2026-11-29T09:55:00Z before:2026-11-29T10:10:00Z). lookback_minutes is how far back "
    "to look; the bounds stay within it.",
    "Run one read-only SQL statement (SELECT/WITH/SHOW/DESCRIBE/EXPLAIN) on a configured "
    "datasource, with ? placeholders bound from params.",
    "Your grade of the last tool result that returned evidence (EVIDENCE_FOUND): tool_call_id "
    "is that call's id; GAINED when it brought new verifiable facts that confirm, exclude or "
    "narrow a hypothesis, NO_GAIN when it was correct but useless, generic or repeated. "
    "Required while that result is ungraded; omit it otherwise.",
};

std::string EnvelopeSchema(boost::json::object input_schema, const char* previous_description) {
  boost::json::object previous{
      {"type", "object"},
      {"description", previous_description},
      {"additionalProperties", false},
      {"required", {"tool_call_id", "information_gain"}},
      {"properties",
       {{"tool_call_id", {{"type", "string"}}},
        {"information_gain", {{"type", "string"}, {"enum", {"GAINED", "NO_GAIN"}}}}}}};
  boost::json::object envelope{
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"input"}},
      {"properties",
       {{"previous_observation", std::move(previous)}, {"input", std::move(input_schema)}}}};
  return json::Serialize(envelope);
}

}  // namespace

std::vector<std::string> ToolCatalog::Topics() const { return Current()->options.logs.topics; }

ToolCatalog::ToolCatalog(CatalogOptions options, TopicSource topics)
    : topics_(std::move(topics)), current_(Build(std::move(options))) {
  if (topics_.list && topics_.clock != nullptr) {
    next_listing_ = topics_.clock->Monotonic() + topics_.interval;
  }
}

std::shared_ptr<const ToolCatalog::Snapshot> ToolCatalog::Build(CatalogOptions options) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->options = std::move(options);
  const CatalogOptions& o = snapshot->options;
  const Descriptions& d = o.english ? kEn : kZh;
  auto& definitions = snapshot->definitions;
  definitions = {
      {"search_documents", d.documents,
       EnvelopeSchema(documents::InputSchema(), d.previous_observation)},
      {"query_logs", d.logs, EnvelopeSchema(logs::InputSchema(o.logs), d.previous_observation)},
      {"query_mysql", d.mysql,
       EnvelopeSchema(mysql::InputSchema(o.mysql), d.previous_observation)},
  };
  // Name the configured topics and datasources so the model never has to guess.
  auto append_names = [](std::string& description, const char* label,
                         const std::vector<std::string>& names) {
    if (names.empty()) return;
    description += label;
    for (std::size_t i = 0; i < names.size(); ++i) description += (i ? ", " : "") + names[i];
  };
  append_names(definitions[1].description, o.english ? " Topics: " : " 可用主题：",
               o.logs.topics);
  std::vector<std::string> datasources = o.mysql.datasources;
  for (std::size_t i = 0; i < datasources.size() && i < o.mysql.dialects.size(); ++i) {
    datasources[i] += " (" + o.mysql.dialects[i] + ")";
  }
  append_names(definitions[2].description, o.english ? " Datasources: " : " 可用数据源：",
               datasources);
  return snapshot;
}

std::shared_ptr<const ToolCatalog::Snapshot> ToolCatalog::Current() const {
  std::shared_ptr<const Snapshot> snapshot;
  {
    MutexLock lock(mu_);
    snapshot = current_;
    if (!topics_.list || topics_.clock == nullptr || topics_.clock->Monotonic() < next_listing_) {
      return snapshot;
    }
    next_listing_ = topics_.clock->Monotonic() + topics_.interval;
  }
  // Listed without the lock (it reads a folder); runs meanwhile use the
  // snapshot they have.
  std::vector<std::string> listed = topics_.list();
  std::sort(listed.begin(), listed.end());
  if (listed == snapshot->options.logs.topics) return snapshot;
  CatalogOptions options = snapshot->options;
  options.logs.topics = std::move(listed);
  auto rebuilt = Build(std::move(options));
  MutexLock lock(mu_);
  current_ = rebuilt;
  return rebuilt;
}

std::shared_ptr<const std::vector<ToolDefinition>> ToolCatalog::Definitions() const {
  auto snapshot = Current();
  return {snapshot, &snapshot->definitions};  // shares the snapshot's lifetime
}

InputResult<ToolRequest> ToolCatalog::ParseInput(ToolName tool,
                                                 const boost::json::object& input) const {
  auto widen = [](auto parsed) -> InputResult<ToolRequest> {
    if (!parsed) return Unexpected(std::move(parsed).error());
    return ToolRequest(std::move(*parsed));
  };
  switch (tool) {
    case ToolName::kSearchDocuments:
      return widen(documents::ParseInput(input));
    case ToolName::kQueryLogs:
      return widen(logs::ParseInput(input, Current()->options.logs));
    case ToolName::kQueryMysql:
      return widen(mysql::ParseInput(input, Current()->options.mysql));
  }
  return InputFailure("input", "UNKNOWN_TOOL");
}

Scope ToolCatalog::ScopeOf(const ToolRequest& request) {
  return std::visit(Overloaded{[](const DocumentsRequest& q) { return documents::ScopeOf(q); },
                               [](const LogsRequest& q) { return logs::ScopeOf(q); },
                               [](const MysqlRequest& q) { return mysql::ScopeOf(q); }},
                    request);
}

ToolName ToolCatalog::ToolOf(const ToolRequest& request) {
  return std::visit(
      Overloaded{[](const DocumentsRequest&) { return ToolName::kSearchDocuments; },
                 [](const LogsRequest&) { return ToolName::kQueryLogs; },
                 [](const MysqlRequest&) { return ToolName::kQueryMysql; }},
      request);
}

}  // namespace diagd::tools
