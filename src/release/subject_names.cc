#include "release/subject_names.h"

#include <algorithm>
#include <iterator>
#include <cctype>
#include <optional>
#include <set>
#include <string_view>

#include "core/text.h"

namespace diagd::release {
namespace {

bool IsAsciiAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsAsciiAlpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool IsAsciiDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool IsJoiner(char c) { return c == '-' || c == '_' || c == '.' || c == '/' || c == ':'; }
bool IsNameChar(char c) { return IsAsciiAlnum(c) || IsJoiner(c); }

bool AllOf(std::string_view s, bool (*pred)(char)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), pred);
}

// Units a number carries when it is a quantity, a rate, a time of day or an
// ordinal rather than a name: `500ms`, `10GB`, `3x`, `2pm`, `1st`.
constexpr std::string_view kUnits[] = {
    "ns",   "us",    "ms",   "s",    "sec",  "secs",  "second", "seconds", "m",    "min",
    "mins", "minute", "minutes", "h", "hr",  "hrs",   "hour",   "hours",   "d",    "day",
    "days", "w",     "wk",   "week", "weeks", "mo",   "y",      "yr",      "k",    "kb",
    "kib",  "mb",    "mib",  "g",    "gb",   "gib",   "t",      "tb",      "tib",  "pb",
    "b",    "bps",   "kbps", "mbps", "gbps", "gbit",  "mbit",   "rps",     "qps",  "tps",
    "ops",  "rpm",   "x",    "am",   "pm",   "th",    "st",     "nd",      "rd",   "c",
    "core", "cores"};

// Technical words that contain a digit or a joiner but name no instance:
// encodings, architectures, hashes, protocols, the platform.
constexpr std::string_view kTerms[] = {
    "utf-8",  "utf8",  "utf-16", "x86_64", "x86-64", "amd64", "arm64", "aarch64",
    "base64", "md5",   "sha1",   "sha256", "sha-256", "ipv4", "ipv6",  "k8s",
    "oauth2", "http2", "h2",     "2fa",    "mp4",    "e2e"};

// `12`, `1.5`: digits with at most one dot inside.
std::optional<std::size_t> NumberPrefix(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && IsAsciiDigit(s[i])) ++i;
  if (i == 0) return std::nullopt;
  if (i + 1 < s.size() && s[i] == '.' && IsAsciiDigit(s[i + 1])) {
    ++i;
    while (i < s.size() && IsAsciiDigit(s[i])) ++i;
  }
  return i;
}

bool IsUnit(std::string_view s) {
  return std::find(std::begin(kUnits), std::end(kUnits), s) != std::end(kUnits);
}

// A number with a unit, or several (`2h30m`); a status class (`5xx`, `50x`);
// a percentile (`p99`, `p99.9`).
bool IsQuantity(std::string_view lower) {
  if (lower.size() == 3 && IsAsciiDigit(lower[0]) && lower[2] == 'x' &&
      (lower[1] == 'x' || IsAsciiDigit(lower[1]))) {
    return true;
  }
  if (lower.size() >= 2 && lower[0] == 'p' && NumberPrefix(lower.substr(1)) == lower.size() - 1) {
    return true;
  }
  std::string_view rest = lower;
  while (!rest.empty()) {
    auto digits = NumberPrefix(rest);
    if (!digits) return false;
    rest.remove_prefix(*digits);
    std::size_t letters = 0;
    while (letters < rest.size() && IsAsciiAlpha(rest[letters])) ++letters;
    if (letters == 0 || !IsUnit(rest.substr(0, letters))) return false;
    rest.remove_prefix(letters);
  }
  return true;
}

// A date or a time of day: digits with `-`, `:`, `.`, `+` and the ISO 8601
// letters T and Z (`2026-11-29T09:55:00Z`, `09:55:00.5Z`), holding a `:`
// or a whole date.
bool IsTimestamp(std::string_view lower) {
  if (lower.empty() || !IsAsciiDigit(lower[0])) return false;
  for (char c : lower) {
    if (!IsAsciiDigit(c) && c != '-' && c != ':' && c != '.' && c != '+' && c != 't' && c != 'z') {
      return false;
    }
  }
  bool date = lower.size() >= 10 && lower[4] == '-' && lower[7] == '-';
  return date || lower.find(':') != std::string_view::npos;
}

// `HTTP/1.1`, `HTTP/2`, `TLSv1.3`, `TLS1.2`, `SSLv3`: a protocol's version.
bool IsProtocolVersion(std::string_view lower) {
  for (std::string_view protocol : {"https", "http", "tls", "ssl", "quic", "spdy"}) {
    if (!lower.starts_with(protocol)) continue;
    std::string_view rest = lower.substr(protocol.size());
    if (!rest.empty() && (rest[0] == '/' || rest[0] == 'v')) rest.remove_prefix(1);
    return !rest.empty() && AllOf(rest, [](char c) { return IsAsciiDigit(c) || c == '.'; });
  }
  return false;
}

// `e.g`, `i.e`, `a.m`: single letters between dots.
bool IsAbbreviation(std::string_view lower) {
  if (lower.size() < 3) return false;
  for (std::size_t i = 0; i < lower.size(); ++i) {
    bool letter_place = i % 2 == 0;
    if (letter_place ? !IsAsciiAlpha(lower[i]) : lower[i] != '.') return false;
  }
  return true;
}

// Trailing joiners are punctuation (`db-7.`, `order-events:`); leading ones
// too, except the `/` that starts a path.
std::string_view TrimJoiners(std::string_view s) {
  while (!s.empty() && IsJoiner(s.back())) s.remove_suffix(1);
  while (!s.empty() && IsJoiner(s.front()) && s.front() != '/') s.remove_prefix(1);
  return s;
}

// A dotted version (`v2.3.1`) is also written without its `v`.
std::vector<std::string> FormsOf(const std::string& lower) {
  std::vector<std::string> forms{lower};
  if (lower.size() > 2 && lower[0] == 'v' && IsAsciiDigit(lower[1]) &&
      lower.find('.') != std::string::npos &&
      AllOf(std::string_view(lower).substr(1),
            [](char c) { return IsAsciiDigit(c) || c == '.'; })) {
    forms.push_back(lower.substr(1));
  }
  return forms;
}

class Collector {
 public:
  void Add(std::string name, std::vector<std::string> forms, const std::string& key) {
    if (!seen_.insert(key).second) return;
    subjects_.push_back({std::move(name), std::move(forms)});
  }
  std::vector<Subject> Take() { return std::move(subjects_); }

 private:
  std::set<std::string> seen_;
  std::vector<Subject> subjects_;
};

// One piece with no `:` and (unless it is a path) no `/` left in it.
void AddInstanceName(std::string_view piece, Collector& out) {
  piece = TrimJoiners(piece);
  if (piece.empty()) return;
  bool letter = std::any_of(piece.begin(), piece.end(), IsAsciiAlpha);
  bool digit_or_joiner = std::any_of(piece.begin(), piece.end(),
                                     [](char c) { return IsAsciiDigit(c) || IsJoiner(c); });
  if (!letter || !digit_or_joiner) return;
  std::string lower = text::AsciiLower(piece);
  bool term = std::find(std::begin(kTerms), std::end(kTerms), lower) != std::end(kTerms);
  if (term || IsQuantity(lower) || IsTimestamp(lower) || IsProtocolVersion(lower) ||
      IsAbbreviation(lower)) {
    return;
  }
  out.Add(std::string(piece), FormsOf(lower), lower);
}

// Words joined by `/` outside a path are alternatives (`read/write`,
// `TCP/IP`, `order-service/db-7`): each is judged alone.
void AddSlashed(std::string_view part, Collector& out) {
  part = TrimJoiners(part);
  if (part.empty()) return;
  if (part.front() == '/') {
    AddInstanceName(part, out);
    return;
  }
  while (!part.empty()) {
    std::size_t slash = part.find('/');
    AddInstanceName(part.substr(0, slash), out);
    if (slash == std::string_view::npos) break;
    part.remove_prefix(slash + 1);
  }
}

// One run of name characters from the question.
void AddToken(std::string_view token, Collector& out) {
  token = TrimJoiners(token);
  if (token.empty()) return;
  std::string lower = text::AsciiLower(token);
  if (IsTimestamp(lower) || IsProtocolVersion(lower)) return;
  // A URL: its scheme names nothing; its host (without the port) and its
  // path may.
  if (std::size_t scheme = token.find("://"); scheme != std::string_view::npos) {
    std::string_view rest = token.substr(scheme + 3);
    std::size_t path = rest.find('/');
    std::string_view host = rest.substr(0, path);
    AddInstanceName(host.substr(0, host.find(':')), out);
    if (path != std::string_view::npos) AddSlashed(rest.substr(path), out);
    return;
  }
  // `:` separates a host from its port (dropped), a key from its value
  // (`service:order-api`), or the parts of a time (already skipped).
  while (!token.empty()) {
    std::size_t colon = token.find(':');
    std::string_view part = token.substr(0, colon);
    if (!AllOf(part, IsAsciiDigit)) AddSlashed(part, out);
    if (colon == std::string_view::npos) break;
    token.remove_prefix(colon + 1);
  }
}

// Where `name` (lower case) occurs in `question` (lower case) at name
// boundaries; npos when nowhere.
std::size_t FindName(const std::string& question, const std::string& name) {
  for (std::size_t at = question.find(name); at != std::string::npos;
       at = question.find(name, at + 1)) {
    bool starts = !IsAsciiAlnum(name.front()) || at == 0 || !IsAsciiAlnum(question[at - 1]);
    std::size_t end = at + name.size();
    bool ends =
        !IsAsciiAlnum(name.back()) || end == question.size() || !IsAsciiAlnum(question[end]);
    if (starts && ends) return at;
  }
  return std::string::npos;
}

void AddConfiguredNames(const std::string& question, const SubjectVocabulary& vocabulary,
                        Collector& out) {
  const std::string lower = text::AsciiLower(question);
  auto add_names = [&](const std::vector<std::string>& names) {
    for (const auto& name : names) {
      std::string form = text::AsciiLower(name);
      if (form.empty()) continue;
      std::size_t at = FindName(lower, form);
      if (at != std::string::npos) out.Add(question.substr(at, form.size()), {form}, form);
    }
  };
  add_names(vocabulary.topics);
  add_names(vocabulary.datasources);
  add_names(vocabulary.tables);
  // The longest alias first, and none inside a longer one already taken:
  // `订单服务` names the topic once, not again as `订单`.
  std::vector<const TopicAlias*> aliases;
  for (const auto& alias : vocabulary.aliases) {
    if (!alias.alias.empty()) aliases.push_back(&alias);
  }
  std::stable_sort(aliases.begin(), aliases.end(), [](const TopicAlias* a, const TopicAlias* b) {
    return a->alias.size() > b->alias.size();
  });
  std::vector<std::pair<std::size_t, std::size_t>> taken;
  for (const TopicAlias* alias : aliases) {
    std::string form = text::AsciiLower(alias->alias);
    std::size_t at = FindName(lower, form);
    if (at == std::string::npos) continue;
    std::size_t end = at + form.size();
    bool inside = std::any_of(taken.begin(), taken.end(), [&](const auto& span) {
      return at < span.second && span.first < end;
    });
    if (inside) continue;
    taken.emplace_back(at, end);
    std::string topic = text::AsciiLower(alias->topic);
    out.Add(question.substr(at, form.size()), {form, topic}, "topic:" + topic);
  }
}

}  // namespace

bool ContainsName(const std::string& haystack, const std::string& form) {
  return !form.empty() && FindName(haystack, form) != std::string::npos;
}

std::vector<Subject> SubjectsOf(const std::vector<std::string>& questions,
                                const SubjectVocabulary& vocabulary) {
  Collector out;
  for (const auto& question : questions) {
    AddConfiguredNames(question, vocabulary, out);
    std::size_t i = 0;
    while (i < question.size()) {
      if (!IsNameChar(question[i])) {
        ++i;
        continue;
      }
      std::size_t start = i;
      while (i < question.size() && IsNameChar(question[i])) ++i;
      // `</script>`: a markup tag pasted with the question names nothing.
      bool tag = start > 0 && question[start - 1] == '<';
      if (!tag) AddToken(std::string_view(question).substr(start, i - start), out);
    }
  }
  return out.Take();
}

}  // namespace diagd::release
