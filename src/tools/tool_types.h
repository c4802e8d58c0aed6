// Names and enums shared by the three agent-facing tools
// (docs/specs/tool-contracts.md). Every enum here has one stable wire name.
#pragma once

#include <optional>
#include <string_view>

namespace diagd::tools {

enum class ToolName {
  kSearchDocuments,  // "search_documents": runbooks and documents
  kQueryLogs,        // "query_logs": log topics
  kQueryMysql,       // "query_mysql": read-only SQL on a configured datasource
};
inline constexpr ToolName kAllTools[] = {ToolName::kSearchDocuments, ToolName::kQueryLogs,
                                         ToolName::kQueryMysql};
const char* ToolNameString(ToolName tool);

// One value per tool, looked up by name: for tables such as key lists.
template <typename T>
struct PerTool {
  T documents;
  T logs;
  T mysql;
  const T& For(ToolName tool) const {
    return tool == ToolName::kQueryLogs ? logs : tool == ToolName::kQueryMysql ? mysql : documents;
  }
};
std::optional<ToolName> ParseToolName(std::string_view name);

enum class EvidenceStatus {
  kEvidenceFound,  // "EVIDENCE_FOUND": at least one usable excerpt, event or row
  kNoEvidence,     // "NO_EVIDENCE": the call succeeded and found nothing usable
  kError,          // "ERROR": the call failed
};
const char* EvidenceStatusString(EvidenceStatus status);

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
