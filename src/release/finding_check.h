// The findings of a draft are published only when they are true to this
// run's records (release rule 2, docs/specs/release.md): authentic (the cited call is
// this run's) and with the right negative meaning (NOT_FOUND only for a call
// that found nothing; FOUND only for a call that found evidence, with a quote
// that is exactly in it). No model is asked; a failing finding is dropped and
// counted, never repaired.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "agent/draft.h"
#include "release/released_result.h"
#include "tools/canonical_store.h"

namespace diagd::release {

struct CheckedFindings {
  std::vector<PublishedFinding> verified;  // in the draft's order
  std::size_t unpublished = 0;             // findings that failed a check
};

// A NOT_FOUND finding is published without a quote: a call that found
// nothing has no text that could vouch for one.
CheckedFindings CheckFindings(tools::CanonicalInvocationStore& store, const std::string& run_id,
                              const std::vector<agent::Finding>& findings);

}  // namespace diagd::release
