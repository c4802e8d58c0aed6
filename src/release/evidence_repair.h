// EvidenceRepair: the one EVIDENCE_REPAIR model call a conclusion gets when
// the evidence guard found violations (release rule 1, docs/specs/release.md). The
// request is the question, the draft, the violations and the model
// observations of the cited calls of this run (docs/specs/model-components.md);
// the answer must be a whole diagnosis draft, parsed as strictly as the
// agent's. The caller runs the evidence guard again on what comes back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/draft.h"
#include "config/config.h"
#include "harness/model_interceptor.h"
#include "release/evidence_guard.h"
#include "tools/canonical_store.h"
#include "tools/observation.h"

namespace diagd::release {

class EvidenceRepair {
 public:
  EvidenceRepair(tools::CanonicalInvocationStore& store, config::Language language,
                 tools::ObservationLimits limits)
      : store_(store), language_(language), limits_(limits) {}

  // The repaired draft, with a conclusion; nothing when the repair failed:
  // the budget refused the call, the model failed, or the answer is not
  // exactly a draft or has no conclusion. Never extracts a draft from prose.
  std::optional<agent::DiagnosisDraft> Repair(
      harness::ModelInterceptor& model_calls, const std::string& run_id,
      const std::string& question, const agent::DiagnosisDraft& draft,
      const std::vector<CitationViolation>& violations) const;

  // The user message of the call (JSON text); public for tests.
  std::string RequestJson(const std::string& run_id, const std::string& question,
                          const agent::DiagnosisDraft& draft,
                          const std::vector<CitationViolation>& violations) const;

 private:
  tools::CanonicalInvocationStore& store_;
  config::Language language_;
  tools::ObservationLimits limits_;
};

}  // namespace diagd::release
