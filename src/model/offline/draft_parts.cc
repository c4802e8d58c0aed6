// Findings, limitations and next steps of the draft (conclusion_writer.h).
#include <algorithm>

#include "core/text.h"
#include "model/offline/conclusion_writer.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

bool IsEn(const InvestigationState& state) { return state.lang == Lang::kEn; }

std::string Q(const std::string& s, bool en) { return en ? "\"" + s + "\"" : "“" + s + "”"; }

std::string JoinList(const std::vector<std::string>& items, bool en) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : (en ? ", " : "、")) + item;
  return out;
}

std::string Lookback(const CallRecord& call, bool en) {
  int minutes = call.lookback_used > 0 ? call.lookback_used : call.input.lookback.value_or(0);
  if (minutes <= 0) return en ? "the default window" : "默认时间窗";
  return en ? "the last " + std::to_string(minutes) + " minutes"
            : "最近 " + std::to_string(minutes) + " 分钟";
}

// The first text cell of at least 4 characters, preferring `prefer`.
std::string TextCell(const CallRecord& call, const std::string& prefer = {}) {
  if (!prefer.empty()) {
    for (const auto& row : call.rows) {
      for (const auto& cell : row) {
        if (cell.is_text && cell.text == prefer) return cell.text;
      }
    }
  }
  for (const auto& row : call.rows) {
    for (const auto& cell : row) {
      if (cell.is_text && text::CodePointCount(cell.text) >= 4) return CutPrefix(cell.text, 120);
    }
  }
  return {};
}

std::optional<DraftFinding> LogsFinding(const CallRecord& call, bool en) {
  std::vector<std::string> messages, levels;
  for (const auto& event : call.events) {
    messages.push_back(event.message);
    levels.push_back(event.level);
  }
  auto groups = GroupByTemplate(messages, levels);
  if (groups.empty()) return std::nullopt;
  const std::string& message = call.events[groups.front().members.front()].message;
  std::string lead = ReadMessage(message).lead;
  std::string quote = text::CodePointCount(lead) >= 4 ? lead : BestPhrase(message);
  if (text::CodePointCount(quote) < 4) return std::nullopt;
  std::string count =
      std::to_string(groups.front().members.size()) + "/" + std::to_string(call.events.size());
  std::string newest = call.events.back().timestamp;
  std::string statement =
      en ? call.input.topic + " (" + call.input.query + ", " + Lookback(call, true) +
               "): " + std::to_string(groups.size()) + (groups.size() == 1 ? " kind" : " kinds") +
               " of message; the most frequent is " + Q(quote, true) + " (" + count +
               " of the returned events, newest at " + newest + ")."
         : call.input.topic + "（" + call.input.query + "，" + Lookback(call, false) +
               "）按模板归为 " + std::to_string(groups.size()) + " 类，最多的是" + Q(quote, false) +
               "（返回事件中占 " + count + "，最新一条在 " + newest + "）。";
  return DraftFinding{call.id, true, statement, quote};
}

std::string DescribeNoEvidence(const CallRecord& call, bool en) {
  switch (call.tool) {
    case ToolKind::kLogs:
      return en ? call.input.topic + ": no event matched " + Q(call.input.query, true) + " in " +
                      Lookback(call, true) + "."
                : call.input.topic + " 在" + Lookback(call, false) + "内没有匹配 " +
                      Q(call.input.query, false) + " 的日志。";
    case ToolKind::kDocuments:
      return en ? "No document section matched " + Q(call.input.query, true) + "."
                : "文档中没有与" + Q(call.input.query, false) + "相关的段落。";
    case ToolKind::kMetrics:
      return en ? "No metrics series matched " + Q(call.input.query, true) + " in " +
                      Lookback(call, true) + "."
                : "在" + Lookback(call, false) + "内没有与 " + Q(call.input.query, false) +
                      " 匹配的指标序列。";
    default:
      return en ? "The query on " + call.input.datasource + " returned no rows."
                : "数据源 " + call.input.datasource + " 上的查询没有返回数据。";
  }
}

bool IsKnownChangeTable(const CaseFile& file, const std::string& datasource,
                        const std::string& name) {
  for (const auto& schema : file.schemas) {
    if (schema.datasource != datasource) continue;
    for (const auto& table : schema.tables) {
      if (table.name == name) return IsChangeTable(table);
    }
  }
  return false;
}

// The tables a schema listing found, quoting the change table when known.
std::optional<DraftFinding> SchemaFinding(const CallRecord& call, const CaseFile& file, bool en) {
  std::vector<std::string> names;
  std::string prefer;
  for (const auto& row : call.rows) {
    if (row.empty() || !row[0].is_text || row[0].text.rfind("sqlite_", 0) == 0) continue;
    names.push_back(row[0].text);
    if (prefer.empty() && IsKnownChangeTable(file, call.input.datasource, row[0].text))
      prefer = row[0].text;
  }
  std::string quote = TextCell(call, prefer);
  if (quote.empty()) return std::nullopt;
  return DraftFinding{
      call.id, true,
      en ? "Datasource " + call.input.datasource + " holds the tables " + JoinList(names, true) +
               "."
         : "数据源 " + call.input.datasource + " 中的表：" + JoinList(names, false) + "。",
      quote};
}

// What a read of a change table found: the change in the window, or none.
std::optional<DraftFinding> ChangeTableFinding(const CallRecord& call, std::size_t index,
                                               const std::string& table, const CaseFile& file,
                                               bool en) {
  if (file.change && file.change->call == index && !file.change->quote.empty()) {
    const ChangeRecord& c = *file.change;
    std::string statement =
        en ? table + ": at " + c.time + " " + c.service +
                 (c.version.empty() ? "" : " " + c.version) +
                 (c.ticket.empty() ? "" : " (" + c.ticket + ")") +
                 (c.version.empty() ? " was changed" : " was deployed") +
                 ", inside the window of the failure: " + Q(CutPrefix(c.summary, 160), true) + "."
           : table + " 记录：" + c.time + " " + c.service +
                 (c.version.empty() ? " 变更" : " 发布 " + c.version) +
                 (c.ticket.empty() ? "" : "（" + c.ticket + "）") + "，在故障时间窗内：" +
                 Q(CutPrefix(c.summary, 160), false) + "。";
    return DraftFinding{call.id, true, statement, c.quote};
  }
  std::string quote = TextCell(call);
  if (quote.empty()) return std::nullopt;
  return DraftFinding{
      call.id, true,
      en ? table + " holds no change of a service of the failing chain in the window of the logs."
         : table + " 中没有在日志时间窗内、涉及故障链路上服务的变更。",
      quote};
}

// Any other query: its first rows, as they came.
std::optional<DraftFinding> RowsFinding(const CallRecord& call, bool en) {
  std::string quote = TextCell(call);
  if (quote.empty()) return std::nullopt;
  std::string summary;
  for (std::size_t r = 0; r < call.rows.size() && r < 6; ++r) {
    std::string row_text;
    for (const auto& cell : call.rows[r])
      row_text += (row_text.empty() ? "" : " ") + (cell.text.empty() ? "-" : cell.text);
    summary += (summary.empty() ? "" : (en ? "; " : "；")) + row_text;
  }
  return DraftFinding{
      call.id, true,
      en ? "On " + call.input.datasource + ": " + summary + " (" + call.input.sql + ")."
         : "数据源 " + call.input.datasource + "：" + summary + "（" + call.input.sql + "）。",
      quote};
}

std::optional<DraftFinding> MysqlFinding(const CallRecord& call, std::size_t index,
                                         const CaseFile& file, bool en) {
  std::string table, order_column;
  if (call.input.sql == kInformationSchemaSql || call.input.sql == kSqliteMasterSql) {
    return SchemaFinding(call, file, en);
  }
  if (ParseChangeQuery(call.input.sql, &table, &order_column)) {
    return ChangeTableFinding(call, index, table, file, en);
  }
  if (ParseResourceQuery(call.input.sql, &table) && file.resource &&
      file.resource->call == index) {
    const ResourceRecord& r = *file.resource;
    std::string cells = JoinList(r.quotes, en);
    return DraftFinding{call.id, true,
                        en ? table + ": the row about what the errors name: " + cells + "."
                           : table + " 中与报错所指对象相符的记录：" + cells + "。",
                        r.quotes.front()};
  }
  return RowsFinding(call, en);
}

// The metrics a call returned: each signal (metric_signals.h), else that
// none of its series rose with the failure, quoting the first.
std::vector<DraftFinding> MetricsFindings(const InvestigationState& state, const CaseFile& file,
                                          std::size_t index) {
  constexpr std::size_t kMaxSignalFindings = 3;
  const CallRecord& call = state.calls[index];
  bool en = IsEn(state);
  std::vector<DraftFinding> findings;
  for (const auto& signal : file.metrics) {
    if (signal.call != index || findings.size() == kMaxSignalFindings) continue;
    findings.push_back(
        {call.id, true, DescribeSignal(state, file, signal) + (en ? "." : "。"), signal.quote});
  }
  if (!findings.empty() || call.series.empty()) return findings;
  const SeriesItem& first = call.series.front();
  if (text::CodePointCount(first.summary) < 4) return findings;
  std::string count = std::to_string(call.series.size());
  findings.push_back(
      {call.id, true,
       en ? count + " series matched " + Q(call.input.query, true) +
                "; none shows saturation, latency or errors rising with the failure."
          : "与 " + Q(call.input.query, false) + " 匹配的 " + count +
                " 个序列中，没有随故障一起上升的饱和度、延迟或错误率。",
       first.summary});
  return findings;
}

}  // namespace

std::string DescribeSignal(const InvestigationState& state, const CaseFile& file,
                           const MetricSignal& signal) {
  bool en = IsEn(state);
  const SeriesItem& series = state.calls[signal.call].series[signal.series];
  std::string labels;
  for (const auto& [key, value] : series.labels) {
    if (key != "__name__") labels += (labels.empty() ? "" : ", ") + key + "=" + value;
  }
  std::string what = signal.name + (labels.empty() ? "" : (en ? " (" + labels + ")" : "（" + labels + "）"));
  std::string onset = FailureOnset(file);
  std::string when;
  if (!onset.empty()) {
    bool before = signal.began < onset;
    when = en ? (before ? ", before the failure was first seen (" : ", as the failure began (") +
                    onset + ")"
              : (before ? "，早于故障首次出现（" : "，与故障同时开始（") + onset + "）";
  }
  std::string limit =
      signal.limit.empty() ? std::string()
                           : (en ? ", reaching its limit of " + signal.limit
                                 : "，达到上限 " + signal.limit);
  const char* kind_en = signal.kind == SignalKind::kSaturation ? "saturation"
                        : signal.kind == SignalKind::kLatency  ? "latency"
                                                               : "error rate";
  const char* kind_zh = signal.kind == SignalKind::kSaturation ? "饱和度"
                        : signal.kind == SignalKind::kLatency  ? "延迟"
                                                               : "错误率";
  if (signal.before.empty()) {
    return en ? what + " (" + kind_en + ") appears only from " + signal.began +
                    " (no samples before it), at about " + signal.after + limit + when
              : what + kind_zh + "自 " + signal.began + " 起才出现（此前没有采样），约 " +
                    signal.after + limit + when;
  }
  if (en) {
    return what + " (" + kind_en + ") rose from about " + signal.before + " to " + signal.after +
           " from " + signal.began + limit + when;
  }
  return what + kind_zh + "自 " + signal.began + " 起由约 " + signal.before + " 升至 " +
         signal.after + limit + when;
}

std::vector<DraftFinding> BuildFindings(const InvestigationState& state, const CaseFile& file) {
  bool en = IsEn(state);
  std::vector<DraftFinding> findings;
  for (std::size_t i = 0; i < state.calls.size(); ++i) {
    const CallRecord& call = state.calls[i];
    if (call.outcome == Outcome::kNoEvidence) {
      findings.push_back({call.id, false, DescribeNoEvidence(call, en), {}});
      continue;
    }
    if (call.outcome != Outcome::kEvidence) continue;
    std::optional<DraftFinding> finding;
    if (call.tool == ToolKind::kLogs) finding = LogsFinding(call, en);
    if (call.tool == ToolKind::kMysql) finding = MysqlFinding(call, i, file, en);
    if (call.tool == ToolKind::kMetrics) {
      auto metrics = MetricsFindings(state, file, i);
      findings.insert(findings.end(), metrics.begin(), metrics.end());
    }
    if (call.tool == ToolKind::kDocuments) {
      for (const auto& hit : file.docs) {
        if (hit.call != i) continue;
        const DocItem& item = call.docs[hit.item];
        std::string where = item.breadcrumb.rfind(item.title, 0) == 0 || item.title.empty()
                                ? item.breadcrumb
                                : item.title + " > " + item.breadcrumb;
        if (where.empty()) where = item.source;
        finding = DraftFinding{
            call.id, true,
            en ? "The runbook section " + Q(where, true) + " speaks to what the logs show."
               : "文档" + Q(where, false) + "一节与日志所见相符。",
            hit.quote};
        break;
      }
    }
    if (finding) findings.push_back(std::move(*finding));
  }
  return findings;
}

// Why a failed call is not evidence; for information_schema on SQLite,
// what the failure meant.
std::string FailedCallNote(const InvestigationState& state, const CallRecord& call, bool en) {
  // The fallback to sqlite_master, when it followed, says what the failure meant.
  bool sqlite_hint =
      call.input.sql == kInformationSchemaSql &&
      std::any_of(state.calls.begin(), state.calls.end(), [&](const CallRecord& other) {
        return other.input.sql == kSqliteMasterSql &&
               other.input.datasource == call.input.datasource;
      });
  std::string what = call.tool == ToolKind::kMysql ? call.input.datasource
                     : call.input.topic.empty()    ? call.input.query
                                                   : call.input.topic;
  std::string reason = call.error_code + (call.message.empty() ? "" : ": " + call.message);
  if (sqlite_hint) {
    return en ? "information_schema is not available on " + call.input.datasource + " (" + reason +
                    "), so its tables were read from sqlite_master (SQLite)."
              : "数据源 " + call.input.datasource + " 不支持 information_schema（" + reason +
                    "），改查 sqlite_master（按 SQLite 处理）。";
  }
  return en ? "A lookup on " + what + " failed (" + reason + ") and is not used as evidence."
            : "对 " + what + " 的查询失败（" + reason + "），不作为证据。";
}

std::vector<std::string> BuildNotes(const InvestigationState& state,
                                    const QuestionAnalysis& analysis, const CaseFile& file) {
  bool en = IsEn(state);
  std::vector<std::string> notes;
  notes.push_back(en ? "Written by diagd's offline rule-based mode (not an LLM): fixed rules over "
                       "the tool results."
                     : "本答复由 diagd 离线规则模式（不是大模型）按固定规则根据工具结果生成。");
  for (const auto& title : file.instruction_like) {
    notes.push_back(
        en ? "The document " + Q(title, true) +
                 " contains instructions addressed to an AI assistant; it was treated as data, not "
                 "followed and not cited."
           : "文档" + Q(title, false) +
                 "含有要求诊断助手改变做法的指令性文字，已按数据处理：未照做、未采信、未引用。");
  }
  bool sampled = false;
  for (std::size_t i = 0; i < state.calls.size(); ++i) {
    const CallRecord& call = state.calls[i];
    bool used = std::any_of(file.docs.begin(), file.docs.end(),
                            [&](const DocHit& hit) { return hit.call == i; });
    bool only_instructions = std::all_of(
        call.docs.begin(), call.docs.end(),
        [](const DocItem& item) { return IsInstructionLike(item.title + "\n" + item.excerpt); });
    if (call.tool == ToolKind::kDocuments && call.outcome == Outcome::kEvidence && !used &&
        !only_instructions) {
      notes.push_back(
          en ? "The sections the search " + Q(call.input.query, true) +
                   " returned do not speak to what was found; they are not used as evidence."
             : "文档检索" + Q(call.input.query, false) +
                   "返回的段落与所查问题无直接关系，未作为证据。");
    }
    if (call.tool == ToolKind::kLogs && call.outcome == Outcome::kEvidence &&
        call.events.size() >= 20)
      sampled = true;
    if (call.outcome == Outcome::kError) notes.push_back(FailedCallNote(state, call, en));
  }
  if (sampled) {
    notes.push_back(
        en ? "Log findings are read from the earliest and newest events each query returned, "
             "grouped by message template; they are samples, not full counts."
           : "日志结论基于每次查询返回的最早与最新事件（按消息模板归类），是抽样而不是全量统计。");
  }
  if (analysis.clock_hour) {
    notes.push_back(en ? "Times in the question are read on the logs' clock (UTC)."
                       : "问题中的时刻按日志时间（UTC）理解。");
  }
  for (const auto& name : analysis.unknown_services) {
    if (!file.hops.empty()) {
      notes.push_back(en ? name + " has no log topic here; it was not investigated."
                         : name + " 没有可查询的日志主题，未能调查。");
    }
  }
  return notes;
}

// What the user could add when the asked-about topics' logs do not tell
// why: the error text, a narrower time, or what changed before the onset.
std::string WhatTheLogsLack(const QuestionAnalysis& analysis, const CaseFile& file, bool en) {
  bool failing = std::any_of(file.hops.begin(), file.hops.end(),
                             [](const LogHop& hop) { return IsFailure(hop); });
  if (!file.hops.empty() && !failing) {
    return en ? "The error text or a narrower time: " + JoinList(analysis.topics, true) +
                    " logged no errors in the window queried, only warnings that show no failure."
              : "报错原文或更准确的时间：" + JoinList(analysis.topics, false) +
                    " 在所查时间窗内没有错误日志，只有不表示故障的告警。";
  }
  if (file.hops.empty()) {
    return en ? "A more precise error text or time range: the logs of " +
                    JoinList(analysis.topics, true) +
                    " show no errors or warnings in the window queried."
              : "更具体的错误信息或时间范围：" + JoinList(analysis.topics, false) +
                    " 在所查时间窗内没有错误或告警日志。";
  }
  // The chain ends at a symptom: say where it ends and what would say why.
  const LogHop& deepest = file.Deepest() ? *file.Deepest() : file.hops.front();
  std::string since = FirstSeenFailure(file);
  std::string before = since.empty() ? std::string() : (en ? " before " : " 在 ") + since;
  return en ? "Why " + deepest.topic +
                  " fails: the data checked shows the failure but no cause recorded" + before +
                  " (a release, a configuration push, an expiry, a deletion, a capacity change). "
                  "Check what changed on " + deepest.topic + " and what it depends on" + before +
                  "."
            : deepest.topic + " 为什么失败：所查数据只显示了故障现象，没有找到" +
                  (since.empty() ? std::string() : since + " 之前") +
                  "记录的原因（发布、配置推送、证书过期、记录删除、容量变化）。请核对" +
                  (since.empty() ? std::string() : since + " 之前 ") + deepest.topic +
                  " 及其依赖的变更。";
}

std::vector<std::string> BuildMissingInfo(const InvestigationState& state,
                                          const QuestionAnalysis& analysis, const CaseFile& file,
                                          bool concluded) {
  bool en = IsEn(state);
  std::vector<std::string> missing;
  std::string topics = JoinList(state.topics, en);
  for (const auto& name : analysis.unknown_services) {
    missing.push_back(en ? "Logs or data of " + name +
                               ": no log topic serves it (the topics are: " + topics + ")."
                         : name + " 的日志或数据：当前没有它的日志主题（可查询的主题：" + topics +
                               "）。");
  }
  if (!analysis.past_day_text.empty() && !concluded) {
    missing.push_back(
        en ? "Logs of " + analysis.past_day_text +
                 ": logs are read backwards from now, and nothing here shows that period."
           : analysis.past_day_text +
                 "的日志：日志只能从当前时间往回查询，现有结果覆盖不到该时段。");
  }
  if (concluded) return missing;
  if (!analysis.HasService()) {
    missing.push_back(en ? "The service or system that fails (log topics: " + topics + ")."
                         : "出问题的服务或系统名（可查询的日志主题：" + topics + "）。");
  }
  if (!analysis.HasConcreteSymptom()) {
    missing.push_back(en ? "The error text or symptom (an error message, HTTP status, alert name)."
                         : "错误信息或现象（报错原文、HTTP 状态码或告警名）。");
  }
  if (!analysis.HasService() && !analysis.lookback_minutes && !analysis.clock_hour &&
      analysis.past_day_text.empty()) {
    missing.push_back(en ? "The time range (for example \"the last 30 minutes\" or a time of day)."
                         : "时间范围（例如“最近 30 分钟”或具体时刻）。");
  }
  if (missing.empty() && !analysis.topics.empty()) {
    missing.push_back(WhatTheLogsLack(analysis, file, en));
  }
  return missing;
}

std::vector<std::string> BuildNextSteps(const InvestigationState& state, const CaseFile& file) {
  bool en = IsEn(state);
  std::vector<std::string> steps;
  if (file.change) {
    const ChangeRecord& c = *file.change;
    std::string previous = c.previous_version.empty() ? "" : " " + c.previous_version;
    if (c.version.empty()) {
      std::string change = c.ticket.empty() ? (en ? "the change" : "这次变更") : c.ticket;
      steps.push_back(en ? "Revert " + change + " on " + c.service +
                               " first, then confirm errors recover."
                         : "先撤销 " + c.service + " 的 " + change + "，再确认错误率恢复。");
    } else {
      steps.push_back(en ? "Roll " + c.service + " back to the previous version" + previous +
                               (c.ticket.empty() ? "" : " (undo " + c.ticket + ")") +
                               " first, then confirm errors and latency recover."
                         : "先回滚 " + c.service + " 到上一版本" + previous +
                               (c.ticket.empty() ? "" : "（撤销 " + c.ticket + "）") +
                               "，再确认错误率与耗时恢复。");
    }
  }
  if (const LogHop* deepest = file.Deepest(); deepest && deepest->reading.full_scan) {
    const MessageReading& r = deepest->reading;
    std::string columns = r.column + (r.second_column.empty() ? "" : ", " + r.second_column);
    steps.push_back(
        en ? "Add an index on " + r.table + " starting with " + r.column + " (e.g. (" + columns +
                 ")), reviewed by the DBAs and run off-peak, before releasing the query again."
           : "为 " + r.table + " 补充以 " + r.column + " 开头的索引（如 (" + columns +
                 ")），经 DBA 评审、避开高峰执行后再重新发布。");
  } else if (!file.change && file.Deepest()) {
    steps.push_back(en ? "Check the changes (releases, configuration, database) of " +
                             file.Deepest()->topic + " around the time the errors began."
                       : "核对 " + file.Deepest()->topic +
                             " 在报错开始前后的发布、配置与数据库变更。");
  }
  // What the runbooks say not to do, in their words (markdown marks dropped).
  for (const auto& hit : file.docs) {
    const DocItem& item = state.calls[hit.call].docs[hit.item];
    for (const char* mark : {"不要", "Do not", "do not", "Don't", "Never"}) {
      std::size_t at = item.excerpt.find(mark);
      if (at == std::string::npos) continue;
      std::string sentence = SentenceAround(item.excerpt, at, 90);
      sentence.erase(std::remove_if(sentence.begin(), sentence.end(),
                                    [](char c) { return c == '*' || c == '`'; }),
                     sentence.end());
      bool seen = std::find(steps.begin(), steps.end(), sentence) != steps.end();
      if (!seen && text::CodePointCount(sentence) >= 8 && steps.size() < 5)
        steps.push_back(sentence);
      break;
    }
  }
  return steps;
}

}  // namespace diagd::model::offline
