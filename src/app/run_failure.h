// Why a FAILED run failed (docs/model-endpoints.md): the one place that turns what
// a run went through into its `failure_reason` and `failure_detail`, and the
// plain-words sentence its FAILED fallback carries.
//
// The rule, first match wins:
//   1. the route ended on an error (the diagnosis loop's model call, the
//      system chat's or knowledge answer's): that error's reason (INTERNAL
//      when it has none) and message;
//   2. a release check's model call failed (evidence repair, semantic
//      guard: release then fails closed): the last one's reason and message
//      (a router that failed only sent the run to diagnosis: not a cause);
//   3. every tool call of the run failed: TOOL_BACKEND_ERROR;
//   4. the run's time ran out: RUN_TIMEOUT;
//   5. none: the harness itself decided there is nothing safe to show
//      (stop_reason and the RELEASE_DECIDED trace say why), and the run
//      has no failure_reason.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/result.h"
#include "harness/model_call_ledger.h"
#include "release/released_result.h"

namespace diagd::app {

inline constexpr std::size_t kMaxFailureDetailChars = 300;

struct RunFailure {
  FailureReason reason = FailureReason::kInternal;
  std::string detail;  // at most kMaxFailureDetailChars code points, no credential
};

// What a finished run went through, as far as its failure goes.
struct FailureEvidence {
  const Error* route_error = nullptr;                     // rule 1
  std::vector<harness::FailedModelCall> failed_calls;     // rule 2
  const std::vector<release::ProcessEntry>* process = nullptr;  // rule 3
  bool time_ran_out = false;                              // rule 4
};

std::optional<RunFailure> ExplainFailure(const FailureEvidence& evidence);

// The HTTP status a failure detail names ("... HTTP 503 ..."); 0 for none.
int HttpStatusIn(const std::string& detail);

// The sentence for a FAILED fallback's limitations, in `language`.
std::string FailureLimitation(const RunFailure& failure, config::Language language);

}  // namespace diagd::app
