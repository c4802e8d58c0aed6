#include "tools/tool_types.h"

#include "core/text.h"

namespace diagd::tools {

const char* EvidenceStatusString(EvidenceStatus status) {
  switch (status) {
    case EvidenceStatus::kEvidenceFound:
      return "EVIDENCE_FOUND";
    case EvidenceStatus::kNoEvidence:
      return "NO_EVIDENCE";
    case EvidenceStatus::kError:
      return "ERROR";
  }
  return "";
}

const char* ToolErrorCodeString(ToolErrorCode code) {
  switch (code) {
    case ToolErrorCode::kToolUnavailable:
      return "TOOL_UNAVAILABLE";
    case ToolErrorCode::kToolTimeout:
      return "TOOL_TIMEOUT";
    case ToolErrorCode::kQueryFailed:
      return "QUERY_FAILED";
  }
  return "";
}

const char* RelevanceLevelString(RelevanceLevel level) {
  switch (level) {
    case RelevanceLevel::kHigh:
      return "HIGH";
    case RelevanceLevel::kMedium:
      return "MEDIUM";
    case RelevanceLevel::kLow:
      return "LOW";
    case RelevanceLevel::kReference:
      return "REFERENCE";
  }
  return "";
}

std::optional<RelevanceLevel> ParseRelevanceLevel(std::string_view text) {
  std::string upper = text::AsciiUpper(text::CollapseWhitespace(text));
  for (RelevanceLevel level : {RelevanceLevel::kHigh, RelevanceLevel::kMedium,
                               RelevanceLevel::kLow, RelevanceLevel::kReference}) {
    if (upper == RelevanceLevelString(level)) return level;
  }
  return std::nullopt;
}

const char* InformationGainString(InformationGain gain) {
  return gain == InformationGain::kGained ? "GAINED" : "NO_GAIN";
}

std::optional<InformationGain> ParseInformationGain(std::string_view text) {
  if (text == "GAINED") return InformationGain::kGained;
  if (text == "NO_GAIN") return InformationGain::kNoGain;
  return std::nullopt;
}

}  // namespace diagd::tools
