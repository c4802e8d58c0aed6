// query_logs' results as the face presents them (logs_tool.h).
#include <algorithm>

#include "core/text.h"
#include "tools/logs/logs_tool.h"

namespace diagd::tools {

std::size_t EarliestShare(std::size_t max_events) { return (max_events + 4) / 5; }

bool KeepBothEnds(std::vector<LogEvent>& events, std::size_t max_events) {
  if (events.size() <= max_events) return false;
  std::size_t earliest = EarliestShare(max_events);
  auto newest = static_cast<std::ptrdiff_t>(events.size() - (max_events - earliest));
  events.erase(events.begin() + static_cast<std::ptrdiff_t>(earliest), events.begin() + newest);
  return true;
}

namespace logs {

std::string QueryLogs::Description(const CatalogOptions& options) {
  std::string description =
      options.english
          ? "Query the events of a log topic, in time order (oldest first); when many match, the "
            "earliest and the newest are returned. Query language: space-separated terms must "
            "all appear; \"quoted phrases\"; -term excludes; level:ERROR filters by level; "
            "service:NAME by service; after:TIME and before:TIME bound the time (RFC 3339, e.g. "
            "after:2026-11-29T09:55:00Z before:2026-11-29T10:10:00Z). lookback_minutes is how far "
            "back to look; the bounds stay within it."
          : "按主题查询日志事件，按时间先后排列（最早在前）；匹配过多时返回最早的一批和最新的一批。"
            "查询语法：空格分隔的词须同时出现；\"带引号的短语\"；-词 表示排除；level:ERROR "
            "按级别过滤；service:名称 按服务过滤；after:时间 与 before:时间 限定时间范围（RFC "
            "3339，如 after:2026-11-29T09:55:00Z before:2026-11-29T10:10:00Z）。lookback_minutes "
            "为回看分钟数，时间范围不会超出它。";
  face::AppendNames(description, options.english ? " Topics: " : " 可用主题：",
                    options.logs.topics);
  return description;
}

void QueryLogs::Bind(Result& r, const Request& q) {
  r.topic = q.topic;
  r.query = q.query;
  r.lookback_minutes = q.lookback_minutes;
}

void QueryLogs::Canonicalize(Result& r, const ResultLimits& limits) {
  std::erase_if(r.events, [](const LogEvent& e) { return text::IsBlank(e.message); });
  if (KeepBothEnds(r.events, limits.max_events)) r.truncated = true;
  for (auto& event : r.events)
    face::BoundText(event.message, limits.max_message_chars, r.truncated);
  face::SetCountAndStatus(r, r.events.size());
}

const std::vector<std::string_view>& QueryLogs::CanonicalKeys() {
  static const std::vector<std::string_view> kKeys = {
      "evidence_status", "tool_call_id", "topic",          "query",
      "lookback_minutes", "events",      "returned_count", "truncated"};
  return kKeys;
}

const std::vector<std::string_view>& QueryLogs::ObservationKeys() {
  static const std::vector<std::string_view> kKeys = {
      "tool_call_id", "topic", "query", "lookback_minutes", "evidence_status", "events",
      "truncated"};
  return kKeys;
}

void QueryLogs::WriteField(const Result& r, std::string_view key, const ResultView& view,
                           json::JsonWriter& w) {
  w.Key(key);
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
      face::WriteOptional(e.level, w);
      w.Key("service");
      face::WriteOptional(e.service, w);
      w.Key("message").String(e.message).EndObject();
    }
    w.EndArray();
  }
}

bool QueryLogs::AnyCitable(const Result& r, const TextTest& holds) {
  for (const auto& event : r.events) {
    if (holds(event.message)) return true;
  }
  return false;
}

void QueryLogs::MentionTexts(const Result& r, const TextSink& add) {
  add(r.topic);
  for (const auto& event : r.events) {
    if (event.service) add(*event.service);
    add(event.message);
  }
}

void QueryLogs::Facts(const Result& r, const TextSink& add) {
  for (const auto& event : r.events) add(event.timestamp + " " + event.message);
}

void QueryLogs::EncodeResult(const Result& r, ByteWriter& w) {
  w.String(EvidenceStatusString(r.evidence_status));
  w.String(r.tool_call_id);
  w.String(r.topic);
  w.String(r.query);
  w.Int(r.lookback_minutes);
  w.Varint(r.events.size());
  for (const LogEvent& e : r.events) {
    w.String(e.timestamp);
    w.OptionalString(e.level);
    w.OptionalString(e.service);
    w.String(e.message);
  }
  w.Varint(r.returned_count);
  w.Bool(r.truncated);
}

QueryLogs::Result QueryLogs::DecodeResult(ByteReader& r) {
  LogsResult l;
  l.evidence_status = r.Named(kAllEvidenceStatuses, EvidenceStatusString);
  l.tool_call_id = r.String();
  l.topic = r.String();
  l.query = r.String();
  l.lookback_minutes = r.Int();
  std::size_t n = r.Count();
  for (std::size_t i = 0; i < n && r.ok(); ++i) {
    LogEvent e;
    e.timestamp = r.String();
    e.level = r.OptionalString();
    e.service = r.OptionalString();
    e.message = r.String();
    l.events.push_back(std::move(e));
  }
  l.returned_count = r.Size();
  l.truncated = r.Bool();
  return l;
}

}  // namespace logs
}  // namespace diagd::tools
