// SafeFallbackFactory: the fallback a user gets when no conclusion can be
// published (docs/specs/release.md). Deterministic and model-free: what was
// checked comes from the progress snapshot; observed facts are built from the
// verified canonical records of this run (read again, never from a model's
// context); messages and limitations are fixed sentences. Nothing it writes
// can carry a stop reason, counter, threshold, budget, score, raw payload,
// model thought or prompt.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "config/config.h"
#include "harness/progress_snapshot.h"
#include "release/released_result.h"
#include "tools/canonical_store.h"

namespace diagd::release {

struct FallbackLimits {
  std::size_t max_facts = 20;          // observed facts in all
  std::size_t max_facts_per_call = 3;  // the first items of each record
  std::size_t max_fact_chars = 300;    // code points; a cut fact ends with "…"
};

// What the release decision adds to the snapshot's own content.
struct FallbackDetails {
  std::vector<PublishedFinding> findings;  // verified findings of a draft without conclusion
  std::vector<std::string> missing_info;   // the draft's, as the user must supply it
  bool conclusion_unverified = false;      // a draft's conclusion failed verification
  std::vector<std::string> limitations;    // the decision's own sentences, listed first
  std::size_t unpublished_findings = 0;    // findings that failed their checks
};

// The process as the user sees it: every completed call, in order.
std::vector<ProcessEntry> ProcessOf(const harness::ProgressSnapshot& snapshot);

class SafeFallbackFactory {
 public:
  SafeFallbackFactory(tools::CanonicalInvocationStore& store, config::Language language,
                      FallbackLimits limits)
      : store_(store), language_(language), limits_(limits) {}

  SafeFallback Build(const std::string& run_id, FallbackCode code,
                     const harness::ProgressSnapshot& snapshot, FallbackDetails details) const;

  // The facts of one verified record (documents "title: excerpt", log events
  // "timestamp message", rows "column=value, ..."), each bounded.
  std::vector<std::string> FactsOf(const tools::ToolResult& result) const;

 private:
  tools::CanonicalInvocationStore& store_;
  config::Language language_;
  FallbackLimits limits_;
};

}  // namespace diagd::release
