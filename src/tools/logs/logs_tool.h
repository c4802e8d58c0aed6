// query_logs: business input rules, schema and scope.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tools/input_rules.h"
#include "tools/scope.h"
#include "tools/tool_request.h"

namespace diagd::tools::logs {

inline constexpr std::size_t kMaxQueryChars = 500;
inline constexpr std::size_t kMaxTopicChars = 128;

// A topic is a plain file name: [A-Za-z0-9._-], not starting with a dot, at
// most kMaxTopicChars. The one rule, used by input validation and by the
// backend, so no path can ever be smuggled in.
bool IsPlainName(std::string_view name);

struct LogsRules {
  std::vector<std::string> topics;  // the known topics; empty when not known
  int default_lookback_minutes = 60;
  int max_lookback_minutes = 1440;
};

// A missing lookback takes the default; one above the maximum is clamped to
// it (not an error); one below 1 is OUT_OF_RANGE. With known topics an
// unknown one is UNKNOWN_TOPIC; otherwise a topic must be a plain file name
// ([A-Za-z0-9._-], not starting with a dot): INVALID_NAME.
InputResult<LogsRequest> ParseInput(const boost::json::object& input, const LogsRules& rules);
// Identity: topic, query with white space collapsed, actual lookback; with
// after:/before: bounds, the query without them and the instants they name.
Scope ScopeOf(const LogsRequest& request);
boost::json::object InputSchema(const LogsRules& rules);
boost::json::object RequestJson(const LogsRequest& request);

}  // namespace diagd::tools::logs
