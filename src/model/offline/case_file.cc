#include "model/offline/case_file.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/text.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

// Names shaped like a service's (order-service, payment-api, billing-worker)
// written in `message`, each once; a pod's name (order-service-7c9d6) is not.
std::vector<std::string> ServiceNamesIn(const std::string& message) {
  std::vector<std::string> names;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= message.size(); ++i) {
    char c = i < message.size() ? message[i] : ' ';
    bool part = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
    if (part) continue;
    std::string token = text::AsciiLower(message.substr(start, i - start));
    start = i + 1;
    if (c == '.' && i + 1 < message.size() && message[i + 1] != ' ') continue;  // a host's label
    bool ends_like_one = token.ends_with("-service") || token.ends_with("-api") ||
                         token.ends_with("-worker") || token.ends_with("-svc");
    if (ends_like_one && token.size() >= 7 &&
        std::find(names.begin(), names.end(), token) == names.end()) {
      names.push_back(token);
    }
  }
  return names;
}


constexpr std::size_t kMaxQuoteCodePoints = 160;

// The groups that make up the picture: the dominant ones, not the tail.
std::vector<const TemplateGroup*> TopGroups(const LogHop& hop) {
  std::vector<const TemplateGroup*> top;
  std::size_t floor = std::max<std::size_t>(1, hop.events.size() / 5);
  for (const auto& group : hop.groups) {
    if (top.size() == 3) break;
    if (top.empty() || group.members.size() >= floor) top.push_back(&group);
  }
  return top;
}

void Merge(const MessageReading& from, MessageReading& into) {
  into.slow |= from.slow;
  into.pool_exhausted |= from.pool_exhausted;
  into.timeout |= from.timeout;
  into.server_error |= from.server_error;
  into.out_of_memory |= from.out_of_memory;
  into.refused |= from.refused;
  into.certificate |= from.certificate;
  if (from.full_scan && !into.full_scan) {
    into.full_scan = true;
    into.sql_fragment = from.sql_fragment;
    into.table = from.table;
    into.column = from.column;
    into.second_column = from.second_column;
    into.rows_examined = from.rows_examined;
    into.rows_sent = from.rows_sent;
    into.rows_examined_phrase = from.rows_examined_phrase;
    into.query_time = from.query_time;
  }
  if (into.table.empty() && !from.table.empty()) {
    into.sql_fragment = from.sql_fragment;
    into.table = from.table;
    into.column = from.column;
    into.second_column = from.second_column;
  }
  for (const auto& exception : from.exceptions) {
    if (std::find(into.exceptions.begin(), into.exceptions.end(), exception) ==
        into.exceptions.end()) {
      into.exceptions.push_back(exception);
    }
  }
  if (into.lead.empty()) into.lead = from.lead;
}

// Whether `message` shows a symptom the question names ("504").
bool ShowsSymptom(const std::string& message, const QuestionAnalysis& analysis) {
  std::string first = message.substr(0, message.find('\n'));
  return std::any_of(analysis.symptoms.begin(), analysis.symptoms.end(),
                     [&](const Symptom& symptom) {
                       bool ascii = std::all_of(symptom.word.begin(), symptom.word.end(),
                                                [](char c) { return (c & 0x80) == 0; });
                       return ascii ? ContainsName(first, symptom.word)
                                    : first.find(symptom.word) != std::string::npos;
                     });
}

// The hop's messages grouped by template, the group that tells what fails
// first.
void GroupMessages(const QuestionAnalysis& analysis, LogHop& hop) {
  std::vector<std::string> messages, levels;
  for (const auto& event : hop.events) {
    messages.push_back(event.message);
    levels.push_back(event.level);
  }
  hop.groups = GroupByTemplate(messages, levels);
  // On a topic the question asks about, the kind of message that shows the
  // symptom asked about leads (the 504s, not the 500s, for "504").
  bool asked =
      std::find(analysis.topics.begin(), analysis.topics.end(), hop.topic) != analysis.topics.end();
  if (asked) {
    std::stable_partition(hop.groups.begin(), hop.groups.end(), [&](const TemplateGroup& group) {
      return group.members.size() * 10 >= hop.events.size() &&
             ShowsSymptom(hop.events[group.members.front()].message, analysis);
    });
  }
  // Errors that neither show a specific symptom nor name a failure (a business
  // rejection: "coupon rejected: CouponExpiredException") are not what
  // fails when warnings do name one ("thread ... stuck ... readTimeout=0"):
  // by what they say, not by their level, the warnings lead.
  auto telling = [&](const TemplateGroup& group) {
    return TellsFailure(hop.events[group.members.front()].message, analysis);
  };
  bool errors_tell = std::any_of(hop.groups.begin(), hop.groups.end(), [&](const TemplateGroup& g) {
    return IsErrorLevel(g.level) && telling(g);
  });
  if (analysis.HasSpecificSymptom() && !errors_tell)
    std::stable_partition(hop.groups.begin(), hop.groups.end(), telling);
}

// The other services a group's messages name: configured topics, and
// services named that no topic is named after.
void AddMentions(const InvestigationState& state, const TemplateGroup& group,
                 const std::string& message, LogHop& hop) {
  for (const auto& topic : state.topics) {
    if (topic == hop.topic) continue;
    bool named = std::any_of(group.members.begin(), group.members.end(), [&](std::size_t i) {
      // "POST http://payment-service/..." or the class that calls it
      // ("c.s.pay.channel.BankChannel" for bank-channel).
      return ContainsName(hop.events[i].message, topic) ||
             ContainsCamelName(hop.events[i].message, topic);
    });
    if (named && std::find(hop.mentions.begin(), hop.mentions.end(), topic) == hop.mentions.end()) {
      hop.mentions.push_back(topic);
    }
  }
  // A service named that no topic is named after ("upstream
  // points-service/10.0.3.7") may log inside a topic services share.
  for (const auto& name : ServiceNamesIn(message)) {
    bool topic = std::find(state.topics.begin(), state.topics.end(), name) != state.topics.end();
    if (!topic && name != hop.topic &&
        std::find(hop.mentions.begin(), hop.mentions.end(), name) == hop.mentions.end()) {
      hop.mentions.push_back(name);
    }
  }
}

void ReadHop(const InvestigationState& state, const QuestionAnalysis& analysis, LogHop& hop) {
  GroupMessages(analysis, hop);
  bool first = true;
  for (const TemplateGroup* group : TopGroups(hop)) {
    const std::string& message = hop.events[group->members.front()].message;
    MessageReading reading = ReadMessage(message);
    if (first) {
      hop.key_message = message;
      hop.reading = reading;
      first = false;
    } else {
      Merge(reading, hop.reading);
    }
    // The full scan is the telling message when there is one.
    if (reading.full_scan && hop.reading.full_scan &&
        hop.reading.sql_fragment == reading.sql_fragment &&
        !ReadMessage(hop.key_message).full_scan) {
      hop.key_message = message;
    }
    AddMentions(state, *group, message, hop);
  }
}

}  // namespace

bool TellsFailure(const std::string& message, const QuestionAnalysis& analysis) {
  return ShowsSymptom(message, analysis) || NamesFailure(ReadMessage(message));
}

bool IsErrorLevel(const std::string& level) {
  return level == "ERROR" || level == "FATAL" || level == "CRITICAL";
}

bool IsFailure(const LogHop& hop) {
  if (NamesFailure(hop.reading)) return true;
  if (hop.groups.empty()) return false;
  return IsErrorLevel(hop.groups.front().level);
}

namespace {

bool IsAncestor(const CaseFile& file, std::size_t candidate, std::size_t of) {
  for (auto p = file.hops[of].parent; p; p = file.hops[*p].parent) {
    if (*p == candidate) return true;
  }
  return false;
}

void LinkHops(const QuestionAnalysis& analysis, CaseFile& file) {
  // A hop whose errors name another hop's topic calls it: that topic's hop
  // hangs below it, whichever was queried first.
  for (std::size_t h = 0; h < file.hops.size(); ++h) {
    LogHop& hop = file.hops[h];
    for (std::size_t e = 0; e < file.hops.size() && !hop.parent; ++e) {
      if (e == h || IsAncestor(file, h, e)) continue;
      const auto& mentions = file.hops[e].mentions;
      if (std::find(mentions.begin(), mentions.end(), hop.topic) != mentions.end()) hop.parent = e;
    }
    bool asked = std::find(analysis.topics.begin(), analysis.topics.end(), hop.topic) !=
                 analysis.topics.end();
    if (hop.parent || asked || h == 0) continue;
    // Reached through a runbook: the hop of the same service family, else
    // the one before. An application sits above its own database, whichever
    // was looked at first (payment-service above payment-db).
    std::optional<std::size_t> family;
    for (std::size_t e = h; e-- > 0;) {
      if (TopicStem(file.hops[e].topic) == TopicStem(hop.topic)) {
        family = e;
        break;
      }
    }
    if (family && IsInfraTopic(file.hops[*family].topic) && !IsInfraTopic(hop.topic) &&
        !file.hops[*family].parent) {
      file.hops[*family].parent = h;
      continue;
    }
    if (family && !IsAncestor(file, h, *family)) {
      hop.parent = family;
    } else if (!IsAncestor(file, h, h - 1)) {
      hop.parent = h - 1;
      hop.linked_by_runbook = true;
    }
  }
  std::size_t best = 0, best_depth = 0;
  for (std::size_t h = 0; h < file.hops.size(); ++h) {
    std::size_t depth = 0;
    for (auto p = file.hops[h].parent; p; p = file.hops[*p].parent) ++depth;
    if (h == 0 || depth >= best_depth) {
      best = h;
      best_depth = depth;
    }
  }
  if (file.hops.empty()) return;
  for (std::optional<std::size_t> p = best; p; p = file.hops[*p].parent) file.chain.push_back(*p);
  std::reverse(file.chain.begin(), file.chain.end());
  // A deepest link that shows no failure explains nothing: drop it.
  while (file.chain.size() > 1 && !IsFailure(file.hops[file.chain.back()])) file.chain.pop_back();
}

struct Anchor {
  std::string text;
  int weight;
  bool with_index_word;     // the sentence should also say 索引/index
  int chain_position = -1;  // the link of the chain it comes from
};

std::vector<Anchor> AnchorsOf(const CaseFile& file, const QuestionAnalysis& analysis) {
  std::vector<Anchor> anchors;
  // Deepest first: on a tie, the section about the root of the chain wins.
  for (std::size_t p = file.chain.size(); p-- > 0;) {
    const LogHop& hop = file.hops[file.chain[p]];
    int depth = static_cast<int>(p);
    for (const auto& exception : hop.reading.exceptions) {
      // A long exception text is specific; "Read timed out" alone is not.
      std::size_t points = text::CodePointCount(exception);
      anchors.push_back({exception,
                         (points >= 24   ? 10
                          : points >= 12 ? 4
                                         : 1) +
                             depth,
                         false, depth});
      // The same error with other numbers ("after 30000ms" vs "after 5000ms")
      // is a weaker match: its first clause.
      // Or with its details cut: "certificate_expired (client certificate
      // CN=...)" in the log, "certificate_expired" in the runbook.
      for (const char* cut : {", ", " ("}) {
        auto at = exception.find(cut);
        if (at != std::string::npos && at >= 12) {
          anchors.push_back({exception.substr(0, at), 4 + depth, false, depth});
        }
      }
    }
    if (text::CodePointCount(hop.reading.lead) >= 6)
      anchors.push_back({hop.reading.lead, 8 + depth, false, depth});
    if (!hop.reading.column.empty() && hop.reading.full_scan) {
      anchors.push_back({hop.reading.column, 6 + depth, true, depth});
    }
    if (!hop.reading.table.empty()) anchors.push_back({hop.reading.table, 2, false, depth});
  }
  if (file.hops.empty()) {
    for (const auto& name : analysis.unknown_services) anchors.push_back({name, 5, false});
    for (const auto& name : analysis.service_words) anchors.push_back({name, 3, false});
    for (const auto& symptom : analysis.symptoms) {
      if (text::CodePointCount(symptom.word) >= 2) anchors.push_back({symptom.word, 1, false});
    }
  }
  return anchors;
}

std::optional<DocHit> ScoreDocument(const DocItem& item, const std::vector<Anchor>& anchors,
                                    const CaseFile& file, const InvestigationState& state) {
  DocHit hit;
  std::string best_quote;
  int best_weight = 0;
  std::string folded = text::CaseFold(item.excerpt);
  for (const auto& anchor : anchors) {
    std::string needle = text::CaseFold(anchor.text);
    if (needle.empty()) continue;
    // Positions in the folded text match the excerpt for the ASCII and CJK
    // text anchors hold; the quote is checked against the excerpt below. A
    // runbook that writes `<域名>` where the log has the host still speaks
    // to that error (FindAllowingPlaceholders). Only for what the logs said:
    // a placeholder is no service the question names.
    std::size_t first = folded.find(needle);
    if (first == std::string::npos && anchor.chain_position >= 0) {
      first = FindAllowingPlaceholders(folded, needle);
    }
    for (std::size_t at = first; at != std::string::npos; at = folded.find(needle, at + 1)) {
      std::string sentence = SentenceAround(item.excerpt, at, kMaxQuoteCodePoints);
      bool index_word = ContainsFold(sentence, "索引") || ContainsFold(sentence, "index");
      if (anchor.with_index_word && !index_word) continue;
      if (text::CodePointCount(sentence) < 4 || item.excerpt.find(sentence) == std::string::npos)
        continue;
      hit.score += anchor.weight;
      if (anchor.weight > best_weight) {
        best_weight = anchor.weight;
        best_quote = sentence;
        hit.chain_position = anchor.chain_position;
      }
      break;
    }
  }
  for (std::size_t position : file.chain) {
    if (ContainsName(item.excerpt, file.hops[position].topic)) hit.score += 2;
  }
  for (const auto& topic : state.topics) {
    bool named = ProseNamesTopic(item.excerpt, topic);
    // "`<service>-db` 慢日志": a placeholder standing for a link of the
    // chain names that link's own topic (billing-worker -> billing-worker-db).
    for (std::size_t position : file.chain) {
      const std::string& link = file.hops[position].topic;
      if (!named && topic.size() > link.size() && topic.starts_with(link) &&
          FindAllowingPlaceholders(item.excerpt, topic) != std::string::npos) {
        named = true;
      }
    }
    if (named) hit.topics.push_back(topic);
  }
  if (hit.score < 3 || best_quote.empty()) return std::nullopt;
  hit.quote = best_quote;
  return hit;
}

void ReadDocuments(const InvestigationState& state, const QuestionAnalysis& analysis,
                   CaseFile& file) {
  std::vector<Anchor> anchors = AnchorsOf(file, analysis);
  std::map<std::string, std::size_t> seen;  // section -> index in file.docs
  for (std::size_t c = 0; c < state.calls.size(); ++c) {
    const CallRecord& call = state.calls[c];
    if (call.tool != ToolKind::kDocuments || call.outcome != Outcome::kEvidence) continue;
    for (std::size_t i = 0; i < call.docs.size(); ++i) {
      const DocItem& item = call.docs[i];
      if (IsInstructionLike(item.title + "\n" + item.excerpt)) {
        std::string title = item.title.empty() ? item.source : item.title;
        if (std::find(file.instruction_like.begin(), file.instruction_like.end(), title) ==
            file.instruction_like.end()) {
          file.instruction_like.push_back(title);
        }
        continue;
      }
      auto hit = ScoreDocument(item, anchors, file, state);
      if (!hit) continue;
      hit->call = c;
      hit->item = i;
      std::string key = item.source + "#" + item.breadcrumb;
      auto it = seen.find(key);
      if (it == seen.end()) {
        seen[key] = file.docs.size();
        file.docs.push_back(*hit);
      } else if (file.docs[it->second].score < hit->score) {
        file.docs[it->second] = *hit;
      }
    }
  }
  std::stable_sort(file.docs.begin(), file.docs.end(),
                   [](const DocHit& a, const DocHit& b) { return a.score > b.score; });
}

}  // namespace

bool IsInstructionLike(const std::string& text) {
  static const char* const kMarks[] = {"忽略之前",
                                       "忽略以上",
                                       "忽略所有",
                                       "忽略前面",
                                       "无视之前",
                                       "ignore previous",
                                       "ignore all previous",
                                       "ignore the above",
                                       "disregard previous",
                                       "disregard all",
                                       "系统指令",
                                       "system prompt",
                                       "AI 诊断助手",
                                       "AI诊断助手",
                                       "智能诊断助手",
                                       "AI 运维助手",
                                       "AI assistant",
                                       "as an AI",
                                       "优先级高于",
                                       "you are now",
                                       "new instructions"};
  return std::any_of(std::begin(kMarks), std::end(kMarks),
                     [&](const char* mark) { return ContainsFold(text, mark); });
}

CaseFile BuildCaseFile(const InvestigationState& state, const QuestionAnalysis& analysis) {
  CaseFile file;
  for (std::size_t c = 0; c < state.calls.size(); ++c) {
    const CallRecord& call = state.calls[c];
    if (call.tool != ToolKind::kLogs || call.outcome != Outcome::kEvidence) continue;
    // An audit or deploy log holds records of changes, and a lookup of a
    // thing in an inventory its records: neither is a failure.
    if (IsChangeTopic(call.input.topic) || IsRecordLookup(call)) continue;
    auto hop = std::find_if(file.hops.begin(), file.hops.end(),
                            [&](const LogHop& h) { return h.topic == call.input.topic; });
    if (hop == file.hops.end()) {
      file.hops.push_back({});
      hop = file.hops.end() - 1;
      hop->topic = call.input.topic;
      hop->key_call = c;
    }
    hop->calls.push_back(c);
    hop->events.insert(hop->events.end(), call.events.begin(), call.events.end());
    if (file.window_minutes == 0) file.window_minutes = call.lookback_used;
    for (const auto& event : call.events) {
      std::string time = SortableTime(event.timestamp);
      if (time.empty()) continue;
      if (file.latest_time.empty() || time > file.latest_time) file.latest_time = time;
      if (file.earliest_time.empty() || time < file.earliest_time) file.earliest_time = time;
    }
  }
  if (analysis.clock_hour && file.latest_time.size() >= 10) {
    char hour[16];
    std::snprintf(hour, sizeof(hour), " %02d:%02d:00", *analysis.clock_hour,
                  analysis.clock_minute.value_or(0));
    file.stated_onset = file.latest_time.substr(0, 10) + hour;
    file.stated_minute = analysis.clock_minute.has_value();
    // "8 点" asked at 01:00 is yesterday's 20:00.
    if (file.stated_onset > file.latest_time)
      file.stated_onset = MinusMinutes(file.stated_onset, 1440);
  }
  for (auto& hop : file.hops) {
    ReadHop(state, analysis, hop);
    // The call that returned the key message, for the citation.
    for (std::size_t c : hop.calls) {
      const auto& events = state.calls[c].events;
      bool has = std::any_of(events.begin(), events.end(),
                             [&](const EventItem& e) { return e.message == hop.key_message; });
      if (has) {
        hop.key_call = c;
        break;
      }
    }
  }
  LinkHops(analysis, file);
  ReadDocuments(state, analysis, file);
  file.schemas = ReadSchemas(state);
  file.change = FindChangeRecord(state, file);
  file.resource = FindResourceRecord(state, file);
  file.metrics = FindMetricSignals(state, FailureOnset(file), ChainTopics(file));
  return file;
}

std::string FailureOnset(const CaseFile& file) {
  std::string onset = FirstSeenFailure(file);
  return onset.empty() ? file.stated_onset : onset;
}

std::vector<std::string> ChainTopics(const CaseFile& file) {
  std::vector<std::string> topics;
  for (std::size_t position : file.chain) {
    const std::string& topic = file.hops[position].topic;
    if (std::find(topics.begin(), topics.end(), topic) == topics.end()) topics.push_back(topic);
  }
  return topics;
}

}  // namespace diagd::model::offline
