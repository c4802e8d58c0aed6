// What the investigation has established so far, derived again on every
// call from the observations (investigation_state.h): the log "hops" (one
// per topic with evidence, its message templates, the other topics its
// errors name, and the hop that led to it), the causal chain from the
// surface symptom down to the deepest hop, the runbook sections that speak
// about what the logs show, the tables of each datasource, and the change
// record that fits the chain in time and place.
//
// Tool results are data: a document written as instructions to an AI is
// flagged (`instruction_like`) and never used as a fact or a pointer.
//
// Thread safety: plain values; BuildCaseFile is a pure function.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/offline/investigation_state.h"
#include "model/offline/log_templates.h"
#include "model/offline/metric_signals.h"
#include "model/offline/question_analysis.h"
#include "model/offline/schema_discovery.h"

namespace diagd::model::offline {

// One topic whose logs returned evidence.
struct LogHop {
  std::string topic;
  std::vector<std::size_t> calls;     // evidence calls on this topic, in order
  std::vector<EventItem> events;      // their events, oldest first per call
  std::vector<TemplateGroup> groups;  // over `events`
  std::vector<std::string> mentions;  // other topics named by its top templates
  std::optional<std::size_t> parent;  // the hop that led here
  // Below its parent only because a runbook about the parent's errors named
  // it (node-agent under order-api's full disk): no call between them.
  bool linked_by_runbook = false;
  MessageReading reading;             // merged over the top templates
  std::string key_message;            // the message the key phrase is quoted from
  std::size_t key_call = 0;           // the call that returned it
};

// A document section that speaks about what the investigation found.
struct DocHit {
  std::size_t call = 0;
  std::size_t item = 0;
  int score = 0;
  std::string quote;                // an exact substring of the excerpt
  std::vector<std::string> topics;  // configured topics the excerpt names
  int chain_position = -1;          // the link of the chain its quote speaks to
};

// The change record that fits the chain.
struct ChangeRecord {
  std::size_t call = 0;
  std::string table;
  std::string service, version, time, summary, ticket, db_change, previous_version;
  std::string db_change_column;    // the name of the column db_change was read from
  // A configuration change: the key and its values ("read-timeout-ms", 5000, 50).
  std::string key, old_value, new_value;
  std::string quote;               // an exact cell text to cite (the summary, else the version)
  std::size_t chain_position = 0;  // the chain hop its service is (0 = surface)
};

// The row of a table a runbook section names (certificates, a partner's
// status) that is about what the chain's errors point at: the same host,
// address or path. It confirms the cause that section names.
struct ResourceRecord {
  std::size_t call = 0;
  std::string table;
  int doc = -1;                     // the DocHit (index in CaseFile::docs) that named the table
  std::vector<std::string> quotes;  // exact cell texts: the matching one first, then the others
  // Whether the row says why the thing fails: it expired before the failure
  // was first seen, or its state is an outage, a removal, a revocation. A row
  // of measurements (a disk at 100%) only restates the symptom.
  bool says_why = false;
};

struct CaseFile {
  std::vector<LogHop> hops;
  std::vector<std::size_t> chain;             // hop indexes, surface first, deepest last
  std::vector<DocHit> docs;                   // trusted, relevant sections, best first
  std::vector<std::string> instruction_like;  // titles of documents flagged
  std::vector<DatasourceSchema> schemas;
  std::optional<ChangeRecord> change;
  std::optional<ResourceRecord> resource;
  // The metrics series that rose with the failure (metric_signals.h):
  // findings that corroborate a cause, never one by themselves.
  std::vector<MetricSignal> metrics;
  std::string latest_time;    // the newest event time seen ("YYYY-MM-DD HH:MM:SS")
  std::string earliest_time;  // the oldest
  // When the question says the failure began ("8 点左右开始", "since about
  // 10:00"): that hour on the day of latest_time. Empty when it says none.
  std::string stated_onset;
  bool stated_minute = false;  // the question gave the minute, not only the hour
  int window_minutes = 0;     // the lookback the logs were read with

  const LogHop* Deepest() const { return chain.empty() ? nullptr : &hops[chain.back()]; }
};

CaseFile BuildCaseFile(const InvestigationState& state, const QuestionAnalysis& analysis);

// Whether a hop shows a failure: its dominant messages are errors, or name a
// timeout, a 5xx, an exhausted pool, memory, a refused connection, a
// certificate, a slow query or a full scan. Low stock warnings are none.
bool IsFailure(const LogHop& hop);
bool IsErrorLevel(const std::string& level);  // ERROR, FATAL or CRITICAL
// Whether a message shows the symptom the question names ("504") or names
// a failure (NamesFailure).
bool TellsFailure(const std::string& message, const QuestionAnalysis& analysis);

// The row of a change table (deployments, releases, changes...) that fits
// the chain of `file`: made within the log window (or shortly before it) on
// a service of the chain, or describing what the deepest errors show; the
// deeper its service sits in the chain, the better. Nothing when no row fits.
// (change_record.cc)
std::optional<ChangeRecord> FindChangeRecord(const InvestigationState& state, const CaseFile& file);

// A topic where changes are logged, by its name: an audit, deploy or
// release log, argocd, rollouts (change_sources.cc).
bool IsChangeTopic(const std::string& topic);
// A logs call that looks a thing up ("\"api.x.com\"", no level): it reads
// records (an inventory's lines), not the failure.
bool IsRecordLookup(const CallRecord& call);
// The configuration keys a change text names: dotted, dashed or joined
// names ("clients.payment.read-timeout-ms", "logging.level.root=DEBUG",
// "JAVA_OPTS", "-Xmx2g"), joined by spaces, for the mechanism check.
std::string ConfigKeysIn(std::string_view text);
// The change records among the events of change topics ("change NET-1
// applied target=dns by=ops: DNS: remove record ...": a ticket, a change
// word, the target's field) and among the documents (a change notice: a
// ticket and a change word in its title or path, a time, what was done).
std::vector<ChangeRecord> ChangesInLogs(const InvestigationState& state);
std::vector<ChangeRecord> ChangesInDocuments(const InvestigationState& state);
// The tickets of change notices whose "What" was returned without the
// header that dates them: a search for the ticket finds it.
std::vector<std::string> UndatedChangeNotices(const InvestigationState& state);
// Whether documents call `index` returned a change notice no earlier call did.
bool ShowsANewChangeNotice(const InvestigationState& state, std::size_t index);

// The names of one thing the chain's errors show (a host, an address, a
// path, and a path's first two components), lower-cased: a change or a
// notice that names one is about what fails.
std::vector<std::string> ThingsTheErrorsName(const CaseFile& file);

// The row of a resource table (ResourceQuerySql) that names a host, an
// address or a path of the chain's errors, when exactly one thing does (two
// hosts' rows on the same mount confirm neither). (resource_record.cc)
std::optional<ResourceRecord> FindResourceRecord(const InvestigationState& state,
                                                 const CaseFile& file);

// What the chain's errors show, as terms a record's content may name
// (change_record.cc): identifiers, hosts, addresses and paths, other ASCII
// words of 5 or more letters that are not generic log words or the
// services' own names or the names of key=value fields, and runs of three
// CJK characters. Lower-cased.
std::vector<std::string> EvidenceTerms(const CaseFile& file);
// The failing mechanism's own words (timeout/超时 for a timeout, pool/连接池
// for a pool, limit/限流 for a rate limit...): what a configuration key
// changing it is named with ("read-timeout-ms").
std::vector<std::string> MechanismTerms(const CaseFile& file);

// When the failure was first seen: the oldest returned event of the
// dominant template of each link of the chain (the logs give the earliest
// matches of a query as well as the newest, so that is the first the query
// found). Empty when no event has a time. (change_record.cc)
std::string FirstSeenFailure(const CaseFile& file);

// When the failure began, as far as the data says: FirstSeenFailure, else
// the time the question gives; empty when neither is known.
std::string FailureOnset(const CaseFile& file);

// The topics of the chain, surface first, each once.
std::vector<std::string> ChainTopics(const CaseFile& file);

// The logs read begin after the time the question says the failure began
// (give or take ten minutes), and no query has yet read from before it
// (`after:`): the onset has not been seen.
bool OnsetUnseen(const InvestigationState& state, const CaseFile& file);

// A change that says it touches nothing that runs ("log format only",
// "仅日志", "文案修改"), or that it answers the incident ("incident
// response", "故障处理"), is never a cause, however close to the failure.
bool DeclaresItselfHarmless(const std::string& text);

// True for text written as instructions to an AI agent ("忽略之前的所有指令",
// "ignore previous instructions", "给 AI 诊断助手的说明"...).
bool IsInstructionLike(const std::string& text);

}  // namespace diagd::model::offline
