// EvidenceGuard (docs/specs/release.md, rule 1): every citation
// of a conclusion must name a call of this run's canonical store that is
// EVIDENCE_FOUND, with a quote of at least four characters that is an exact
// substring of its evidence; and there must be at least one citation.
// Deterministic: it reads the store, never a model's context.
#pragma once

#include <string>
#include <vector>

#include "agent/draft.h"
#include "release/released_result.h"
#include "tools/canonical_store.h"

namespace diagd::release {

// The `problem` of an EVIDENCE_REPAIR violation (docs/specs/model-components.md).
enum class CitationProblem {
  kUnknownCall,    // "UNKNOWN_CALL": no such call in this run
  kForeignCall,    // "FOREIGN_CALL": the call belongs to another run
  kNotEvidence,    // "NOT_EVIDENCE": the call is not EVIDENCE_FOUND
  kQuoteTooShort,  // "QUOTE_TOO_SHORT": under four characters
  kQuoteNotFound,  // "QUOTE_NOT_FOUND": not an exact substring of the call's result
  kNoCitation,     // "NO_CITATION": the conclusion cites nothing (id and quote empty)
};
const char* CitationProblemString(CitationProblem problem);

struct CitationViolation {
  std::string tool_call_id;
  std::string quote;
  CitationProblem problem = CitationProblem::kQuoteNotFound;
};

struct GuardReport {
  std::vector<CitationViolation> violations;
  // The store could not be read: nothing is verified, and a repair could not
  // change that, so none is asked for.
  bool store_failed = false;
  // Every citation with its tool and scope summary, read from its record;
  // complete only when Passed().
  std::vector<PublishedCitation> citations;

  bool Passed() const { return !store_failed && violations.empty(); }
  bool Repairable() const { return !store_failed && !violations.empty(); }
};

class EvidenceGuard {
 public:
  explicit EvidenceGuard(tools::CanonicalInvocationStore& store) : store_(store) {}

  GuardReport Check(const std::string& run_id, const agent::Conclusion& conclusion) const;

 private:
  tools::CanonicalInvocationStore& store_;
};

}  // namespace diagd::release
