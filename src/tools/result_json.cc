#include "tools/result_json.h"

#include <boost/json.hpp>

#include "core/overloaded.h"
#include "tools/documents/documents_tool.h"
#include "tools/logs/logs_tool.h"
#include "tools/mysql/mysql_tool.h"

namespace diagd::tools {
namespace {

boost::json::value OptionalString(const std::optional<std::string>& s) {
  return s ? boost::json::value(*s) : boost::json::value(nullptr);
}

boost::json::object Json(const DocumentsResult& r) {
  boost::json::array evidence;
  for (const auto& e : r.evidence) {
    evidence.push_back({{"document_id", e.document_id},
                        {"source", e.source},
                        {"title", e.title},
                        {"breadcrumb", e.breadcrumb},
                        {"excerpt", e.excerpt}});
  }
  boost::json::object out{{"evidence_status", EvidenceStatusString(r.evidence_status)},
                          {"tool_call_id", r.tool_call_id},
                          {"query", r.query},
                          {"evidence", std::move(evidence)},
                          {"returned_count", r.returned_count}};
  if (r.relevance_level) out["relevance_level"] = RelevanceLevelString(*r.relevance_level);
  out["truncated"] = r.truncated;
  return out;
}

boost::json::object Json(const LogsResult& r) {
  boost::json::array events;
  for (const auto& e : r.events) {
    events.push_back({{"timestamp", e.timestamp},
                      {"level", OptionalString(e.level)},
                      {"service", OptionalString(e.service)},
                      {"message", e.message}});
  }
  return {{"evidence_status", EvidenceStatusString(r.evidence_status)},
          {"tool_call_id", r.tool_call_id},
          {"topic", r.topic},
          {"query", r.query},
          {"lookback_minutes", r.lookback_minutes},
          {"events", std::move(events)},
          {"returned_count", r.returned_count},
          {"truncated", r.truncated}};
}

boost::json::object Json(const MysqlResult& r) {
  boost::json::array params;
  for (const auto& p : r.params) params.push_back(mysql::SqlValueJson(p));
  boost::json::array columns;
  for (const auto& c : r.columns) columns.emplace_back(c);
  boost::json::array rows;
  for (const auto& row : r.rows) {
    boost::json::array cells;
    for (const auto& cell : row) cells.push_back(mysql::SqlValueJson(cell));
    rows.push_back(std::move(cells));
  }
  return {{"evidence_status", EvidenceStatusString(r.evidence_status)},
          {"tool_call_id", r.tool_call_id},
          {"datasource", r.datasource},
          {"sql", r.sql},
          {"params", std::move(params)},
          {"columns", std::move(columns)},
          {"rows", std::move(rows)},
          {"returned_count", r.returned_count},
          {"truncated", r.truncated}};
}

}  // namespace

boost::json::object CanonicalResultJson(const ToolResult& result) {
  return std::visit([](const auto& r) { return Json(r); }, result);
}

boost::json::object RequestJson(const ToolRequest& request) {
  return std::visit(Overloaded{[](const DocumentsRequest& q) { return documents::RequestJson(q); },
                               [](const LogsRequest& q) { return logs::RequestJson(q); },
                               [](const MysqlRequest& q) { return mysql::RequestJson(q); }},
                    request);
}

}  // namespace diagd::tools
