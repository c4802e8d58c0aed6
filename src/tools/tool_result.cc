#include "tools/tool_result.h"

#include <algorithm>

#include "core/overloaded.h"
#include "core/text.h"

namespace diagd::tools {
namespace {

// Cuts `s` to `max_chars` code points; records a cut in `truncated`.
void BoundText(std::string& s, std::size_t max_chars, bool& truncated) {
  if (text::BoundCodePoints(s, max_chars)) truncated = true;
}

template <typename T>
void BoundList(std::vector<T>& items, std::size_t max_items, bool& truncated) {
  if (items.size() > max_items) {
    items.resize(max_items);
    truncated = true;
  }
}

EvidenceStatus StatusFor(bool has_items) {
  return has_items ? EvidenceStatus::kEvidenceFound : EvidenceStatus::kNoEvidence;
}

}  // namespace

ToolName ToolOf(const ToolResult& result) {
  return std::visit(Overloaded{[](const DocumentsResult&) { return ToolName::kSearchDocuments; },
                               [](const LogsResult&) { return ToolName::kQueryLogs; },
                               [](const MysqlResult&) { return ToolName::kQueryMysql; }},
                    result);
}

EvidenceStatus EvidenceStatusOf(const ToolResult& result) {
  return std::visit([](const auto& r) { return r.evidence_status; }, result);
}

const std::string& ToolCallIdOf(const ToolResult& result) {
  return std::visit([](const auto& r) -> const std::string& { return r.tool_call_id; }, result);
}

std::size_t ReturnedCountOf(const ToolResult& result) {
  return std::visit([](const auto& r) { return r.returned_count; }, result);
}

bool TruncatedOf(const ToolResult& result) {
  return std::visit([](const auto& r) { return r.truncated; }, result);
}

void Canonicalize(ToolResult& result, const ResultLimits& limits) {
  std::visit(
      Overloaded{
          [&](DocumentsResult& r) {
            std::erase_if(r.evidence, [](const DocumentEvidence& e) {
              return text::IsBlank(e.excerpt);
            });
            BoundList(r.evidence, limits.max_evidence, r.truncated);
            for (auto& e : r.evidence) BoundText(e.excerpt, limits.max_excerpt_chars, r.truncated);
            r.returned_count = r.evidence.size();
            r.evidence_status = StatusFor(!r.evidence.empty());
          },
          [&](LogsResult& r) {
            std::erase_if(r.events, [](const LogEvent& e) {
              return text::IsBlank(e.message);
            });
            BoundList(r.events, limits.max_events, r.truncated);
            for (auto& e : r.events) BoundText(e.message, limits.max_message_chars, r.truncated);
            r.returned_count = r.events.size();
            r.evidence_status = StatusFor(!r.events.empty());
          },
          [&](MysqlResult& r) {
            BoundList(r.rows, limits.max_rows, r.truncated);
            for (auto& row : r.rows) {
              for (auto& cell : row) {
                if (auto* s = std::get_if<std::string>(&cell)) {
                  BoundText(*s, limits.max_cell_chars, r.truncated);
                }
              }
            }
            r.returned_count = r.rows.size();
            r.evidence_status = StatusFor(!r.rows.empty());
          },
      },
      result);
}

bool BindToRequest(ToolResult& result, const ToolRequest& request,
                   const std::string& tool_call_id) {
  return std::visit(
      Overloaded{
          [&](DocumentsResult& r, const DocumentsRequest& q) {
            r.query = q.query;
            r.tool_call_id = tool_call_id;
            return true;
          },
          [&](LogsResult& r, const LogsRequest& q) {
            r.topic = q.topic;
            r.query = q.query;
            r.lookback_minutes = q.lookback_minutes;
            r.tool_call_id = tool_call_id;
            return true;
          },
          [&](MysqlResult& r, const MysqlRequest& q) {
            r.datasource = q.datasource;
            r.sql = q.sql;
            r.params = q.params;
            r.tool_call_id = tool_call_id;
            return true;
          },
          [](auto&, const auto&) { return false; },
      },
      result, request);
}

ToolResult ErrorResultFor(const ToolRequest& request, const std::string& tool_call_id) {
  ToolResult result = std::visit(
      Overloaded{[](const DocumentsRequest&) -> ToolResult { return DocumentsResult{}; },
                 [](const LogsRequest&) -> ToolResult { return LogsResult{}; },
                 [](const MysqlRequest&) -> ToolResult { return MysqlResult{}; }},
      request);
  BindToRequest(result, request, tool_call_id);
  std::visit([](auto& r) { r.evidence_status = EvidenceStatus::kError; }, result);
  return result;
}

}  // namespace diagd::tools
