// FindChangeRecord (case_file.h): which change, if any, explains the chain.
#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "model/offline/case_file.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

constexpr long kBuildUpMinutes = 24 * 60;
// A heap is sized by -Xmx in JAVA_OPTS, a container by its memory limit.
constexpr const char* kMemoryWords[] = {"memory", "内存", "heap", "-xmx"};
// A disk is filled by what writes to it: log levels and rotation, dumps,
// backups.
constexpr const char* kDiskWords[] = {"logging.level", "log.level", "log_level", "logrotate",
                                      "rotation", "retention", "dump", "backup"};
constexpr long kAroundMinutes = 10;

std::string CellText(const std::vector<Cell>& row, int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= row.size()) return {};
  return row[static_cast<std::size_t>(index)].text;
}

// The names of a message's key=value fields ("channel" in "channel=alipay"):
// every line of the kind has them, whatever failed; their values are what
// is specific.
std::vector<std::string> FieldNames(const std::string& message) {
  std::vector<std::string> names;
  std::size_t start = 0;
  for (std::size_t i = 0; i < message.size(); ++i) {
    char c = message[i];
    bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (!word) {
      if (c == '=' && i > start) names.push_back(message.substr(start, i - start));
      start = i + 1;
    }
  }
  return names;
}

// Adds `term` lower-cased, once, when it has 4 bytes or more.
void AddTerm(std::vector<std::string>& terms, const std::string& term) {
  std::string lower = text::AsciiLower(term);
  if (lower.size() >= 4 && std::find(terms.begin(), terms.end(), lower) == terms.end())
    terms.push_back(std::move(lower));
}

// Words every log line of every service holds: no change is about them.
bool IsGenericWord(const std::string& lower) {
  static const char* const kGeneric[] = {
      "error",  "errors", "failed",  "failure",  "fails",  "exception", "caused", "nested",
      "execution", "request", "response", "service", "server", "client", "status", "method",
      "thread", "while", "after", "before", "with", "from", "this", "that", "cannot", "unable",
      "because", "http", "https", "java", "org", "com", "the", "and", "for", "not"};
  return std::find_if(std::begin(kGeneric), std::end(kGeneric),
                      [&](const char* word) { return lower == word; }) != std::end(kGeneric);
}

}  // namespace

std::string FirstSeenFailure(const CaseFile& file) {
  std::string first;
  for (std::size_t position : file.chain) {
    const LogHop& hop = file.hops[position];
    if (hop.groups.empty()) continue;
    for (std::size_t member : hop.groups.front().members) {
      std::string time = SortableTime(hop.events[member].timestamp);
      if (!time.empty() && (first.empty() || time < first)) first = time;
    }
  }
  return first;
}

namespace {

// The keys that size or fill the resource the chain ran out of.
std::vector<std::string> WhatFillsIt(const CaseFile& file) {
  std::vector<std::string> words;
  for (std::size_t position : file.chain) {
    const MessageReading& reading = file.hops[position].reading;
    if (reading.out_of_memory) words.insert(words.end(), std::begin(kMemoryWords), std::end(kMemoryWords));
    if (reading.space_exhausted) words.insert(words.end(), std::begin(kDiskWords), std::end(kDiskWords));
  }
  return words;
}

}  // namespace

bool OnsetUnseen(const InvestigationState& state, const CaseFile& file) {
  if (file.stated_onset.empty() || file.window_minutes <= 0) return false;
  std::string window_start = MinusMinutes(file.latest_time, file.window_minutes);
  if (window_start <= MinusMinutes(file.stated_onset, kAroundMinutes)) return false;
  return std::none_of(state.calls.begin(), state.calls.end(), [](const CallRecord& call) {
    return call.tool == ToolKind::kLogs && call.input.query.find("after:") != std::string::npos &&
           (call.outcome == Outcome::kEvidence || call.outcome == Outcome::kNoEvidence);
  });
}

std::vector<std::string> MechanismTerms(const CaseFile& file) {
  struct Words {
    bool MessageReading::*signal;
    std::vector<const char*> words;
  };
  static const Words kWords[] = {{&MessageReading::timeout, {"timeout", "超时"}},
                                 {&MessageReading::pool_exhausted, {"pool", "连接池"}},
                                 {&MessageReading::out_of_memory,
                                  {std::begin(kMemoryWords), std::end(kMemoryWords)}},
                                 {&MessageReading::certificate, {"cert", "证书"}},
                                 {&MessageReading::rate_limited, {"limit", "限流"}}};
  std::vector<std::string> terms;
  for (std::size_t position : file.chain) {
    for (const auto& words : kWords) {
      if (!(file.hops[position].reading.*words.signal)) continue;
      for (const char* word : words.words) AddTerm(terms, word);
    }
  }
  return terms;
}

bool DeclaresItselfHarmless(const std::string& text) {
  // Touches nothing that runs, or says it answers the incident (a reaction
  // made once the failure showed, whatever its time says).
  static const char* const kMarks[] = {"log format only", "logging only", "format only",
                                       "no business logic change", "no functional change",
                                       "仅日志", "只改日志", "仅改日志", "文案修改", "仅文案",
                                       "incident response", "故障处理", "应急处理"};
  return std::any_of(std::begin(kMarks), std::end(kMarks),
                     [&](const char* mark) { return ContainsFold(text, mark); });
}

std::vector<std::string> EvidenceTerms(const CaseFile& file) {
  std::vector<std::string> terms;
  auto add = [&](const std::string& term) { AddTerm(terms, term); };
  std::vector<std::string> services;
  for (std::size_t position : file.chain) {
    for (const auto& word : AsciiWords(file.hops[position].topic, 1)) {
      services.push_back(text::AsciiLower(word));
    }
  }
  for (std::size_t position : file.chain) {
    const LogHop& hop = file.hops[position];
    add(hop.reading.table);
    add(hop.reading.column);
    std::vector<std::string> fields = FieldNames(hop.key_message);
    for (const auto& word : AsciiWords(hop.key_message, 5)) {
      std::string lower = text::AsciiLower(word);
      bool digits = std::any_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
      bool own_name = std::find(services.begin(), services.end(), lower) != services.end();
      bool field = std::find(fields.begin(), fields.end(), word) != fields.end();
      if (!digits && !own_name && !field && !IsGenericWord(lower)) add(word);
    }
    for (const auto& run : CjkTrigrams(hop.key_message)) add(run);
    for (const auto& name : Identifiers(hop.key_message)) add(name);
  }
  return terms;
}

namespace {


// A line that says what to do about the failure, not what causes it.
bool IsMitigation(std::string_view line) {
  line = Trim(line);
  for (const char* mark : {"处置", "处理", "解决", "缓解", "Mitigation", "Fix", "Workaround",
                           "Remedy", "Action"}) {
    if (line.starts_with(mark)) return true;
  }
  return false;
}

// The runbook section about the deepest link names a release of the
// failing service as the cause to look for ("对照消费者最近的发布"), in a
// line that is not the mitigation ("处置：回滚" says what to do, not why).
bool RunbookNamesARelease(const InvestigationState& state, const CaseFile& file) {
  int deepest = static_cast<int>(file.chain.size()) - 1;
  for (const auto& hit : file.docs) {
    if (hit.chain_position != deepest) continue;
    std::string_view excerpt = state.calls[hit.call].docs[hit.item].excerpt;
    for (std::size_t start = 0; start <= excerpt.size();) {
      std::size_t end = std::min(excerpt.find('\n', start), excerpt.size());
      std::string_view line = excerpt.substr(start, end - start);
      start = end + 1;
      if (IsMitigation(line)) continue;
      for (const char* word : {"发布", "上线", "release"}) {
        if (ContainsFold(line, word)) return true;
      }
    }
    return false;  // the best section about it decides
  }
  return false;
}

// The evidence terms that name one thing rather than a kind of thing: the
// chain's topics, a table or column, a host, address or path, an
// identifier written as code (`AuditClient`, `payment_record`). A change
// on a service outside the chain must name one of them: "audit" in a
// package path makes no audit-service compaction a cause. Lower-cased.
std::vector<std::string> NamingTerms(const CaseFile& file) {
  std::vector<std::string> terms;
  auto add = [&](const std::string& term) { AddTerm(terms, term); };
  for (std::size_t position : file.chain) {
    const LogHop& hop = file.hops[position];
    add(hop.topic);
    add(hop.reading.table);
    add(hop.reading.column);
    for (const auto& name : Identifiers(hop.key_message)) add(name);
    for (const auto& word : AsciiWords(hop.key_message, 5)) {
      bool code = word.find('_') != std::string::npos ||
                  std::any_of(word.begin() + 1, word.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
      bool digits = std::any_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (code && !digits) add(word);
    }
  }
  return terms;
}

bool NamesAny(const std::string& text, const std::vector<std::string>& terms) {
  return std::any_of(terms.begin(), terms.end(),
                     [&](const std::string& term) { return ContainsFold(text, term); });
}

std::optional<std::size_t> ChainPositionOf(const CaseFile& file, const std::string& service) {
  if (service.empty()) return std::nullopt;
  for (std::size_t p = file.chain.size(); p-- > 0;) {
    const std::string& topic = file.hops[file.chain[p]].topic;
    if (text::AsciiLower(topic) == text::AsciiLower(service) || ContainsName(service, topic))
      return p;
  }
  return std::nullopt;
}

// Every row of the change tables read, as a change record.
std::vector<ChangeRecord> ChangesInTables(const InvestigationState& state) {
  std::vector<ChangeRecord> out;
  for (std::size_t c = 0; c < state.calls.size(); ++c) {
    const CallRecord& call = state.calls[c];
    std::string table, order_column;
    if (call.tool != ToolKind::kMysql || call.outcome != Outcome::kEvidence ||
        !ParseChangeQuery(call.input.sql, &table, &order_column)) {
      continue;
    }
    ChangeColumns roles = ChangeColumnsOf(call.columns, order_column);
    for (const auto& row : call.rows) {
      ChangeRecord record;
      record.time = SortableTime(CellText(row, roles.time));
      if (record.time.empty()) continue;
      record.call = c;
      record.table = table;
      record.service = CellText(row, roles.service);
      record.version = CellText(row, roles.version);
      record.summary = CellText(row, roles.summary);
      record.ticket = CellText(row, roles.ticket);
      record.db_change = CellText(row, roles.db_change);
      record.key = CellText(row, roles.key);
      record.old_value = CellText(row, roles.old_value);
      record.new_value = CellText(row, roles.new_value);
      if (roles.db_change >= 0)
        record.db_change_column = call.columns[static_cast<std::size_t>(roles.db_change)];
      bool summary_quotable = roles.summary >= 0 &&
                              static_cast<std::size_t>(roles.summary) < row.size() &&
                              row[static_cast<std::size_t>(roles.summary)].is_text &&
                              text::CodePointCount(record.summary) >= 4;
      record.quote = summary_quotable ? CutPrefix(record.summary, 160) : record.version;
      if (text::CodePointCount(record.quote) < 4) record.quote.clear();
      // The version before it, for the rollback.
      std::string previous_time;
      for (const auto& other : call.rows) {
        std::string other_time = SortableTime(CellText(other, roles.time));
        if (CellText(other, roles.service) == record.service && !other_time.empty() &&
            other_time < record.time && other_time > previous_time) {
          previous_time = other_time;
          record.previous_version = CellText(other, roles.version);
        }
      }
      out.push_back(std::move(record));
    }
  }
  return out;
}

// When a change must have been made to be a cause.
struct ChangeWindow {
  // Changes made in the window the logs show, or up to half an hour before
  // it or before the hour the question says the failure began.
  std::string earliest;
  // A change made after the failure was already showing is a reaction to
  // it (a restart, a reroute), never its cause.
  std::string latest;
  // A change that names the very host or path that fails counts from a day
  // before: what it set in motion may take hours to show.
  std::string long_before;
};

ChangeWindow ChangeWindowOf(const InvestigationState& state, const CaseFile& file) {
  ChangeWindow window;
  window.earliest = MinusMinutes(file.latest_time, std::max(file.window_minutes, 30) + 30);
  if (!file.stated_onset.empty()) {
    window.earliest = std::min(window.earliest, MinusMinutes(file.stated_onset, 30));
  }
  window.latest = FirstSeenFailure(file);
  if (window.latest.empty()) window.latest = file.latest_time;
  // When the onset was not seen (the logs read start after the time the
  // question says it began, and nothing was read from before it), a
  // change made after that time (give or take the "around") cannot be
  // told from a reaction to it.
  if (OnsetUnseen(state, file)) {
    long around = file.stated_minute ? kAroundMinutes : 60;  // "8 点以后": any time in that hour
    window.latest = std::min(window.latest, MinusMinutes(file.stated_onset, -around));
  }
  window.long_before = MinusMinutes(window.latest, kBuildUpMinutes);
  return window;
}

}  // namespace

std::optional<ChangeRecord> FindChangeRecord(const InvestigationState& state,
                                             const CaseFile& file) {
  if (file.chain.empty() || file.latest_time.empty()) return std::nullopt;
  std::vector<std::string> terms = EvidenceTerms(file);
  // A configuration key may name the mechanism itself ("read-timeout-ms"
  // for a read timeout); a summary must name more than "a limit" or "a
  // timeout" (any rate-limit change says 限流).
  std::vector<std::string> mechanism = MechanismTerms(file);
  std::vector<std::string> naming = NamingTerms(file);
  std::vector<std::string> fills = WhatFillsIt(file);
  ChangeWindow window = ChangeWindowOf(state, file);
  const std::string& earliest = window.earliest;
  const std::string& latest = window.latest;
  const std::string& long_before = window.long_before;
  std::vector<std::string> things = ThingsTheErrorsName(file);

  bool release_named = RunbookNamesARelease(state, file);

  std::vector<ChangeRecord> candidates = ChangesInTables(state);
  for (auto* more : {&ChangesInLogs, &ChangesInDocuments}) {
    std::vector<ChangeRecord> found = (*more)(state);
    candidates.insert(candidates.end(), found.begin(), found.end());
  }
  std::optional<ChangeRecord> best;
  int best_score = 0;
  for (auto& record : candidates) {
    const std::string& time = record.time;
    if (time < long_before || time > latest) continue;
    // A change explains the failure only when its content names what the
    // errors show: being recent, or on the failing service, is not enough
    // (a logging-only or rate-limit change is innocent by its content).
    // A configuration push says what it changed in its key.
    std::string content = record.summary + "\n" + record.key;
    auto position = ChainPositionOf(file, record.service);
    // Without a key column, what fills the exhausted resource written in
    // the summary as a flag or key counts ("JAVA_OPTS 由 -Xmx8g 调整为
    // -Xmx3g" for a heap, "logging.level.root=DEBUG" for a disk); other
    // mechanisms' words turn up in the names of unrelated keys
    // (limit_req_zone for a rate limit).
    bool fills_it = record.key.empty() && NamesAny(ConfigKeysIn(record.summary), fills);
    bool keyed = NamesAny(record.key, mechanism) || fills_it;
    // Naming the failing host or path, or setting the failing link's own
    // limit, it may have been made hours before the failure showed.
    bool names_thing = NamesAny(content, things);
    if (time < earliest && !names_thing && !(keyed && position)) continue;
    bool describes = names_thing || NamesAny(content, terms) || keyed;
    // On a service outside the chain it must name one thing the errors name.
    if (!position && !NamesAny(content, naming)) describes = false;
    // Or the runbook names what to look for, a release of the failing
    // service, and this row is one.
    bool named_release = release_named && position && !record.version.empty();
    if ((!describes && !named_release) || DeclaresItselfHarmless(record.summary)) continue;
    int score = 6;
    if (position) score += 10 + 5 * static_cast<int>(*position);
    if (best && (score < best_score || (score == best_score && time <= best->time))) continue;
    record.chain_position = position.value_or(file.chain.size() - 1);
    best = record;
    best_score = score;
  }
  return best;
}

// Identifiers, and of a path also its first two components
// ("/data/order-api" of "/data/order-api/spool"): a change on that host or
// under that directory touched what fails, however long before the
// failure it was made (a disk fills, a heap grows, a cached record expires
// for hours).
std::vector<std::string> ThingsTheErrorsName(const CaseFile& file) {
  std::vector<std::string> things;
  for (std::size_t position : file.chain) {
    for (const auto& name : Identifiers(file.hops[position].key_message)) {
      AddTerm(things, name);
      if (name.front() != '/') continue;
      std::size_t second = name.find('/', 1);
      std::size_t third = second == std::string::npos ? second : name.find('/', second + 1);
      if (third != std::string::npos) AddTerm(things, name.substr(0, third));
    }
  }
  return things;
}

}  // namespace diagd::model::offline
