#include "tools/envelope.h"

#include "core/json.h"

namespace diagd::tools {

const char* ViolationTypeString(ViolationType type) {
  switch (type) {
    case ViolationType::kMissingPreviousObservation:
      return "MISSING_PREVIOUS_OBSERVATION";
    case ViolationType::kPreviousToolCallIdMismatch:
      return "PREVIOUS_TOOL_CALL_ID_MISMATCH";
    case ViolationType::kInvalidInformationGain:
      return "INVALID_INFORMATION_GAIN";
    case ViolationType::kUnexpectedPreviousObservation:
      return "UNEXPECTED_PREVIOUS_OBSERVATION";
    case ViolationType::kMalformedEnvelope:
      return "MALFORMED_ENVELOPE";
  }
  return "";
}

namespace {

Result<std::optional<PreviousObservation>, ViolationType> ParsePrevious(
    const boost::json::value& value) {
  using R = Result<std::optional<PreviousObservation>, ViolationType>;
  if (value.is_null()) return std::optional<PreviousObservation>();
  const auto* object = value.if_object();
  if (object == nullptr) return R(Unexpected(ViolationType::kMalformedEnvelope));
  for (const auto& member : *object) {
    if (member.key() != "tool_call_id" && member.key() != "information_gain") {
      return R(Unexpected(ViolationType::kMalformedEnvelope));
    }
  }
  auto id = json::GetString(*object, "tool_call_id");
  if (!id || id->empty()) return R(Unexpected(ViolationType::kMalformedEnvelope));
  PreviousObservation previous;
  previous.tool_call_id = std::string(*id);
  if (auto gain = json::GetString(*object, "information_gain")) {
    previous.information_gain = ParseInformationGain(*gain);
  }
  return std::optional<PreviousObservation>(std::move(previous));
}

}  // namespace

Result<Envelope, ViolationType> ParseEnvelope(std::string_view arguments_json,
                                              bool* missing_input) {
  using R = Result<Envelope, ViolationType>;
  if (missing_input != nullptr) *missing_input = false;
  auto parsed = json::Parse(arguments_json);
  if (!parsed || !parsed->is_object()) return R(Unexpected(ViolationType::kMalformedEnvelope));
  auto& object = parsed->get_object();
  Envelope envelope;
  bool has_input = false;
  for (auto& member : object) {
    if (member.key() == "input") {
      if (!member.value().is_object()) return R(Unexpected(ViolationType::kMalformedEnvelope));
      envelope.input = std::move(member.value().get_object());
      has_input = true;
    } else if (member.key() == "previous_observation") {
      auto previous = ParsePrevious(member.value());
      if (!previous) return R(Unexpected(previous.error()));
      envelope.previous_observation = std::move(*previous);
    } else {
      return R(Unexpected(ViolationType::kMalformedEnvelope));
    }
  }
  if (!has_input) {
    if (missing_input != nullptr) *missing_input = true;
    return R(Unexpected(ViolationType::kMalformedEnvelope));
  }
  return envelope;
}

}  // namespace diagd::tools
