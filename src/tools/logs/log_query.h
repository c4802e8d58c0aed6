// The log query language of `query_logs` (docs/log-query.md):
//
//   connection timeout          both terms, in any order (AND)
//   "connection refused"        a phrase, exactly as written (case aside)
//   -healthcheck  -"GET /ping"  exclusions
//   level:ERROR  level:warn,error  -level:INFO
//   service:order-service  service:a,b  -service:gateway
//   after:2026-11-29T09:55:00Z  before:2026-11-29T10:10:00+08:00
//
// Terms and phrases are case-insensitive substrings of the event's message
// (Unicode case folding; Chinese matches as a substring, so 超时 finds
// 连接超时); `level:` and `service:` compare whole names; `after:` (its time
// included) and `before:` (excluded) bound the time. An empty query matches
// every event.
//
// Thread safety: a LogQuery is an immutable value once parsed; MessageMatcher
// keeps a scratch buffer and belongs to one thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "tools/logs/query_terms.h"

namespace diagd::tools::logs {

// `level:` or `service:` with its alternatives (comma-separated: any of).
struct FieldClause {
  std::vector<std::string> values;  // levels normalized; services case-folded
  bool negated = false;
};

struct LogQuery {
  std::vector<std::string> required;  // case-folded; each must occur in the message
  std::vector<std::string> excluded;  // case-folded; none may occur
  std::vector<FieldClause> levels;
  std::vector<FieldClause> services;
  TimeBounds bounds;  // applied to the search window, not by the matchers

  bool HasTextTerms() const { return !required.empty() || !excluded.empty(); }
};

// INVALID_ARGUMENT, with a short reason fit for the model, for an
// unterminated quote, a `-` with nothing after it, a field with no value, or
// a time bound that is not an RFC 3339 time, is negated or leaves no time.
Result<LogQuery> ParseLogQuery(std::string_view text);

// `level` normalized (empty when the event has none).
bool LevelMatches(const LogQuery& query, std::string_view level);
// `folded_service` case-folded (empty when the event has none).
bool ServiceMatches(const LogQuery& query, std::string_view folded_service);

// True for code points whose case fold is themselves, whatever stands
// around them (caseless, NFC-stable, never composed with a neighbour): CJK
// ideographs and punctuation, Hangul syllables, fullwidth punctuation,
// general punctuation. Text made of these and ASCII folds without utf8proc,
// which makes matching Chinese logs ten times cheaper.
bool IsFoldStable(char32_t cp);

// The text terms of a query against messages.
class MessageMatcher {
 public:
  explicit MessageMatcher(const LogQuery& query) : query_(query) {}
  bool Matches(std::string_view message);
  // False when `text`, which holds the message verbatim among other bytes,
  // lacks a required term: then the message cannot match. A cheap look at a
  // record before it is decoded.
  bool MayMatch(std::string_view text);

 private:
  // Sets folded_ to `text` in the form the terms were folded to.
  void Fold(std::string_view text);
  bool HasAllRequired() const;

  const LogQuery& query_;
  std::string folded_;  // reused between messages
};

}  // namespace diagd::tools::logs
