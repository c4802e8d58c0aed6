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

// Items whose text is blank have nothing to cite.
template <typename Item>
void DropBlank(std::vector<Item>& items, std::string Item::*text_field) {
  std::erase_if(items, [&](const Item& item) { return text::IsBlank(item.*text_field); });
}

// Drops blank items, then bounds the list (its head kept) and each item's text.
template <typename Item>
void BoundItems(std::vector<Item>& items, std::string Item::*text_field, std::size_t max_items,
                std::size_t max_chars, bool& truncated) {
  DropBlank(items, text_field);
  BoundList(items, max_items, truncated);
  for (auto& item : items) BoundText(item.*text_field, max_chars, truncated);
}

template <typename R>
void SetCountAndStatus(R& r, std::size_t items) {
  r.returned_count = items;
  r.evidence_status = items > 0 ? EvidenceStatus::kEvidenceFound : EvidenceStatus::kNoEvidence;
}

}  // namespace

std::size_t EarliestShare(std::size_t max_events) { return (max_events + 4) / 5; }

bool KeepBothEnds(std::vector<LogEvent>& events, std::size_t max_events) {
  if (events.size() <= max_events) return false;
  std::size_t earliest = EarliestShare(max_events);
  auto newest = static_cast<std::ptrdiff_t>(events.size() - (max_events - earliest));
  events.erase(events.begin() + static_cast<std::ptrdiff_t>(earliest), events.begin() + newest);
  return true;
}

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
            BoundItems(r.evidence, &DocumentEvidence::excerpt, limits.max_evidence,
                       limits.max_excerpt_chars, r.truncated);
            SetCountAndStatus(r, r.evidence.size());
          },
          [&](LogsResult& r) {
            DropBlank(r.events, &LogEvent::message);
            if (KeepBothEnds(r.events, limits.max_events)) r.truncated = true;
            for (auto& event : r.events) {
              BoundText(event.message, limits.max_message_chars, r.truncated);
            }
            SetCountAndStatus(r, r.events.size());
          },
          [&](MysqlResult& r) {
            // A row is usable whatever its cells hold: none is dropped.
            BoundList(r.rows, limits.max_rows, r.truncated);
            for (auto& row : r.rows) {
              for (auto& cell : row) {
                if (auto* s = std::get_if<std::string>(&cell)) {
                  BoundText(*s, limits.max_cell_chars, r.truncated);
                }
              }
            }
            SetCountAndStatus(r, r.rows.size());
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
