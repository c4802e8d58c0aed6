// SemanticGuard: the one SEMANTIC_GUARD model call a conclusion gets once
// every citation passed the evidence guard (release rule 1, docs/specs/release.md).
// The model sees the question, the root cause and confidence, and each quote
// with its call's model observation; it must answer exactly
// {"verdict": "SUPPORTED"}. Anything else fails closed.
#pragma once

#include <string>
#include <string_view>

#include "agent/draft.h"
#include "config/config.h"
#include "harness/model_interceptor.h"
#include "tools/canonical_store.h"
#include "tools/observation.h"

namespace diagd::release {

// True only for a JSON object whose single member is "verdict": "SUPPORTED"
// (white space around it allowed). Prose, fences, other verdicts and extra
// keys are all false.
bool IsSupportedVerdict(std::string_view answer);

class SemanticGuard {
 public:
  SemanticGuard(tools::CanonicalInvocationStore& store, config::Language language,
                tools::ObservationLimits limits)
      : store_(store), language_(language), limits_(limits) {}

  // False, with no call made, when a cited record can no longer be read;
  // false when the budget refused the call or the model failed.
  bool Supports(harness::ModelInterceptor& model_calls, const std::string& run_id,
                const std::string& question, const agent::Conclusion& conclusion) const;

 private:
  tools::CanonicalInvocationStore& store_;
  config::Language language_;
  tools::ObservationLimits limits_;
};

}  // namespace diagd::release
