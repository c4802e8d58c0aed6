// The agent-facing envelope around every tool's business input
// (docs/specs/tool-contracts.md):
//   {"previous_observation": {"tool_call_id": "...", "information_gain": "GAINED"},
//    "input": {...business request...}}
// Parsing is strict: a JSON object with only these two keys, `input` present
// and an object. Whether `previous_observation` is required or allowed is the
// tool interceptor's decision, not the parser's.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "tools/tool_types.h"

namespace diagd::tools {

// How a tool call broke the progress protocol.
enum class ViolationType {
  kMissingPreviousObservation,     // a result awaits its grade and none was given
  kPreviousToolCallIdMismatch,     // the grade names another call than the pending one
  kInvalidInformationGain,         // the grade is not GAINED or NO_GAIN
  kUnexpectedPreviousObservation,  // a grade was given while nothing awaited one
  kMalformedEnvelope,              // not the envelope shape at all
};
const char* ViolationTypeString(ViolationType type);

struct PreviousObservation {
  std::string tool_call_id;
  // Empty when the grade was missing or not one of GAINED / NO_GAIN.
  std::optional<InformationGain> information_gain;
};

struct Envelope {
  // Absent when the key was left out or given as JSON null.
  std::optional<PreviousObservation> previous_observation;
  boost::json::object input;
};

// Parses a tool call's arguments text. Any shape error is
// `kMalformedEnvelope`; `missing_input` (when given) is set when the only
// problem is that `input` is absent.
Result<Envelope, ViolationType> ParseEnvelope(std::string_view arguments_json,
                                              bool* missing_input = nullptr);

}  // namespace diagd::tools
