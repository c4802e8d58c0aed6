// DiagnosisReleaseUseCase: the one place that decides what a diagnosis run
// publishes (docs/specs/release.md): a verified DIAGNOSIS, or a
// safe fallback (MISSING_REQUIRED_CONTEXT, INSUFFICIENT_EVIDENCE, FAILED)
// that shows what was checked. The application layer only persists and
// streams the decision.
//
// Model calls (EVIDENCE_REPAIR, SEMANTIC_GUARD; at most one each) go through
// the run's model interceptor, so they are budgeted, audited and traced like
// every other call; one the budget refuses fails closed. The decision is
// traced once as RELEASE_DECIDED, with no quote, statement, prompt or model
// text.
#pragma once

#include <string>
#include <vector>

#include "agent/diagnosis_agent.h"
#include "config/config.h"
#include "harness/model_interceptor.h"
#include "harness/run_context.h"
#include "model/chat_model.h"
#include "release/evidence_guard.h"
#include "release/evidence_repair.h"
#include "release/released_result.h"
#include "release/safe_fallback.h"
#include "release/semantic_guard.h"
#include "release/subject_check.h"
#include "tools/canonical_store.h"
#include "tools/observation.h"

namespace diagd::release {

struct ReleaseDeps {
  model::ChatModel& model;
  tools::CanonicalInvocationStore& store;
  config::Language language = config::Language::kZh;
  tools::ObservationLimits observation_limits;
  FallbackLimits fallback_limits;
  // The configured names a question's subjects are found by (docs/specs/release.md).
  SubjectVocabulary subjects;
};

class DiagnosisReleaseUseCase {
 public:
  explicit DiagnosisReleaseUseCase(ReleaseDeps deps);

  // `earlier_questions`: the conversation's earlier user questions, oldest
  // first; their subjects count as the question's own.
  ReleaseDecision Release(harness::RunContext& run, const std::string& question,
                          const agent::DiagnosisAgentExecution& execution,
                          const std::vector<std::string>& earlier_questions = {}) const;

 private:
  // What checking a draft's conclusion left: the draft as repaired, the
  // evidence guard's report (its citations) and the subject check's names.
  struct CheckedConclusion {
    agent::DiagnosisDraft draft;
    GuardReport evidence;
    SubjectReport subjects;
  };
  // The checks in order, each only after the one before passed: evidence
  // guard, at most one repair and the guard again, subject check, semantic
  // guard. Sets the decision's three guard results.
  CheckedConclusion CheckConclusion(harness::ModelInterceptor& model_calls,
                                    const std::string& run_id, const std::string& question,
                                    const agent::DiagnosisAgentExecution& execution,
                                    const std::vector<std::string>& earlier_questions,
                                    ReleaseDecision& decision) const;
  Diagnosis Publish(const std::string& run_id, const agent::DiagnosisDraft& draft,
                    std::vector<PublishedCitation> citations) const;
  void RecordDecision(harness::RunContext& run, const ReleaseDecision& decision) const;

  ReleaseDeps deps_;
  EvidenceGuard evidence_guard_;
  EvidenceRepair evidence_repair_;
  SemanticGuard semantic_guard_;
  SubjectCheck subject_check_;
  SafeFallbackFactory fallbacks_;
};

}  // namespace diagd::release
