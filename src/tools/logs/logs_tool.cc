#include "tools/logs/logs_tool.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <boost/json.hpp>

#include "core/clock.h"
#include "core/json.h"
#include "core/text.h"
#include "tools/logs/query_terms.h"

namespace diagd::tools::logs {

bool IsPlainName(std::string_view name) {
  if (name.empty() || name.size() > kMaxTopicChars || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
  });
}

InputResult<LogsRequest> ParseInput(const boost::json::object& input, const LogsRules& rules) {
  if (auto keys = CheckKeys(input, {"topic", "query", "lookback_minutes"}, {"topic", "query"});
      !keys) {
    return Unexpected(keys.error());
  }
  auto topic = ReadString(input, "topic", Blank::kRejected, kMaxTopicChars);
  if (!topic) return Unexpected(topic.error());
  if (!rules.topics.empty()) {
    if (std::find(rules.topics.begin(), rules.topics.end(), *topic) == rules.topics.end()) {
      return InputFailure(InputField("topic"), "UNKNOWN_TOPIC");
    }
  } else if (!IsPlainName(*topic)) {
    return InputFailure(InputField("topic"), "INVALID_NAME");
  }
  auto query = ReadString(input, "query", Blank::kAllowed, kMaxQueryChars);
  if (!query) return Unexpected(query.error());
  auto lookback = ReadOptionalInteger(input, "lookback_minutes");
  if (!lookback) return Unexpected(lookback.error());
  std::int64_t minutes = lookback->value_or(rules.default_lookback_minutes);
  if (minutes < 1) return InputFailure(InputField("lookback_minutes"), "OUT_OF_RANGE");
  minutes = std::min<std::int64_t>(minutes, rules.max_lookback_minutes);
  return LogsRequest{std::move(*topic), std::move(*query), static_cast<int>(minutes)};
}

namespace {

// A bound as the backend reads it: one spelling per instant.
boost::json::value BoundIdentity(const std::optional<std::int64_t>& ms) {
  if (!ms) return nullptr;
  return boost::json::value(FormatRfc3339Millis(WallTime(std::chrono::milliseconds(*ms))));
}

}  // namespace

Scope ScopeOf(const LogsRequest& request) {
  std::string query = text::CollapseWhitespace(request.query);
  boost::json::array identity{"query_logs", request.topic, query, request.lookback_minutes};
  // With time bounds, they are identified by the instants they name (any
  // zone, any place in the query, the tightest of several) and the rest of
  // the query by its text. A query the backend will refuse keeps its text.
  auto terms = SplitQueryTerms(request.query);
  auto bounds = terms ? BoundsOf(*terms) : Result<TimeBounds>(Unexpected(terms.error()));
  if (bounds && bounds->Any()) {
    std::string rest;
    for (const auto& term : *terms) {
      if (term.kind == QueryTerm::Kind::kAfter || term.kind == QueryTerm::Kind::kBefore) continue;
      rest += std::string(term.written) + " ";
    }
    identity[2] = text::CollapseWhitespace(rest);
    identity.emplace_back(BoundIdentity(bounds->after_ms));
    identity.emplace_back(BoundIdentity(bounds->before_ms));
  }
  std::string summary = request.topic + ": " + (query.empty() ? "*" : query) + " (" +
                        std::to_string(request.lookback_minutes) + "m)";
  return {json::Canonical(identity), text::TruncateCodePoints(summary, 120)};
}

boost::json::object InputSchema(const LogsRules& rules) {
  boost::json::object topic{{"type", "string"}, {"minLength", 1}};
  if (!rules.topics.empty()) {
    boost::json::array names;
    for (const auto& name : rules.topics) names.emplace_back(name);
    topic["enum"] = std::move(names);
  } else {
    topic["pattern"] = "^[A-Za-z0-9_-][A-Za-z0-9._-]*$";
  }
  return {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"topic", "query"}},
      {"properties",
       {{"topic", std::move(topic)},
        {"query", {{"type", "string"}, {"maxLength", kMaxQueryChars}}},
        {"lookback_minutes", {{"type", "integer"}, {"minimum", 1}}}}},
  };
}

boost::json::object RequestJson(const LogsRequest& request) {
  return {{"topic", request.topic},
          {"query", request.query},
          {"lookback_minutes", request.lookback_minutes}};
}

}  // namespace diagd::tools::logs
