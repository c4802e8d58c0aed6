#include "model/offline/conclusion_writer.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>

#include "core/json.h"
#include "core/text.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

namespace bj = boost::json;

constexpr std::size_t kMaxCitations = 7;
// Metrics corroborate the chain: cited beside its other evidence, never
// in place of it.
constexpr std::size_t kMaxMetricCitations = 2;

bool IsEn(const InvestigationState& state) { return state.lang == Lang::kEn; }

std::string Quoted(const std::string& s, bool en) { return en ? "\"" + s + "\"" : "“" + s + "”"; }

// A phrase of the hop's key message to quote: the SQL fragment of a full
// scan; an exception text when it is what names the trouble (a pool, memory,
// a certificate, a refused connection, a slow query, a full disk); else the
// lead words.
std::string HopQuote(const LogHop& hop) {
  if (hop.reading.full_scan && text::CodePointCount(hop.reading.sql_fragment) >= 4) {
    return hop.reading.sql_fragment;
  }
  MessageReading reading = ReadMessage(hop.key_message);
  for (const auto& exception : reading.exceptions) {
    MessageReading inner = ReadMessage(exception);
    if (inner.pool_exhausted || inner.out_of_memory || inner.certificate || inner.refused ||
        inner.slow || inner.space_exhausted) {
      return exception;
    }
  }
  if (text::CodePointCount(reading.lead) >= 6) return reading.lead;
  return BestPhrase(hop.key_message);
}

// The call among the hop's calls whose events hold `quote`.
std::optional<std::size_t> CallHolding(const InvestigationState& state, const LogHop& hop,
                                       const std::string& quote) {
  for (std::size_t c : hop.calls) {
    for (const auto& event : state.calls[c].events) {
      if (event.message.find(quote) != std::string::npos) return c;
    }
  }
  return std::nullopt;
}

std::string Seconds(const std::string& query_time) {
  if (query_time.empty()) return {};
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f", std::atof(query_time.c_str()));
  return buffer;
}

// A query that scans its whole table, in a clause.
std::string DescribeFullScan(const LogHop& hop, bool en) {
  const MessageReading& r = hop.reading;
  std::string sent = std::to_string(r.rows_sent.value_or(0));
  std::string seconds = Seconds(r.query_time);
  if (en) {
    return "on " + hop.topic + " the query filtering " + r.table + " by " + r.column +
           " scans the whole table (" + r.rows_examined_phrase + " for " + sent + " rows sent" +
           (seconds.empty() ? "" : ", Query_time about " + seconds + " s") +
           "): there is no usable index on " + r.column;
  }
  return hop.topic + " 上对 " + r.table + " 按 " + r.column + " 过滤的查询全表扫描（" +
         r.rows_examined_phrase + "，只返回 " + sent + " 行" +
         (seconds.empty() ? "" : "，Query_time 约 " + seconds + " 秒") + "），说明缺少以 " +
         r.column + " 开头的可用索引";
}

// A link that fails calling the next one, `child`, in a clause.
std::string DescribeCall(const LogHop& hop, const std::string& child, bool surface,
                         const std::string& quote, bool en) {
  const MessageReading& r = hop.reading;
  std::string extra;
  // The second kind of failure of the surface ("FAILED" next to "TIMEOUT").
  if (surface && hop.groups.size() > 1) {
    const std::string& other = hop.events[hop.groups[1].members.front()].message;
    std::string lead = ReadMessage(other).lead;
    if (text::CodePointCount(lead) >= 6 &&
        hop.groups[1].members.size() * 5 >= hop.events.size()) {
      extra = Quoted(lead, en);
    }
  }
  if (r.timeout && !r.server_error) {
    return en ? hop.topic + " times out calling " + child + " (" + quote + extra + ")"
              : hop.topic + " 调用 " + child + " 超时（" + quote + extra + "）";
  }
  return en ? hop.topic + " fails calling " + child + " (" + quote + extra + ")"
            : hop.topic + " 调用 " + child + " 失败（" + quote + extra + "）";
}

// What one link of the chain shows, in a clause.
std::string DescribeHop(const InvestigationState& state, const LogHop& hop,
                        const std::string& child, bool surface) {
  bool en = IsEn(state);
  const MessageReading& r = hop.reading;
  std::string quote = Quoted(HopQuote(hop), en);
  if (r.full_scan) return DescribeFullScan(hop, en);
  if (r.pool_exhausted) {
    return en ? hop.topic + "'s database connection pool runs dry (" + quote + ")"
              : hop.topic + " 的数据库连接池被占满（" + quote + "）";
  }
  if (r.slow) {
    return en ? hop.topic + " logs many slow queries (" + quote + ")"
              : hop.topic + " 出现大量慢查询（" + quote + "）";
  }
  if (!child.empty()) return DescribeCall(hop, child, surface, quote, en);
  if (r.out_of_memory) {
    return en ? hop.topic + " runs out of memory (" + quote + ")"
              : hop.topic + " 内存耗尽（" + quote + "）";
  }
  if (r.certificate) {
    return en ? hop.topic + " fails certificate validation (" + quote + ")"
              : hop.topic + " 证书校验失败（" + quote + "）";
  }
  if (r.refused) {
    return en ? hop.topic + " gets connections refused (" + quote + ")"
              : hop.topic + " 连接被拒绝（" + quote + "）";
  }
  if (r.timeout) {
    return en ? hop.topic + " times out (" + quote + ")" : hop.topic + " 大量超时（" + quote + "）";
  }
  if (r.space_exhausted) {
    return en ? hop.topic + " reports a full disk (" + quote + ")"
              : hop.topic + " 报告磁盘已满（" + quote + "）";
  }
  if (r.backlog) {
    return en ? hop.topic + " falls behind, its batches slower (" + quote + ")"
              : hop.topic + " 消费变慢、积压上涨（" + quote + "）";
  }
  if (r.rate_limited) {
    return en ? hop.topic + " rejects requests by a rate limit (" + quote + ")"
              : hop.topic + " 对请求限流（" + quote + "）";
  }
  return en ? hop.topic + " logs many errors (" + quote + ")"
            : hop.topic + " 大量报错（" + quote + "）";
}

bool MeansNone(const std::string& value) {
  std::string v = text::AsciiLower(std::string(Trim(value)));
  return v == "无" || v == "none" || v == "-" || v == "n/a" || v == "no";
}

std::string DescribeChange(const InvestigationState& state, const ChangeRecord& change) {
  bool en = IsEn(state);
  std::string when =
      change.time + (change.ticket.empty() ? "" : (en ? ", " : "，") + change.ticket);
  std::string summary = CutPrefix(change.summary, 160);
  std::string db = MeansNone(change.db_change)
                       ? (en ? ", shipped without a database change (" + change.db_change_column +
                                   ": " + change.db_change + ")"
                             : "，且未附带数据库变更（" + change.db_change_column + "：" +
                                   change.db_change + "）")
                       : std::string();
  // A configuration push: what it set, then what its author wrote.
  if (!change.key.empty() && !change.new_value.empty()) {
    std::string from = change.old_value.empty() ? std::string() : change.old_value;
    if (en) {
      return change.service + " was changed (" + when + "): " + change.key +
             (from.empty() ? "" : " from " + from) + " to " + change.new_value + " (" +
             Quoted(summary, true) + ")";
    }
    return change.service + " 发生配置变更（" + when + "）：" + change.key +
           (from.empty() ? "" : " 由 " + from) + " 改为 " + change.new_value + "（" +
           Quoted(summary, false) + "）";
  }
  // A row without a version is a configuration change, not a release.
  if (change.version.empty()) {
    return en ? change.service + " was changed (" + when + "): " + Quoted(summary, true) + db
              : change.service + " 发生变更（" + when + "）：" + Quoted(summary, false) + db;
  }
  if (en) {
    return change.service + " " + change.version + " was deployed (" + when + ") with the change " +
           Quoted(summary, true) + db;
  }
  return change.service + " " + change.version + " 发布（" + when + "）引入变更" +
         Quoted(summary, false) + db;
}

// The symptom as the question put it: its HTTP statuses, else its first
// specific word; nothing when it only says that something fails.
std::string SymptomClause(const InvestigationState& state, const QuestionAnalysis& analysis) {
  if (analysis.symptoms.empty()) return {};
  std::string words;
  for (const auto& symptom : analysis.symptoms) {
    bool status = symptom.word.size() == 3 && symptom.word[0] == '5';
    if (status) words += (words.empty() ? "" : "/") + symptom.word;
  }
  // Else its first specific symptom ("超时", "latency"); "fail" or "报错"
  // would only repeat that something fails.
  for (const auto& symptom : analysis.symptoms) {
    if (!words.empty()) break;
    if (!symptom.generic && !symptom.vague) words = symptom.word;
  }
  if (words.empty()) return {};
  return IsEn(state) ? ", which is the " + words + " the question is about"
                     : "，即问题中所说的" + Quoted(words, false);
}

// The heading of a runbook section: the cause it names ("客户端证书过期").
std::string SectionHeading(const InvestigationState& state, const DocHit& hit) {
  const DocItem& item = state.calls[hit.call].docs[hit.item];
  std::string_view crumb = item.breadcrumb.empty() ? item.title : item.breadcrumb;
  auto last = crumb.rfind(" > ");
  return std::string(Trim(last == std::string_view::npos ? crumb : crumb.substr(last + 3)));
}

// The runbook's cause and the row that confirms it.
std::string DescribeResource(const InvestigationState& state, const CaseFile& file,
                             const ResourceRecord& resource) {
  constexpr std::size_t kMaxCells = 6;
  bool en = IsEn(state);
  std::string cells;
  for (std::size_t i = 0; i < resource.quotes.size() && i < kMaxCells; ++i) {
    if (i > 0) cells += en ? ", " : "，";
    cells += Quoted(resource.quotes[i], en);
  }
  std::string heading = resource.doc >= 0
                            ? SectionHeading(state, file.docs[static_cast<std::size_t>(resource.doc)])
                            : std::string();
  if (en) {
    std::string text = heading.empty() ? std::string("; ")
                                       : "; the runbook section " + Quoted(heading, true) +
                                             " names the cause, and ";
    text += resource.table;
    text += " confirms it: ";
    return text + cells;
  }
  std::string text = heading.empty() ? std::string("；")
                                     : "；Runbook 中“" + heading + "”一节所指的原因，";
  text += "由 ";
  text += resource.table;
  text += " 的记录证实：";
  return text + cells;
}

// The signals about the chain's own components (a label names one of its
// topics), in order, at most kMaxMetricCitations: what the metrics add to
// the chain. A signal about something else stays a finding.
std::vector<const MetricSignal*> CorroboratingSignals(const CaseFile& file) {
  std::vector<const MetricSignal*> agreeing;
  for (const auto& signal : file.metrics) {
    if (signal.about_chain && agreeing.size() < kMaxMetricCitations) agreeing.push_back(&signal);
  }
  return agreeing;
}

std::string RootCause(const InvestigationState& state, const QuestionAnalysis& analysis,
                      const CaseFile& file) {
  bool en = IsEn(state);
  std::vector<std::string> clauses;
  for (std::size_t p = file.chain.size(); p-- > 0;) {
    const LogHop& hop = file.hops[file.chain[p]];
    // "X 调用 Y 失败" only where X's errors name Y; a link a runbook made
    // is no call.
    const LogHop* below = p + 1 < file.chain.size() ? &file.hops[file.chain[p + 1]] : nullptr;
    std::string child = below && !below->linked_by_runbook ? below->topic : std::string();
    clauses.push_back(DescribeHop(state, hop, child, p == 0 && file.chain.size() > 1));
  }
  std::string text;
  if (file.change)
    text = DescribeChange(state, *file.change) + (en ? "; after it, " : "；上线后，");
  for (std::size_t i = 0; i < clauses.size(); ++i) {
    if (i > 0) {
      bool last = i + 1 == clauses.size();
      text += en ? (last ? "; in the end " : "; then ") : (last ? "；最终，" : "；进而，");
    }
    text += clauses[i];
  }
  text += SymptomClause(state, analysis);
  if (file.resource) text += DescribeResource(state, file, *file.resource);
  std::vector<const MetricSignal*> agreeing = CorroboratingSignals(file);
  for (std::size_t i = 0; i < agreeing.size(); ++i) {
    text += i > 0 ? (en ? "; " : "；") : (en ? "; the metrics agree: " : "；指标印证：");
    text += DescribeSignal(state, file, *agreeing[i]);
  }
  return text + (en ? "." : "。");
}

std::vector<DraftCitation> Citations(const InvestigationState& state, const CaseFile& file) {
  std::vector<DraftCitation> citations;
  std::size_t cap = kMaxCitations;
  auto add = [&](std::size_t call, const std::string& quote) {
    if (text::CodePointCount(quote) < 4 || citations.size() >= cap) return;
    DraftCitation citation{state.calls[call].id, quote};
    bool seen = std::any_of(citations.begin(), citations.end(), [&](const DraftCitation& c) {
      return c.call_id == citation.call_id && c.quote == citation.quote;
    });
    if (!seen) citations.push_back(citation);
  };
  for (std::size_t p = file.chain.size(); p-- > 0;) {
    const LogHop& hop = file.hops[file.chain[p]];
    std::string quote = HopQuote(hop);
    if (auto call = CallHolding(state, hop, quote)) add(*call, quote);
    if (hop.reading.full_scan) {
      if (auto call = CallHolding(state, hop, hop.reading.rows_examined_phrase)) {
        add(*call, hop.reading.rows_examined_phrase);
      }
    }
  }
  if (file.change && !file.change->quote.empty()) add(file.change->call, file.change->quote);
  if (file.resource) {
    for (std::size_t i = 0; i < file.resource->quotes.size() && i < 2; ++i) {
      add(file.resource->call, file.resource->quotes[i]);
    }
    if (file.resource->doc >= 0) {
      const DocHit& hit = file.docs[static_cast<std::size_t>(file.resource->doc)];
      add(hit.call, hit.quote);
    }
  }
  // The best runbook section for each link, deepest first, two at most.
  std::size_t documents = 0;
  for (std::size_t p = file.chain.size(); p-- > 0 && documents < 2;) {
    for (const auto& hit : file.docs) {
      if (hit.chain_position != static_cast<int>(p)) continue;
      add(hit.call, hit.quote);
      ++documents;
      break;
    }
  }
  cap = citations.size() + kMaxMetricCitations;
  for (const MetricSignal* signal : CorroboratingSignals(file)) add(signal->call, signal->quote);
  return citations;
}

}  // namespace

Draft BuildDraft(const InvestigationState& state, const QuestionAnalysis& analysis,
                 const CaseFile& file) {
  Draft draft;
  // A conclusion names why, not only what: the chain must end at a cause the
  // data records before the failure, a change that fits it (FindChangeRecord:
  // before the failure, about what the errors show) or a resource that
  // expired or went down (FindResourceRecord). A chain that ends at a
  // symptom (an error, a timeout, a full disk, an exhausted pool, a failing
  // dependency) says where it hurts: findings, and what to check next. A
  // runbook section that speaks to the symptom corroborates a cause; it is
  // none by itself.
  bool failing = std::any_of(file.chain.begin(), file.chain.end(),
                             [&](std::size_t position) { return IsFailure(file.hops[position]); });
  bool holds = failing && (file.change.has_value() || (file.resource && file.resource->says_why));
  if (holds) {
    DraftConclusion conclusion;
    conclusion.root_cause = RootCause(state, analysis, file);
    int kinds = 1 + (file.change ? 1 : 0) + (file.resource ? 1 : 0) + (file.docs.empty() ? 0 : 1) +
                (CorroboratingSignals(file).empty() ? 0 : 1);
    conclusion.confidence = kinds >= 3 ? "HIGH" : kinds == 2 ? "MEDIUM" : "LOW";
    conclusion.evidence = Citations(state, file);
    if (!conclusion.evidence.empty()) draft.conclusion = std::move(conclusion);
  }
  draft.findings = BuildFindings(state, file);
  draft.missing_info = BuildMissingInfo(state, analysis, file, draft.conclusion.has_value());
  draft.notes = BuildNotes(state, analysis, file);
  if (draft.conclusion) draft.next_steps = BuildNextSteps(state, file);
  return draft;
}

std::string DraftToJson(const Draft& draft) {
  bj::object root;
  if (draft.conclusion) {
    bj::array evidence;
    for (const auto& c : draft.conclusion->evidence) {
      evidence.push_back(bj::object{{"tool_call_id", c.call_id}, {"quote", c.quote}});
    }
    root["conclusion"] = bj::object{{"root_cause", draft.conclusion->root_cause},
                                    {"confidence", draft.conclusion->confidence},
                                    {"evidence", std::move(evidence)}};
  } else {
    root["conclusion"] = nullptr;
  }
  bj::array findings;
  for (const auto& f : draft.findings) {
    bj::object finding{{"tool_call_id", f.call_id},
                       {"kind", f.found ? "FOUND" : "NOT_FOUND"},
                       {"statement", f.statement}};
    if (f.found) finding["quote"] = f.quote;
    findings.push_back(std::move(finding));
  }
  root["findings"] = std::move(findings);
  bj::array missing, notes, steps;
  for (const auto& m : draft.missing_info) missing.emplace_back(m);
  for (const auto& n : draft.notes) notes.emplace_back(n);
  for (const auto& s : draft.next_steps) steps.emplace_back(s);
  root["limitations"] =
      bj::object{{"missing_info", std::move(missing)}, {"notes", std::move(notes)}};
  root["next_steps"] = std::move(steps);
  return json::Serialize(root);
}

}  // namespace diagd::model::offline
