#include "tools/logs/query_terms.h"

#include <algorithm>
#include <chrono>

#include "core/clock.h"
#include "core/text.h"

namespace diagd::tools::logs {
namespace {

// How much of a refused term a reason quotes: enough to find it.
constexpr std::size_t kMaxQuotedTermChars = 60;

// Terms are separated by ASCII white space and U+3000 (the ideographic
// space a Chinese input method types).
std::size_t SeparatorLength(std::string_view s, std::size_t i) {
  char c = s[i];
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') return 1;
  if (s.substr(i, 3) == "\xE3\x80\x80") return 3;
  return 0;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : s_(text) {}

  void SkipSeparators() {
    while (i_ < s_.size()) {
      std::size_t n = SeparatorLength(s_, i_);
      if (n == 0) return;
      i_ += n;
    }
  }
  std::size_t position() const { return i_; }
  std::string_view Since(std::size_t start) const { return s_.substr(start, i_ - start); }
  bool AtEnd() const { return i_ >= s_.size(); }
  bool AtSeparatorOrEnd() const { return AtEnd() || SeparatorLength(s_, i_) > 0; }
  bool Eat(char c) {
    if (AtEnd() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool EatNoCase(std::string_view prefix) {
    if (!StartsWithNoCase(s_.substr(i_), prefix)) return false;
    i_ += prefix.size();
    return true;
  }
  // A quoted phrase (`\"` and `\\` escape inside it) or a bare word up to
  // the next separator.
  Result<std::string> Value() {
    if (!Eat('"')) {
      std::size_t start = i_;
      while (!AtSeparatorOrEnd()) ++i_;
      return std::string(s_.substr(start, i_ - start));
    }
    std::string phrase;
    while (!AtEnd()) {
      char c = s_[i_++];
      if (c == '"') return phrase;
      if (c == '\\' && !AtEnd() && (s_[i_] == '"' || s_[i_] == '\\')) c = s_[i_++];
      phrase.push_back(c);
    }
    return Error::InvalidArgument("unterminated quote in query");
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

QueryTerm::Kind FieldKind(Tokenizer& tokens) {
  using Kind = QueryTerm::Kind;
  if (tokens.EatNoCase("level:")) return Kind::kLevel;
  if (tokens.EatNoCase("service:")) return Kind::kService;
  if (tokens.EatNoCase("after:")) return Kind::kAfter;
  if (tokens.EatNoCase("before:")) return Kind::kBefore;
  return Kind::kText;
}

// The time of an after:/before: term; the reasons name the term, so the
// model knows which one to mend.
Status ReadTime(QueryTerm& term) {
  std::string_view name = term.kind == QueryTerm::Kind::kAfter ? "after:" : "before:";
  std::string example = std::string(name) + "2026-11-29T09:55:00Z";
  if (term.negated) {
    return Error::InvalidArgument("-" + std::string(name) +
                                  " cannot be excluded; bound the other side instead, e.g. " +
                                  (term.kind == QueryTerm::Kind::kAfter ? "before:" : "after:") +
                                  "2026-11-29T09:55:00Z");
  }
  if (term.value.empty()) {
    return Error::InvalidArgument(std::string(name) + " needs an RFC 3339 time, e.g. " + example);
  }
  auto time = ParseRfc3339(term.value);
  if (!time) {
    return Error::InvalidArgument(text::TruncateCodePoints(term.written, kMaxQuotedTermChars) +
                                  " is not an RFC 3339 time with a zone, e.g. " + example);
  }
  term.time_ms =
      std::chrono::floor<std::chrono::milliseconds>(time->time_since_epoch()).count();
  return {};
}

}  // namespace

Result<std::vector<QueryTerm>> SplitQueryTerms(std::string_view text) {
  std::vector<QueryTerm> terms;
  Tokenizer tokens(text);
  for (tokens.SkipSeparators(); !tokens.AtEnd(); tokens.SkipSeparators()) {
    std::size_t start = tokens.position();
    QueryTerm term;
    term.negated = tokens.Eat('-');
    if (term.negated && tokens.AtSeparatorOrEnd()) {
      return Error::InvalidArgument("'-' must be followed by a term to exclude, e.g. -healthcheck");
    }
    term.kind = FieldKind(tokens);
    auto value = tokens.Value();
    if (!value) return Unexpected(value.error());
    term.value = std::move(*value);
    term.written = tokens.Since(start);
    if (term.kind == QueryTerm::Kind::kAfter || term.kind == QueryTerm::Kind::kBefore) {
      if (auto read = ReadTime(term); !read) return Unexpected(read.error());
    }
    terms.push_back(std::move(term));
  }
  return terms;
}

Result<TimeBounds> BoundsOf(const std::vector<QueryTerm>& terms) {
  TimeBounds bounds;
  for (const auto& term : terms) {
    if (term.kind == QueryTerm::Kind::kAfter) {
      bounds.after_ms = std::max(bounds.after_ms.value_or(term.time_ms), term.time_ms);
    } else if (term.kind == QueryTerm::Kind::kBefore) {
      bounds.before_ms = std::min(bounds.before_ms.value_or(term.time_ms), term.time_ms);
    }
  }
  if (bounds.after_ms && bounds.before_ms && *bounds.after_ms >= *bounds.before_ms) {
    return Error::InvalidArgument("after: must be earlier than before: (after: includes its time, "
                                  "before: excludes it)");
  }
  return bounds;
}

}  // namespace diagd::tools::logs
