#include "release/evidence_guard.h"

#include "release/cited_record.h"

namespace diagd::release {

const char* CitationProblemString(CitationProblem problem) {
  switch (problem) {
    case CitationProblem::kUnknownCall:
      return "UNKNOWN_CALL";
    case CitationProblem::kForeignCall:
      return "FOREIGN_CALL";
    case CitationProblem::kNotEvidence:
      return "NOT_EVIDENCE";
    case CitationProblem::kQuoteTooShort:
      return "QUOTE_TOO_SHORT";
    case CitationProblem::kQuoteNotFound:
      return "QUOTE_NOT_FOUND";
    case CitationProblem::kNoCitation:
      return "NO_CITATION";
  }
  return "";
}

GuardReport EvidenceGuard::Check(const std::string& run_id,
                                 const agent::Conclusion& conclusion) const {
  GuardReport report;
  if (conclusion.evidence.empty()) {
    report.violations.push_back({"", "", CitationProblem::kNoCitation});
    return report;
  }
  for (const auto& citation : conclusion.evidence) {
    auto violation = [&](CitationProblem problem) {
      report.violations.push_back({citation.tool_call_id, citation.quote, problem});
    };
    RecordOwnership ownership =
        ReadCitedRecord(store_, run_id, citation.tool_call_id, [&](const auto& record) {
          if (tools::EvidenceStatusOf(record.result) != tools::EvidenceStatus::kEvidenceFound) {
            violation(CitationProblem::kNotEvidence);
          } else if (!QuoteLongEnough(citation.quote)) {
            violation(CitationProblem::kQuoteTooShort);
          } else if (!QuoteOccursIn(record.result, citation.quote)) {
            violation(CitationProblem::kQuoteNotFound);
          } else {
            report.citations.push_back(
                {citation.tool_call_id, record.tool, record.scope.summary, citation.quote});
          }
        });
    switch (ownership) {
      case RecordOwnership::kStoreFailed:
        report.store_failed = true;
        break;
      case RecordOwnership::kUnknown:
        violation(CitationProblem::kUnknownCall);
        break;
      case RecordOwnership::kForeign:
        violation(CitationProblem::kForeignCall);
        break;
      case RecordOwnership::kOwned:
        break;
    }
  }
  return report;
}

}  // namespace diagd::release
