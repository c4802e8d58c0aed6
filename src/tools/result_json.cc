#include "tools/result_json.h"

#include <algorithm>
#include <boost/json.hpp>

#include "core/overloaded.h"
#include "tools/documents/documents_tool.h"
#include "tools/logs/logs_tool.h"
#include "tools/mysql/mysql_tool.h"

namespace diagd::tools {
namespace {

using json::JsonWriter;

void WriteSqlValue(const SqlValue& value, JsonWriter& w) {
  std::visit(Overloaded{[&](std::monostate) { w.Null(); }, [&](bool b) { w.Bool(b); },
                        [&](std::int64_t i) { w.Int(i); }, [&](double d) { w.Double(d); },
                        [&](const std::string& s) { w.String(s); }},
             value);
}

void WriteOptional(const std::optional<std::string>& s, JsonWriter& w) {
  if (s) {
    w.String(*s);
  } else {
    w.Null();
  }
}

// The common keys; true when `key` was one of them.
template <typename R>
bool WriteCommon(const R& r, std::string_view key, std::size_t items, const ResultView& view,
                 JsonWriter& w) {
  if (key == "evidence_status") {
    w.String(EvidenceStatusString(r.evidence_status));
  } else if (key == "tool_call_id") {
    w.String(r.tool_call_id);
  } else if (key == "returned_count") {
    w.Int(static_cast<std::int64_t>(r.returned_count));
  } else if (key == "truncated") {
    w.Bool(r.truncated || items > view.max_items);
  } else {
    return false;
  }
  return true;
}

void WriteField(const DocumentsResult& r, std::string_view key, const ResultView& view,
                JsonWriter& w) {
  if (key == "relevance_level" && !r.relevance_level) return;  // optional: absent, not null
  w.Key(key);
  if (WriteCommon(r, key, r.evidence.size(), view, w)) return;
  if (key == "query") {
    w.String(r.query);
  } else if (key == "relevance_level") {
    w.String(RelevanceLevelString(*r.relevance_level));
  } else if (key == "evidence") {
    w.BeginArray();
    std::size_t n = std::min(r.evidence.size(), view.max_items);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& e = r.evidence[i];
      w.BeginObject()
          .Key("document_id").String(e.document_id)
          .Key("source").String(e.source)
          .Key("title").String(e.title)
          .Key("breadcrumb").String(e.breadcrumb)
          .Key("excerpt").String(e.excerpt)
          .EndObject();
    }
    w.EndArray();
  }
}

void WriteField(const LogsResult& r, std::string_view key, const ResultView& view,
                JsonWriter& w) {
  w.Key(key);
  if (WriteCommon(r, key, r.events.size(), view, w)) return;
  if (key == "topic") {
    w.String(r.topic);
  } else if (key == "query") {
    w.String(r.query);
  } else if (key == "lookback_minutes") {
    w.Int(r.lookback_minutes);
  } else if (key == "events") {
    w.BeginArray();
    // Cut from the middle: the onset and the newest stay in view.
    std::size_t n = std::min(r.events.size(), view.max_items);
    std::size_t earliest = n < r.events.size() ? EarliestShare(n) : n;
    std::size_t skipped = r.events.size() - n;
    for (std::size_t k = 0; k < n; ++k) {
      const auto& e = r.events[k < earliest ? k : k + skipped];
      w.BeginObject().Key("timestamp").String(e.timestamp).Key("level");
      WriteOptional(e.level, w);
      w.Key("service");
      WriteOptional(e.service, w);
      w.Key("message").String(e.message).EndObject();
    }
    w.EndArray();
  }
}

void WriteField(const MysqlResult& r, std::string_view key, const ResultView& view,
                JsonWriter& w) {
  w.Key(key);
  if (WriteCommon(r, key, r.rows.size(), view, w)) return;
  if (key == "datasource") {
    w.String(r.datasource);
  } else if (key == "sql") {
    w.String(r.sql);
  } else if (key == "params") {
    w.BeginArray();
    for (const auto& p : r.params) WriteSqlValue(p, w);
    w.EndArray();
  } else if (key == "columns") {
    w.BeginArray();
    for (const auto& c : r.columns) w.String(c);
    w.EndArray();
  } else if (key == "rows") {
    w.BeginArray();
    std::size_t n = std::min(r.rows.size(), view.max_items);
    for (std::size_t i = 0; i < n; ++i) {
      w.BeginArray();
      for (const auto& cell : r.rows[i]) WriteSqlValue(cell, w);
      w.EndArray();
    }
    w.EndArray();
  }
}

}  // namespace

const std::vector<std::string_view>& CanonicalKeys(ToolName tool) {
  static const PerTool<std::vector<std::string_view>> kKeys = {
      .documents = {"evidence_status", "tool_call_id", "query", "evidence", "returned_count",
                    "relevance_level", "truncated"},
      .logs = {"evidence_status", "tool_call_id", "topic", "query", "lookback_minutes", "events",
               "returned_count", "truncated"},
      .mysql = {"evidence_status", "tool_call_id", "datasource", "sql", "params", "columns",
                "rows", "returned_count", "truncated"},
  };
  return kKeys.For(tool);
}

void WriteResultMembers(const ToolResult& result, const ResultView& view,
                        json::JsonWriter& writer) {
  const auto& keys = view.keys != nullptr ? *view.keys : CanonicalKeys(ToolOf(result));
  std::visit(
      [&](const auto& r) {
        for (std::string_view key : keys) WriteField(r, key, view, writer);
      },
      result);
}

std::string CanonicalResultText(const ToolResult& result) {
  json::JsonWriter writer;
  writer.BeginObject();
  WriteResultMembers(result, ResultView{}, writer);
  writer.EndObject();
  return writer.Take();
}

boost::json::object RequestJson(const ToolRequest& request) {
  return std::visit(Overloaded{[](const DocumentsRequest& q) { return documents::RequestJson(q); },
                               [](const LogsRequest& q) { return logs::RequestJson(q); },
                               [](const MysqlRequest& q) { return mysql::RequestJson(q); }},
                    request);
}

}  // namespace diagd::tools
