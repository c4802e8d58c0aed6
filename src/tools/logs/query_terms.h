// The terms of a `query_logs` query, split as written (docs/log-query.md):
// text terms and phrases, `level:`/`service:` fields, and the time bounds
// `after:TIME` and `before:TIME`. One splitter serves the backend, which
// builds its matchers from the terms (log_query.h), and the scope, which
// must see the bounds as the backend reads them (logs_tool.h).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace diagd::tools::logs {

struct QueryTerm {
  enum class Kind { kText, kLevel, kService, kAfter, kBefore };
  Kind kind = Kind::kText;
  bool negated = false;
  std::string value;         // a phrase unquoted and unescaped; a field's value as written
  std::string_view written;  // the term as it stands in the query, `-` included
  std::int64_t time_ms = 0;  // after:/before: only, ms since the epoch
};

// INVALID_ARGUMENT, with a short reason fit for the model, for an
// unterminated quote, a `-` with nothing after it, or a bound that is not an
// RFC 3339 time with a zone (the reason quotes the term) or is negated.
Result<std::vector<QueryTerm>> SplitQueryTerms(std::string_view text);

// What the bounds of a query let through: `after` <= time < `before`.
struct TimeBounds {
  std::optional<std::int64_t> after_ms;   // included
  std::optional<std::int64_t> before_ms;  // excluded
  bool Any() const { return after_ms || before_ms; }
};

// The bounds of `terms` (several of one kind: the tightest holds).
// INVALID_ARGUMENT when they leave no time at all (after: not earlier than
// before:).
Result<TimeBounds> BoundsOf(const std::vector<QueryTerm>& terms);

}  // namespace diagd::tools::logs
