// What release publishes (docs/specs/release.md): a verified diagnosis or a
// safe fallback, and the process of the run. Plain values; app/ adds the
// run id, conversation id, route and answer, and serializes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/draft.h"
#include "tools/tool_types.h"

namespace diagd::release {

enum class ReleaseOutcome { kDiagnosis, kFallback, kAnswer };
const char* ReleaseOutcomeString(ReleaseOutcome outcome);

enum class FallbackCode {
  kMissingRequiredContext,  // "MISSING_REQUIRED_CONTEXT": the user must say more
  kInsufficientEvidence,    // "INSUFFICIENT_EVIDENCE": checked, but nothing holds up
  kFailed,                  // "FAILED": nothing safe to show
};
const char* FallbackCodeString(FallbackCode code);

// One tool call that ran, as the user sees it.
struct ProcessEntry {
  std::string tool_call_id;
  tools::ToolName tool;
  std::string scope;  // user-safe summary, never full SQL parameters
  std::optional<tools::EvidenceStatus> evidence_status;  // absent when the record was unreadable
};

struct PublishedCitation {
  std::string tool_call_id;
  tools::ToolName tool;
  std::string scope;
  std::string quote;
};

struct PublishedFinding {
  std::string tool_call_id;
  agent::FindingKind kind = agent::FindingKind::kFound;
  std::string statement;
  std::optional<std::string> quote;
};

struct Diagnosis {
  std::string root_cause;
  agent::Confidence confidence = agent::Confidence::kLow;
  std::vector<PublishedCitation> evidence;
  std::vector<PublishedFinding> findings;
  std::vector<std::string> next_steps;
  agent::Limitations limitations;
};

struct ObservedFact {
  std::string tool_call_id;
  tools::ToolName tool;
  // Built deterministically from the verified canonical record (safe_fallback.h):
  // bounded, and a fact that was cut ends with "…".
  std::string fact;
};

struct SafeFallback {
  FallbackCode code = FallbackCode::kFailed;
  std::string message;  // a fixed, user-facing sentence per code and language
  std::vector<ProcessEntry> checked;
  std::vector<ObservedFact> observed_facts;
  std::vector<PublishedFinding> findings;  // verified findings of a draft without conclusion
  std::vector<std::string> missing_info;
  std::vector<std::string> limitations;  // user-safe sentences
};

// Which guards ran and how they ended (RELEASE_DECIDED).
enum class GuardResult { kPassed, kRepaired, kFailed, kSkipped };
const char* GuardResultString(GuardResult result);

// Exactly one of `diagnosis` (outcome DIAGNOSIS) and `fallback` (outcome
// FALLBACK) is set. `process` is set for both, and equals the fallback's
// `checked`.
struct ReleaseDecision {
  ReleaseOutcome outcome = ReleaseOutcome::kFallback;
  std::optional<Diagnosis> diagnosis;
  std::optional<SafeFallback> fallback;
  std::vector<ProcessEntry> process;
  GuardResult evidence_guard = GuardResult::kSkipped;
  GuardResult semantic_guard = GuardResult::kSkipped;
  GuardResult subject_check = GuardResult::kSkipped;  // kPassed, kFailed or kSkipped
};

}  // namespace diagd::release
