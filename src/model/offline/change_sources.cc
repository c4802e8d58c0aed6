// Change records outside the change tables (case_file.h): the lines of an
// audit or deploy log, and the change notices among the documents. Each is
// read into a ChangeRecord like a table row, so FindChangeRecord judges
// them all by one rule.
#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "model/offline/case_file.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The first ticket-shaped token: capitals (and digits) a dash and digits
// (NET-11376, CHG-5512, ITSM-4558).
std::string TicketIn(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!IsUpper(text[i]) || (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])))))
      continue;
    std::size_t j = i;
    while (j < text.size() && (IsUpper(text[j]) || IsDigit(text[j]))) ++j;
    if (j - i < 2 || j >= text.size() || text[j] != '-') continue;
    std::size_t k = j + 1;
    while (k < text.size() && IsDigit(text[k])) ++k;
    bool ends = k == text.size() || !std::isalnum(static_cast<unsigned char>(text[k]));
    if (k - j - 1 >= 2 && ends) return std::string(text.substr(i, k - i));
  }
  return {};
}

// The value of the first `name=value` field among `names` in `text`, to
// a space, comma or semicolon.
std::string FieldValue(std::string_view text, std::initializer_list<std::string_view> names) {
  std::vector<KeyValueField> fields = KeyValueFields(text);
  for (std::string_view name : names) {
    for (const KeyValueField& field : fields) {
      if (field.key == name) return std::string(field.value.substr(0, field.value.find_first_of(" ,;")));
    }
  }
  return {};
}

// The first "YYYY-MM-DD HH:MM[:SS]" (or with a T) in `text`, sortable.
std::string FirstTimeIn(std::string_view text) {
  for (std::size_t i = 0; i + 16 <= text.size(); ++i) {
    if (!IsDigit(text[i]) || text[i + 4] != '-' || text[i + 7] != '-') continue;
    std::string candidate(text.substr(i, 19));
    if (candidate.size() == 19 && candidate[16] != ':') candidate = candidate.substr(0, 16) + ":00";
    if (candidate.size() < 19) candidate += ":00";
    std::string time = SortableTime(candidate);
    if (!time.empty()) return time;
  }
  return {};
}

// A document line "- Target: dns" / "目标：dns": the value after the label.
std::string LabelledValue(std::string_view text, std::initializer_list<std::string_view> labels) {
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = Trim(text.substr(start, end - start));
    start = end + 1;
    if (line.starts_with("- ")) line.remove_prefix(2);
    for (std::string_view label : labels) {
      if (!line.starts_with(label)) continue;
      std::string_view rest = Trim(line.substr(label.size()));
      if (rest.starts_with(":")) rest.remove_prefix(1);
      else if (rest.starts_with("：")) rest.remove_prefix(std::string_view("：").size());
      else continue;
      return std::string(Trim(rest));
    }
  }
  return {};
}

// What a change notice says was done: the first line under a "What" (内容)
// heading, else its longest line that is neither a heading nor a label.
std::string WhatWasDone(std::string_view text) {
  std::string longest;
  bool under_what = false;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = Trim(text.substr(start, end - start));
    start = end + 1;
    if (line.empty()) continue;
    if (line.starts_with("#")) {
      under_what = ContainsFold(line, "what") || ContainsFold(line, "内容");
      continue;
    }
    if (under_what) return std::string(line);
    if (line.starts_with("- ")) continue;
    if (line.size() > longest.size()) longest = std::string(line);
  }
  return longest;
}

bool NamesAChange(std::string_view text) {
  static const char* const kMarks[] = {"change", "变更", "deploy", "release", "发布", "上线",
                                       "rollout", "applied", "执行"};
  return std::any_of(std::begin(kMarks), std::end(kMarks),
                     [&](const char* mark) { return ContainsFold(text, mark); });
}

}  // namespace

std::string ConfigKeysIn(std::string_view text) {
  std::string keys;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    bool part = i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) ||
                                    text[i] == '.' || text[i] == '-' || text[i] == '_' ||
                                    text[i] == '=');
    if (part) continue;
    std::string_view token = text.substr(start, i - start);
    start = i + 1;
    bool joined = token.find_first_of("._=") != std::string_view::npos ||
                  (token.size() > 1 && token.find('-', 1) != std::string_view::npos) ||
                  token.starts_with("-X");
    bool letters = std::any_of(token.begin(), token.end(),
                               [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
    if (joined && letters && token.size() >= 4) keys += std::string(keys.empty() ? "" : " ") + std::string(token);
  }
  return keys;
}

bool IsRecordLookup(const CallRecord& call) {
  return call.tool == ToolKind::kLogs && call.input.query.starts_with("\"") &&
         call.input.query.find("level:") == std::string::npos;
}

bool IsChangeTopic(const std::string& topic) {
  static const char* const kWords[] = {"audit", "change", "changes", "changelog", "deploy",
                                       "deploys", "deployment", "deployments", "release",
                                       "releases", "argocd", "rollout", "rollouts", "gitops",
                                       "cmdb", "itsm"};
  std::string lower = text::AsciiLower(topic);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= lower.size(); ++i) {
    if (i < lower.size() && std::isalnum(static_cast<unsigned char>(lower[i]))) continue;
    std::string_view token = std::string_view(lower).substr(start, i - start);
    start = i + 1;
    for (const char* word : kWords) {
      if (token == word) return true;
    }
  }
  return false;
}

std::vector<ChangeRecord> ChangesInLogs(const InvestigationState& state) {
  std::vector<ChangeRecord> out;
  for (std::size_t c = 0; c < state.calls.size(); ++c) {
    const CallRecord& call = state.calls[c];
    if (call.tool != ToolKind::kLogs || call.outcome != Outcome::kEvidence ||
        !IsChangeTopic(call.input.topic)) {
      continue;
    }
    for (const auto& event : call.events) {
      const std::string& message = event.message;
      std::string ticket = TicketIn(message);
      std::string time = SortableTime(event.timestamp);
      if (ticket.empty() || time.empty() || !NamesAChange(message)) continue;
      ChangeRecord record;
      record.call = c;
      record.table = call.input.topic;
      record.time = time;
      record.ticket = ticket;
      record.service = FieldValue(message, {"target", "service", "app", "application"});
      std::size_t colon = message.find(": ");
      record.summary = colon == std::string::npos ? message : message.substr(colon + 2);
      record.quote = CutPrefix(record.summary, 160);
      if (text::CodePointCount(record.quote) < 4) record.quote = ticket;
      out.push_back(std::move(record));
    }
  }
  return out;
}

namespace {

// A change notice as the sections returned so far tell it: a notice is cut
// into heading sections (its header with the ticket, target and time, its
// "What" with what was done), and a search may return either.
struct Notice {
  std::string title, ticket, time, service, summary;
  std::size_t call = 0;  // the call whose excerpt holds the summary
};

std::vector<Notice> NoticesSeen(const InvestigationState& state) {
  std::vector<Notice> notices;
  for (std::size_t c = 0; c < state.calls.size(); ++c) {
    const CallRecord& call = state.calls[c];
    if (call.tool != ToolKind::kDocuments || call.outcome != Outcome::kEvidence) continue;
    for (const auto& item : call.docs) {
      std::string heading = item.title + " " + item.source + " " + item.breadcrumb;
      std::string ticket = TicketIn(heading);
      if (ticket.empty() || !NamesAChange(heading)) continue;
      std::string title = item.title.empty() ? item.source : item.title;
      auto notice = std::find_if(notices.begin(), notices.end(),
                                 [&](const Notice& n) { return n.title == title; });
      if (notice == notices.end()) {
        notices.push_back({title, ticket, {}, {}, {}, c});
        notice = notices.end() - 1;
      }
      if (notice->time.empty()) notice->time = FirstTimeIn(item.excerpt);
      if (notice->service.empty())
        notice->service = LabelledValue(item.excerpt, {"Target", "Service", "目标", "对象", "服务"});
      std::string summary = WhatWasDone(item.excerpt);
      if (notice->summary.empty() && text::CodePointCount(summary) >= 4) {
        notice->summary = summary;
        notice->call = c;
      }
    }
  }
  return notices;
}

}  // namespace

std::vector<ChangeRecord> ChangesInDocuments(const InvestigationState& state) {
  std::vector<ChangeRecord> out;
  for (const Notice& notice : NoticesSeen(state)) {
    if (notice.time.empty() || notice.summary.empty()) continue;
    ChangeRecord record;
    record.call = notice.call;
    record.table = notice.title;
    record.time = notice.time;
    record.ticket = notice.ticket;
    record.service = notice.service;
    record.summary = notice.summary;
    record.quote = CutPrefix(notice.summary, 160);
    out.push_back(std::move(record));
  }
  return out;
}

bool ShowsANewChangeNotice(const InvestigationState& state, std::size_t index) {
  auto tickets_of = [&](std::size_t c) {
    std::vector<std::string> tickets;
    const CallRecord& call = state.calls[c];
    if (call.tool != ToolKind::kDocuments || call.outcome != Outcome::kEvidence) return tickets;
    for (const auto& item : call.docs) {
      std::string heading = item.title + " " + item.source + " " + item.breadcrumb;
      std::string ticket = TicketIn(heading);
      if (!ticket.empty() && NamesAChange(heading)) tickets.push_back(ticket);
    }
    return tickets;
  };
  for (const auto& ticket : tickets_of(index)) {
    bool seen = false;
    for (std::size_t c = 0; c < index && !seen; ++c) {
      auto earlier = tickets_of(c);
      seen = std::find(earlier.begin(), earlier.end(), ticket) != earlier.end();
    }
    if (!seen) return true;
  }
  return false;
}

std::vector<std::string> UndatedChangeNotices(const InvestigationState& state) {
  std::vector<std::string> tickets;
  for (const Notice& notice : NoticesSeen(state)) {
    if (notice.time.empty() && !notice.summary.empty()) tickets.push_back(notice.ticket);
  }
  return tickets;
}

}  // namespace diagd::model::offline
