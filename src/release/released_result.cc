#include "release/released_result.h"

namespace diagd::release {

const char* ReleaseOutcomeString(ReleaseOutcome outcome) {
  switch (outcome) {
    case ReleaseOutcome::kDiagnosis:
      return "DIAGNOSIS";
    case ReleaseOutcome::kFallback:
      return "FALLBACK";
    case ReleaseOutcome::kAnswer:
      return "ANSWER";
  }
  return "";
}

const char* FallbackCodeString(FallbackCode code) {
  switch (code) {
    case FallbackCode::kMissingRequiredContext:
      return "MISSING_REQUIRED_CONTEXT";
    case FallbackCode::kInsufficientEvidence:
      return "INSUFFICIENT_EVIDENCE";
    case FallbackCode::kFailed:
      return "FAILED";
  }
  return "";
}

const char* GuardResultString(GuardResult result) {
  switch (result) {
    case GuardResult::kPassed:
      return "PASSED";
    case GuardResult::kRepaired:
      return "REPAIRED";
    case GuardResult::kFailed:
      return "FAILED";
    case GuardResult::kSkipped:
      return "SKIPPED";
  }
  return "";
}

}  // namespace diagd::release
