// What the model sees of a tool call (docs/specs/tool-contracts.md): the JSON
// content of the tool message. Result observations are built by a per-tool
// whitelist from the canonical result, and bounded in bytes; the harness's own
// observations (protocol violations, invalid input, duplicates, stops, errors)
// carry only the fields the contract lists. Nothing here can carry a count,
// score, trace, threshold, budget, store key or run id: the builders have no
// way to receive one.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/envelope.h"
#include "tools/input_rules.h"
#include "tools/tool_result.h"

namespace diagd::tools {

struct ObservationLimits {
  // A result observation above this size loses items of its list (and says
  // `truncated: true`) until it fits: from the end, or for events from the
  // middle, so the earliest and the newest stay.
  std::size_t max_bytes = 32768;
};

// The keys a result observation of `tool` may hold, besides `stop_required`
// and `reason`.
const std::vector<std::string_view>& ObservationWhitelist(ToolName tool);

// The whitelisted view of a successful (or NO_EVIDENCE) result. With
// `stop_reason`, the result also carries `stop_required: true` and `reason`.
std::string ResultObservation(const ToolResult& result, const ObservationLimits& limits,
                              std::optional<std::string_view> stop_reason = std::nullopt);

// {"tool_call_id", "evidence_status": "ERROR", "error_code"[, "message"]}; the
// message (QUERY_FAILED only) must already be safe and is cut to 200 chars.
std::string ErrorObservation(std::string_view tool_call_id, ToolErrorCode code,
                             std::string_view message = {});

// A repairable protocol violation. `expected_previous_id` is the pending
// call's id when one awaits its grade.
std::string ProtocolViolationObservation(std::string_view tool_call_id, ViolationType type,
                                         const std::optional<std::string>& expected_previous_id,
                                         bool missing_input);

std::string InvalidInputObservation(std::string_view tool_call_id, const InputError& error);
std::string UnknownToolObservation(std::string_view tool_call_id);
std::string DuplicateScopeObservation(std::string_view tool_call_id,
                                      std::string_view duplicate_of_tool_call_id);
std::string StopObservation(std::string_view tool_call_id, std::string_view stop_reason);

}  // namespace diagd::tools
