// Names and enums shared by the agent-facing tools
// (docs/specs/tool-contracts.md). Every enum here has one stable wire name.
#pragma once

#include <compare>
#include <optional>
#include <string_view>

namespace diagd::tools {

// A tool's wire name ("query_logs"). Each tool declares its own in its
// folder (logs::kQueryLogs ...); the registered tools are listed in
// tool_registry.h, the one place that knows them all. A default name is
// empty and names no tool.
class ToolName {
 public:
  constexpr ToolName() = default;
  // `name` must outlive every copy: a string literal.
  explicit constexpr ToolName(const char* name) : name_(name) {}
  constexpr const char* c_str() const { return name_; }
  constexpr std::string_view view() const { return name_; }
  friend constexpr bool operator==(ToolName a, ToolName b) { return a.view() == b.view(); }
  friend constexpr auto operator<=>(ToolName a, ToolName b) { return a.view() <=> b.view(); }

 private:
  const char* name_ = "";
};
inline const char* ToolNameString(ToolName tool) { return tool.c_str(); }

// A registered tool's name, or nothing (tool_registry.cc).
std::optional<ToolName> ParseToolName(std::string_view name);

enum class EvidenceStatus {
  kEvidenceFound,  // "EVIDENCE_FOUND": at least one usable excerpt, event or row
  kNoEvidence,     // "NO_EVIDENCE": the call succeeded and found nothing usable
  kError,          // "ERROR": the call failed
};
const char* EvidenceStatusString(EvidenceStatus status);
inline constexpr EvidenceStatus kAllEvidenceStatuses[] = {
    EvidenceStatus::kEvidenceFound, EvidenceStatus::kNoEvidence, EvidenceStatus::kError};

// Why an executed call failed; what the model sees as `error_code`.
enum class ToolErrorCode {
  kToolUnavailable,  // "TOOL_UNAVAILABLE": backend unreachable or broken
  kToolTimeout,      // "TOOL_TIMEOUT": no answer within the time allowed
  kQueryFailed,      // "QUERY_FAILED": the backend refused the query (may carry a message)
};
const char* ToolErrorCodeString(ToolErrorCode code);

// Coarse upstream relevance of a documents result.
enum class RelevanceLevel { kHigh, kMedium, kLow, kReference };
const char* RelevanceLevelString(RelevanceLevel level);
inline constexpr RelevanceLevel kAllRelevanceLevels[] = {RelevanceLevel::kHigh, RelevanceLevel::kMedium,
                                                         RelevanceLevel::kLow, RelevanceLevel::kReference};
// Case-insensitive; unrecognized values give nothing (they are dropped).
std::optional<RelevanceLevel> ParseRelevanceLevel(std::string_view text);

// The model's grade of a result it has seen.
enum class InformationGain {
  kGained,  // "GAINED": new verifiable facts that confirm, exclude or narrow a hypothesis
  kNoGain,  // "NO_GAIN": correct but useless, generic or repeated
};
const char* InformationGainString(InformationGain gain);
std::optional<InformationGain> ParseInformationGain(std::string_view text);

}  // namespace diagd::tools
