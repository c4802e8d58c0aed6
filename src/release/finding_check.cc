#include "release/finding_check.h"

#include "release/cited_record.h"

namespace diagd::release {
namespace {

// The finding as published, or nothing when it does not hold.
std::optional<PublishedFinding> Verify(tools::CanonicalInvocationStore& store,
                                       const std::string& run_id, const agent::Finding& finding) {
  std::optional<PublishedFinding> published;
  (void)ReadCitedRecord(store, run_id, finding.tool_call_id, [&](const auto& record) {
    const tools::EvidenceStatus status = tools::EvidenceStatusOf(record.result);
    switch (finding.kind) {
      case agent::FindingKind::kNotFound:
        if (status != tools::EvidenceStatus::kNoEvidence) return;
        published =
            PublishedFinding{finding.tool_call_id, finding.kind, finding.statement, std::nullopt};
        return;
      case agent::FindingKind::kFound:
        if (status != tools::EvidenceStatus::kEvidenceFound || !finding.quote ||
            !QuoteLongEnough(*finding.quote) || !QuoteOccursIn(record.result, *finding.quote)) {
          return;
        }
        published =
            PublishedFinding{finding.tool_call_id, finding.kind, finding.statement, finding.quote};
        return;
    }
  });
  return published;
}

}  // namespace

CheckedFindings CheckFindings(tools::CanonicalInvocationStore& store, const std::string& run_id,
                              const std::vector<agent::Finding>& findings) {
  CheckedFindings checked;
  for (const auto& finding : findings) {
    if (auto published = Verify(store, run_id, finding)) {
      checked.verified.push_back(std::move(*published));
    } else {
      ++checked.unpublished;
    }
  }
  return checked;
}

}  // namespace diagd::release
