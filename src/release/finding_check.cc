#include "release/finding_check.h"

#include "release/cited_record.h"

namespace diagd::release {
namespace {

// The finding as published, or nothing when it does not hold.
std::optional<PublishedFinding> Verify(tools::CanonicalInvocationStore& store,
                                       const std::string& run_id, const agent::Finding& finding) {
  CitedRecord cited = LookUpCitedRecord(store, run_id, finding.tool_call_id);
  if (cited.ownership != RecordOwnership::kOwned) return std::nullopt;
  const tools::EvidenceStatus status = tools::EvidenceStatusOf(cited.record->result);
  switch (finding.kind) {
    case agent::FindingKind::kNotFound:
      if (status != tools::EvidenceStatus::kNoEvidence) return std::nullopt;
      return PublishedFinding{finding.tool_call_id, finding.kind, finding.statement, std::nullopt};
    case agent::FindingKind::kFound:
      if (status != tools::EvidenceStatus::kEvidenceFound || !finding.quote ||
          !QuoteLongEnough(*finding.quote) ||
          !QuoteOccursIn(cited.record->result, *finding.quote)) {
        return std::nullopt;
      }
      return PublishedFinding{finding.tool_call_id, finding.kind, finding.statement, finding.quote};
  }
  return std::nullopt;
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
