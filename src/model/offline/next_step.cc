#include "model/offline/next_step.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "core/json.h"
#include "core/text.h"
#include "model/offline/metric_queries.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

namespace bj = boost::json;

constexpr std::size_t kMaxPrimaryTopics = 2;
constexpr std::size_t kMaxDatasources = 2;
constexpr std::size_t kMaxDocQueryCodePoints = 100;
// The best sections whose topics are followed for the deepest link.
constexpr std::size_t kMaxPointingSections = 2;
constexpr std::size_t kMaxSharedTopics = 3;
constexpr std::size_t kMaxChangeTopics = 2;
constexpr int kChangeLookbackMinutes = 1440;
constexpr long kBeforeOnsetMinutes = 30;

struct Candidate {
  ToolKind tool = ToolKind::kOther;
  CallInput input;
};

std::string InputJson(const Candidate& c) {
  bj::object input;
  switch (c.tool) {
    case ToolKind::kDocuments:
      input["query"] = c.input.query;
      break;
    case ToolKind::kLogs:
      if (c.input.shared_topic.empty()) {
        input["topic"] = c.input.topic;
        input["query"] = c.input.query;
      } else {
        input["topic"] = c.input.shared_topic;
        input["query"] = "service:" + c.input.topic + " " + c.input.query;
      }
      if (c.input.lookback) input["lookback_minutes"] = *c.input.lookback;
      break;
    case ToolKind::kMysql: {
      input["datasource"] = c.input.datasource;
      input["sql"] = c.input.sql;
      bj::array params;
      for (const auto& p : c.input.params) params.emplace_back(p);
      input["params"] = std::move(params);
      break;
    }
    case ToolKind::kMetrics:
      input["query"] = c.input.query;
      if (c.input.lookback) input["lookback_minutes"] = *c.input.lookback;
      break;
    case ToolKind::kOther:
      break;
  }
  return json::Serialize(input);
}

bool SameScope(const Candidate& c, const CallRecord& call) {
  if (c.tool != call.tool) return false;
  switch (c.tool) {
    case ToolKind::kDocuments:
      return text::CollapseWhitespace(c.input.query) == text::CollapseWhitespace(call.input.query);
    case ToolKind::kLogs:
      return c.input.topic == call.input.topic && c.input.shared_topic == call.input.shared_topic &&
             text::CollapseWhitespace(c.input.query) ==
                 text::CollapseWhitespace(call.input.query) &&
             c.input.lookback == call.input.lookback;
    case ToolKind::kMysql:
      return c.input.datasource == call.input.datasource && c.input.sql == call.input.sql;
    case ToolKind::kMetrics:
      return text::CollapseWhitespace(c.input.query) ==
                 text::CollapseWhitespace(call.input.query) &&
             c.input.lookback == call.input.lookback;
    case ToolKind::kOther:
      break;
  }
  return false;
}

bool Tried(const Candidate& c, const InvestigationState& state) {
  return std::any_of(state.calls.begin(), state.calls.end(), [&](const CallRecord& call) {
    return call.outcome != Outcome::kViolation && SameScope(c, call);
  });
}

// Any logs call on `topic` that ran or was refused for its input.
bool TopicQueried(const InvestigationState& state, const std::string& topic) {
  return std::any_of(state.calls.begin(), state.calls.end(), [&](const CallRecord& call) {
    return call.tool == ToolKind::kLogs && call.input.topic == topic &&
           call.outcome != Outcome::kViolation;
  });
}

bool NoEvidenceFor(const InvestigationState& state, const std::string& topic,
                   const std::string& query) {
  return std::any_of(state.calls.begin(), state.calls.end(), [&](const CallRecord& call) {
    return call.tool == ToolKind::kLogs && call.input.topic == topic && call.input.query == query &&
           call.outcome == Outcome::kNoEvidence;
  });
}

// The errors a call returned neither show the question's specific symptom
// ("504", not "报错", which any error shows) nor name a failure: a business
// rejection, not what the question is about. The warnings may say what is.
bool ErrorsTellNothing(const InvestigationState& state, const std::string& topic,
                       const std::string& query, const QuestionAnalysis& analysis) {
  return std::any_of(state.calls.begin(), state.calls.end(), [&](const CallRecord& call) {
    return call.tool == ToolKind::kLogs && call.input.topic == topic &&
           call.input.query == query && call.outcome == Outcome::kEvidence &&
           analysis.HasSpecificSymptom() &&
           std::none_of(call.events.begin(), call.events.end(), [&](const EventItem& e) {
             return TellsFailure(e.message, analysis);
           });
  });
}

std::optional<int> Lookback(const QuestionAnalysis& analysis) {
  if (analysis.lookback_minutes) return analysis.lookback_minutes;
  // "Yesterday" is further back than the default window; the harness clamps
  // this to its maximum and the observation shows what was used.
  if (!analysis.past_day_text.empty()) return 1440;
  return std::nullopt;
}

Candidate Logs(const std::string& topic, const std::string& query,
               const QuestionAnalysis& analysis) {
  Candidate c;
  c.tool = ToolKind::kLogs;
  c.input.topic = topic;
  c.input.query = query;
  c.input.lookback = Lookback(analysis);
  return c;
}

Candidate Docs(const std::string& query) {
  Candidate c;
  c.tool = ToolKind::kDocuments;
  c.input.query = CutPrefix(text::CollapseWhitespace(query), kMaxDocQueryCodePoints);
  return c;
}

Candidate Sql(const std::string& datasource, const std::string& sql,
              std::vector<std::string> params = {}) {
  Candidate c;
  c.tool = ToolKind::kMysql;
  c.input.datasource = datasource;
  c.input.sql = sql;
  c.input.params = std::move(params);
  return c;
}

// Errors first; infrastructure logs its trouble as warnings (slow queries,
// evictions), and slowness is a warning anywhere. Without errors, warnings.
void AddTopicQueries(const std::string& topic, bool slowness, const InvestigationState& state,
                     const QuestionAnalysis& analysis, std::vector<Candidate>& out) {
  std::string shared = SharedTopicOf(state, topic);
  auto logs = [&](const char* query) {
    Candidate c = Logs(topic, query, analysis);
    c.input.shared_topic = shared;
    out.push_back(std::move(c));
  };
  if (IsInfraTopic(topic) || slowness) {
    logs("level:WARN,ERROR");
    return;
  }
  logs("level:ERROR");
  if (NoEvidenceFor(state, topic, "level:ERROR") ||
      ErrorsTellNothing(state, topic, "level:ERROR", analysis))
    logs("level:WARN");
}

std::string DocQueryFor(const LogHop& hop, Lang lang) {
  if (hop.reading.full_scan) {
    return lang == Lang::kEn ? "Rows_examined full table scan index"
                             : "Rows_examined 全表扫描 索引";
  }
  for (const auto& exception : hop.reading.exceptions) {
    if (text::CodePointCount(exception) >= 12) return exception;
  }
  if (text::CodePointCount(hop.reading.lead) >= 4) return hop.reading.lead;
  return BestPhrase(hop.key_message);
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

std::vector<std::string> SymptomWords(const QuestionAnalysis& analysis) {
  std::vector<std::string> words;
  for (const auto& symptom : analysis.symptoms) words.push_back(symptom.word);
  return words;
}

bool Slowness(const QuestionAnalysis& analysis) {
  return std::any_of(analysis.symptoms.begin(), analysis.symptoms.end(),
                     [](const Symptom& s) { return s.slowness; });
}

// Where requests come in, by name.
constexpr const char* kEntryMarks[] = {"gateway", "nginx", "ingress", "api",
                                       "frontend", "web",   "edge"};

bool IsEntryTopic(const std::string& topic) {
  return std::any_of(std::begin(kEntryMarks), std::end(kEntryMarks),
                     [&](const char* mark) { return ContainsFold(topic, mark); });
}

// The entry topic, else the first topic (a start when none is named so).
std::vector<std::string> EntryTopics(const InvestigationState& state) {
  for (const char* mark : kEntryMarks) {
    for (const auto& topic : state.topics) {
      if (ContainsFold(topic, mark)) return {topic};
    }
  }
  if (!state.topics.empty()) return {state.topics.front()};
  return {};
}

void AddSqlCandidates(const CaseFile& file, bool change_step, std::vector<Candidate>& out) {
  std::size_t used = 0;
  for (const auto& schema : file.schemas) {
    if (used++ == kMaxDatasources) break;
    if (!schema.known) {
      if (!change_step) continue;
      if (schema.described_as_sqlite) {
        if (!schema.tried_sqlite_master) out.push_back(Sql(schema.datasource, kSqliteMasterSql));
      } else if (!schema.tried_information_schema) {
        out.push_back(Sql(schema.datasource, kInformationSchemaSql));
      } else if (schema.information_schema_failed && !schema.tried_sqlite_master) {
        out.push_back(Sql(schema.datasource, kSqliteMasterSql));
      }
      continue;
    }
    if (change_step) {
      for (const TableInfo* table : ChangeTables(schema)) {
        out.push_back(Sql(schema.datasource, ChangeQuerySql(*table)));
      }
      continue;
    }
    std::vector<std::string> stems;
    for (auto it = file.chain.rbegin(); it != file.chain.rend(); ++it) {
      stems.push_back(text::AsciiLower(TopicStem(file.hops[*it].topic)));
    }
    if (const TableInfo* table = FindStatusTable(schema, stems)) {
      std::string since = file.latest_time.empty()
                              ? std::string()
                              : MinusMinutes(file.latest_time, std::max(file.window_minutes, 1));
      std::string sql = StatusQuerySql(*table, !since.empty());
      bool bound = sql.find('?') != std::string::npos;
      out.push_back(Sql(schema.datasource, sql,
                        bound ? std::vector<std::string>{since} : std::vector<std::string>{}));
    }
  }
}

// The tables the runbook sections about the chain tell a reader to check
// ("the partner's status (`vendor_status`)"): where the cause they name is
// confirmed or not.
void AddResourceCandidates(const InvestigationState& state, const CaseFile& file,
                           std::vector<Candidate>& out) {
  for (const auto& hit : file.docs) {
    if (hit.chain_position < 0) continue;
    const std::string& excerpt = state.calls[hit.call].docs[hit.item].excerpt;
    std::size_t used = 0;
    for (const auto& schema : file.schemas) {
      if (used++ == kMaxDatasources || !schema.known) continue;
      for (const TableInfo* table : TablesNamedIn(schema, excerpt)) {
        out.push_back(Sql(schema.datasource, ResourceQuerySql(*table)));
      }
    }
  }
}

// The topics a search for a name may read, at most three: neither
// infrastructure, the entry nor a change log, and, for a service's own
// events, not named after another service (order-service holds no other).
std::vector<std::string> SearchableTopics(const InvestigationState& state, bool for_a_service) {
  std::vector<std::string> topics;
  for (const auto& topic : state.topics) {
    if (IsInfraTopic(topic) || IsEntryTopic(topic) || IsChangeTopic(topic) ||
        (for_a_service && IsServiceName(topic))) {
      continue;
    }
    if (topics.size() == kMaxSharedTopics) break;
    topics.push_back(topic);
  }
  return topics;
}

// `service:NAME level:ERROR` for a service with no topic of its own, in the
// topics several services may share.
void AddSharedTopicQueries(const InvestigationState& state, const std::string& service,
                           const QuestionAnalysis& analysis, std::vector<Candidate>& out) {
  for (const auto& topic : SearchableTopics(state, true)) {
    Candidate c = Logs(service, "level:ERROR", analysis);
    c.input.shared_topic = topic;
    out.push_back(std::move(c));
  }
}

// Changes not kept in a table: the audit and deploy logs, read over a day
// (the harness clamps it to its maximum), and a change notice among the
// documents, looked up by the host, path or table the errors name.
void AddChangeRecordElsewhere(const InvestigationState& state, const CaseFile& file,
                              std::vector<Candidate>& out) {
  if (state.offers_logs) {
    std::size_t used = 0;
    for (const auto& topic : state.topics) {
      if (!IsChangeTopic(topic) || used++ == kMaxChangeTopics) continue;
      Candidate c = Logs(topic, "", QuestionAnalysis{});
      c.input.lookback = kChangeLookbackMinutes;
      out.push_back(std::move(c));
    }
  }
  if (!state.offers_documents) return;
  std::vector<std::string> things = ThingsTheErrorsName(file);
  // A host, else a directory (a path's first two components: the whole
  // path names one file).
  std::erase_if(things, [](const std::string& thing) {
    return thing.front() == '/' && std::count(thing.begin(), thing.end(), '/') > 2;
  });
  auto host = std::find_if(things.begin(), things.end(),
                           [](const std::string& thing) { return thing.front() != '/'; });
  const LogHop* deepest = file.Deepest();
  for (const auto& ticket : UndatedChangeNotices(state)) out.push_back(Docs(ticket));
  // The change words rank a notice about the thing above the runbooks
  // that merely name it.
  const char* const kChangeWords = " change 变更";
  if (host != things.end()) {
    out.push_back(Docs(*host + kChangeWords));
  } else if (deepest != nullptr && !deepest->reading.table.empty()) {
    out.push_back(Docs(deepest->reading.table + kChangeWords));
  } else if (!things.empty()) {
    out.push_back(Docs(things.front() + kChangeWords));
  }
}

// `level:ERROR "<thing>"` over the searchable topics, for the first thing
// the question names.
void AddThingQueries(const InvestigationState& state, const QuestionAnalysis& analysis,
                     std::vector<Candidate>& out) {
  if (analysis.things.empty()) return;
  std::string query = "level:ERROR \"" + analysis.things.front() + "\"";
  bool found = std::any_of(state.calls.begin(), state.calls.end(), [&](const CallRecord& call) {
    return call.tool == ToolKind::kLogs && call.input.query == query &&
           call.outcome == Outcome::kEvidence;
  });
  if (found) return;  // the errors that name it are where the chain starts
  for (const auto& topic : SearchableTopics(state, false)) out.push_back(Logs(topic, query, analysis));
}

// What the platform says about a failing service: for one that restarts
// ("不停重启", "connection closed while the pod restarted") the events say
// why a pod went (OOMKilled, a failed probe), read for its name; for a full
// disk the host agents say which host's mount filled. Both levels.
void AddPlatformQueries(const InvestigationState& state, const QuestionAnalysis& analysis,
                             const CaseFile& file, std::vector<Candidate>& out) {
  if (file.chain.empty()) return;
  const std::string& service = file.hops[file.chain.front()].topic;
  static const char* const kRestart[] = {"restart", "重启", "killed", "crashloop", "evicted"};
  auto speaks = [&](const std::string& text) {
    return std::any_of(std::begin(kRestart), std::end(kRestart),
                       [&](const char* word) { return ContainsFold(text, word); });
  };
  bool restarts = speaks(state.question);
  bool disk_full = false;
  for (std::size_t position : file.chain) {
    restarts |= speaks(file.hops[position].key_message);
    disk_full |= file.hops[position].reading.space_exhausted;
  }
  for (const auto& topic : state.topics) {
    std::string lower = text::AsciiLower(topic);
    bool events = lower.find("event") != std::string::npos || lower.find("kubelet") != std::string::npos;
    // A full disk: the host agents report each host's mounts.
    bool host_agent = lower.find("agent") != std::string::npos &&
                      (lower.find("node") != std::string::npos || lower.find("host") != std::string::npos);
    if (TopicQueried(state, topic)) continue;
    if (restarts && events) out.push_back(Logs(topic, "\"" + service + "\" level:WARN,ERROR", analysis));
    if (disk_full && host_agent) out.push_back(Logs(topic, "level:WARN,ERROR", analysis));
  }
}

// A service with no topic of its own may write into one that several
// services share ("platform-apps", the [service] or "service" field of each
// event tells them apart): look for its errors there. Then a short check
// that the service really is unknown here; the data cannot answer for it
// either way.
void AddUnknownServiceQueries(const InvestigationState& state, const QuestionAnalysis& analysis,
                              std::vector<Candidate>& plan) {
  std::size_t asked = 0;
  for (const auto& service : analysis.unknown_services) {
    if (state.offers_logs && asked++ < kMaxPrimaryTopics)
      AddSharedTopicQueries(state, service, analysis, plan);
  }
  if (state.offers_documents) {
    plan.push_back(Docs(Join(analysis.unknown_services) + " " + Join(SymptomWords(analysis))));
  }
}

// The window read begins after the time the question gives: read from half
// an hour before it, so that its first errors (13.6: the earliest matches
// come back) show when it began.
void AddOnsetQueries(const InvestigationState& state, const QuestionAnalysis& analysis,
                     const CaseFile& file, const std::vector<std::string>& primaries,
                     std::vector<Candidate>& plan) {
  std::string from = MinusMinutes(file.stated_onset, kBeforeOnsetMinutes);
  std::string after = "after:" + from.substr(0, 10) + "T" + from.substr(11) + "Z";
  for (const auto& topic : primaries) {
    Candidate c = Logs(topic, "level:ERROR " + after, analysis);
    c.input.lookback = kChangeLookbackMinutes;
    c.input.shared_topic = SharedTopicOf(state, topic);
    plan.push_back(std::move(c));
  }
}

// The topics the errors name: where the failure comes from.
void AddMentionedTopicQueries(const InvestigationState& state, const QuestionAnalysis& analysis,
                              const CaseFile& file, std::vector<Candidate>& plan) {
  for (const auto& hop : file.hops) {
    for (const auto& topic : hop.mentions) {
      bool configured =
          std::find(state.topics.begin(), state.topics.end(), topic) != state.topics.end();
      if (configured || !SharedTopicOf(state, topic).empty()) {
        if (!TopicQueried(state, topic)) AddTopicQueries(topic, false, state, analysis, plan);
      } else {
        // A service with no topic of its own: inside a shared one.
        AddSharedTopicQueries(state, topic, analysis, plan);
      }
    }
  }
}

// The topics the runbooks point at for the deepest error: of the same
// service family as a link of the chain (payment-service -> payment-db), or any topic the
// two best sections about the deepest link name (the DNS section's
// CoreDNS logs under an UnknownHostException).
void AddRunbookTopicQueries(const InvestigationState& state, const QuestionAnalysis& analysis,
                            const CaseFile& file, std::vector<Candidate>& plan) {
  std::set<std::string> chain_stems;
  for (std::size_t position : file.chain)
    chain_stems.insert(TopicStem(file.hops[position].topic));
  int deepest_position = static_cast<int>(file.chain.size()) - 1;
  std::vector<std::string> things = ThingsTheErrorsName(file);
  for (std::size_t d = 0; d < file.docs.size(); ++d) {
    const DocHit& doc = file.docs[d];
    bool about_deepest = deepest_position >= 0 && doc.chain_position == deepest_position &&
                         d < kMaxPointingSections;
    for (const auto& topic : doc.topics) {
      bool pointed = (about_deepest || chain_stems.count(TopicStem(topic)) > 0) &&
                     !IsChangeTopic(topic);  // read for its changes, below
      // What a runbook sends us to (a node agent, a database's slow log)
      // reports its findings as warnings: both levels at once.
      if (pointed && !TopicQueried(state, topic)) {
        AddTopicQueries(topic, true, state, analysis, plan);
      } else if (pointed && NoEvidenceFor(state, topic, "level:WARN,ERROR") && !things.empty()) {
        // Quiet at both levels: an inventory logs its records as INFO.
        // What it says about the thing the errors name.
        plan.push_back(Logs(topic, "\"" + things.front() + "\"", analysis));
      }
    }
  }
}

std::vector<Candidate> Plan(const InvestigationState& state, const QuestionAnalysis& analysis,
                            const CaseFile& file) {
  std::vector<Candidate> plan;
  std::vector<std::string> primaries;
  if (analysis.topics.empty()) {
    if (!analysis.unknown_services.empty()) {
      AddUnknownServiceQueries(state, analysis, plan);
      return plan;
    }
    // "为什么又挂了？": no service and no symptom that says how it fails is
    // nowhere to start from; the draft asks for them.
    if (!analysis.HasConcreteSymptom()) return plan;
    // A host or path it names instead: whose errors name it is where to
    // start ("calls to api.unionbank.example.com fail").
    if (state.offers_logs) AddThingQueries(state, analysis, plan);
    // A symptom and no service: start where requests come in; the runbooks
    // for the symptom come last, if the logs show nothing.
    primaries = EntryTopics(state);
  } else {
    for (const auto& topic : analysis.topics) {
      if (primaries.size() < kMaxPrimaryTopics) primaries.push_back(topic);
    }
  }
  if (state.offers_logs) {
    for (const auto& topic : primaries)
      AddTopicQueries(topic, Slowness(analysis), state, analysis, plan);
    if (OnsetUnseen(state, file)) AddOnsetQueries(state, analysis, file, primaries, plan);
    AddMentionedTopicQueries(state, analysis, file, plan);
    AddPlatformQueries(state, analysis, file, plan);
  }
  // One runbook lookup for the deepest error before the datasources; the
  // others (for links found later) after the change record.
  const LogHop* deepest = file.Deepest();
  bool searched_documents =
      std::any_of(file.chain.begin(), file.chain.end(), [&](std::size_t position) {
        return Tried(Docs(DocQueryFor(file.hops[position], state.lang)), state);
      });
  if (deepest != nullptr && state.offers_documents && !searched_documents) {
    plan.push_back(Docs(DocQueryFor(*deepest, state.lang)));
  }
  if (state.offers_logs) AddRunbookTopicQueries(state, analysis, file, plan);
  // What the metrics show of the components the logs point at: after every
  // step that may find the cause (metrics only corroborate one). While they
  // are still to be asked, the resource records wait behind them: in a run
  // near its last tool calls a saturated pool's series says what the rows
  // of a busy table would.
  std::optional<MetricsQuery> metrics = NextMetricsQuery(state, analysis, file);
  bool sql = !file.hops.empty() && state.offers_mysql;
  if (sql) AddSqlCandidates(file, true, plan);
  if (sql && !metrics) AddResourceCandidates(state, file, plan);
  if (!file.hops.empty()) AddChangeRecordElsewhere(state, file, plan);
  if (metrics) {
    Candidate c;
    c.tool = ToolKind::kMetrics;
    c.input.query = metrics->promql;
    c.input.lookback = metrics->lookback_minutes;
    plan.push_back(std::move(c));
    if (sql) AddResourceCandidates(state, file, plan);
  }
  if (state.offers_documents) {
    for (auto it = file.chain.rbegin(); it != file.chain.rend(); ++it) {
      plan.push_back(Docs(DocQueryFor(file.hops[*it], state.lang)));
    }
  }
  if (!file.hops.empty() && state.offers_mysql) AddSqlCandidates(file, false, plan);
  if (file.hops.empty() && state.offers_documents && analysis.HasSymptom()) {
    plan.push_back(Docs(Join(analysis.service_words) + " " + Join(SymptomWords(analysis))));
  }
  return plan;
}

std::optional<std::size_t> IndexOf(const InvestigationState& state, const std::string& id) {
  for (std::size_t i = state.calls.size(); i-- > 0;) {
    if (state.calls[i].id == id) return i;
  }
  return std::nullopt;
}

std::set<std::string> TemplatesBefore(const InvestigationState& state, std::size_t index) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < index; ++i) {
    for (const auto& event : state.calls[i].events) seen.insert(TemplateOf(event.message));
  }
  return seen;
}

}  // namespace

const char* GradeOf(const InvestigationState& state, const CaseFile& file, std::size_t index) {
  const CallRecord& call = state.calls[index];
  if (call.outcome != Outcome::kEvidence) return "NO_GAIN";
  switch (call.tool) {
    case ToolKind::kLogs: {
      auto seen = TemplatesBefore(state, index);
      bool fresh = std::any_of(call.events.begin(), call.events.end(), [&](const EventItem& e) {
        return seen.count(TemplateOf(e.message)) == 0;
      });
      return fresh ? "GAINED" : "NO_GAIN";
    }
    case ToolKind::kDocuments: {
      bool relevant = std::any_of(file.docs.begin(), file.docs.end(),
                                  [&](const DocHit& hit) { return hit.call == index; });
      bool notice = ShowsANewChangeNotice(state, index);
      return relevant || notice ? "GAINED" : "NO_GAIN";
    }
    case ToolKind::kMysql: {
      if (call.input.sql == kInformationSchemaSql || call.input.sql == kSqliteMasterSql) {
        bool useful =
            std::any_of(file.schemas.begin(), file.schemas.end(), [&](const DatasourceSchema& s) {
              return s.datasource == call.input.datasource && s.known &&
                     !ChangeTables(s).empty();
            });
        return useful ? "GAINED" : "NO_GAIN";
      }
      std::string table, order_column;
      if (ParseChangeQuery(call.input.sql, &table, &order_column)) {
        return file.change && file.change->call == index ? "GAINED" : "NO_GAIN";
      }
      if (ParseResourceQuery(call.input.sql, &table)) {
        return file.resource && file.resource->call == index ? "GAINED" : "NO_GAIN";
      }
      return call.rows.empty() ? "NO_GAIN" : "GAINED";
    }
    case ToolKind::kMetrics: {
      // A series that rose with the failure, which no earlier call showed.
      bool fresh = std::any_of(file.metrics.begin(), file.metrics.end(), [&](const MetricSignal& s) {
        return s.call == index &&
               std::none_of(file.metrics.begin(), file.metrics.end(), [&](const MetricSignal& o) {
                 return o.call < index && o.quote == s.quote;
               });
      });
      return fresh ? "GAINED" : "NO_GAIN";
    }
    case ToolKind::kOther:
      break;
  }
  return "NO_GAIN";
}

NextAction DecideNext(const InvestigationState& state, const QuestionAnalysis& analysis,
                      const CaseFile& file) {
  NextAction action;
  if (state.stop_required || state.calls.size() >= kMaxToolCalls) return action;
  auto grade = [&](NextAction& a, const std::optional<std::string>& pending) {
    if (!pending) return;
    auto index = IndexOf(state, *pending);
    a.graded_call_id = *pending;
    a.information_gain = index ? GradeOf(state, file, *index) : "NO_GAIN";
  };
  // A protocol answer: send the same input once more with the grade the
  // harness expects (or without one, when none was expected).
  if (!state.calls.empty() && state.calls.back().outcome == Outcome::kViolation) {
    std::size_t streak = 0;
    for (auto it = state.calls.rbegin();
         it != state.calls.rend() && it->outcome == Outcome::kViolation; ++it) {
      ++streak;
    }
    const CallRecord& last = state.calls.back();
    if (streak >= 2 || last.tool == ToolKind::kOther) return action;
    // We only ever send text parameters, so the rebuilt input is the same.
    Candidate retry{last.tool, last.input};
    action.step = ToolStep{last.tool, InputJson(retry)};
    std::optional<std::string> expected;
    if (!last.expected_previous_id.empty()) expected = last.expected_previous_id;
    grade(action, expected);
    return action;
  }
  for (const auto& candidate : Plan(state, analysis, file)) {
    if (Tried(candidate, state)) continue;
    action.step = ToolStep{candidate.tool, InputJson(candidate)};
    grade(action, state.pending);
    return action;
  }
  return action;
}

std::string EnvelopeJson(const NextAction& action) {
  bj::object envelope;
  if (action.graded_call_id) {
    envelope["previous_observation"] = bj::object{{"tool_call_id", *action.graded_call_id},
                                                  {"information_gain", action.information_gain}};
  }
  auto input = json::Parse(action.step ? action.step->input_json : "{}");
  envelope["input"] = input ? *input : bj::value(bj::object{});
  return json::Serialize(envelope);
}

}  // namespace diagd::model::offline
