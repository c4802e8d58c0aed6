#include "release/safe_fallback.h"

#include "core/text.h"
#include "release/cited_record.h"
#include "release/release_messages.h"

namespace diagd::release {
namespace {

// `s` in at most `max` code points, white space collapsed; a cut ends with
// "…" so the user sees that something was left out.
std::string Bounded(std::string_view s, std::size_t max) {
  std::string collapsed = text::CollapseWhitespace(s);
  if (text::CodePointCount(collapsed) <= max) return collapsed;
  return text::TruncateCodePoints(collapsed, max > 0 ? max - 1 : 0) + "…";
}

}  // namespace

std::vector<ProcessEntry> ProcessOf(const harness::ProgressSnapshot& snapshot) {
  std::vector<ProcessEntry> process;
  for (const auto& entry : snapshot.entries) {
    process.push_back({entry.tool_call_id, entry.tool, entry.scope_summary, entry.evidence_status});
  }
  return process;
}

std::vector<std::string> SafeFallbackFactory::FactsOf(const tools::ToolResult& result) const {
  std::vector<std::string> facts;
  auto add = [&](const std::string& fact) {
    if (facts.size() < limits_.max_facts_per_call) {
      facts.push_back(Bounded(fact, limits_.max_fact_chars));
    }
  };
  tools::VisitFace(result, [&](auto face, const auto& r) { decltype(face)::Facts(r, add); });
  return facts;
}

SafeFallback SafeFallbackFactory::Build(const std::string& run_id, FallbackCode code,
                                        const harness::ProgressSnapshot& snapshot,
                                        FallbackDetails details) const {
  SafeFallback fallback;
  fallback.code = code;
  fallback.message = FallbackMessage(code, language_);
  fallback.checked = ProcessOf(snapshot);
  fallback.findings = std::move(details.findings);
  fallback.missing_info = std::move(details.missing_info);
  fallback.limitations = std::move(details.limitations);

  if (details.conclusion_unverified) {
    fallback.limitations.push_back(ConclusionUnverifiedSentence(language_));
  }
  if (details.unpublished_findings > 0) {
    fallback.limitations.push_back(
        UnpublishedFindingsSentence(details.unpublished_findings, language_));
  }
  for (const auto& limitation : snapshot.limitations) {
    const harness::SnapshotEntry* entry = snapshot.Find(limitation.tool_call_id);
    fallback.limitations.push_back(RecordLimitationSentence(
        limitation.code, limitation.tool, limitation.tool_call_id,
        entry != nullptr ? entry->scope_summary : std::string(), language_));
  }

  bool facts_cut = false;
  for (const auto& entry : snapshot.entries) {
    if (!entry.verified_fact) continue;
    // Read again: a fact is shown only while its record still proves it.
    bool proven = false;
    RecordOwnership ownership =
        ReadCitedRecord(store_, run_id, entry.tool_call_id, [&](const auto& record) {
          if (tools::EvidenceStatusOf(record.result) != tools::EvidenceStatus::kEvidenceFound) {
            return;
          }
          proven = true;
          for (auto& fact : FactsOf(record.result)) {
            if (fallback.observed_facts.size() >= limits_.max_facts) {
              facts_cut = true;
              break;
            }
            fallback.observed_facts.push_back({entry.tool_call_id, entry.tool, std::move(fact)});
          }
        });
    if (!proven) {
      harness::LimitationCode why = ownership == RecordOwnership::kForeign
                                        ? harness::LimitationCode::kRecordForeign
                                    : ownership == RecordOwnership::kStoreFailed
                                        ? harness::LimitationCode::kStoreUnavailable
                                        : harness::LimitationCode::kRecordMissing;
      fallback.limitations.push_back(RecordLimitationSentence(why, entry.tool, entry.tool_call_id,
                                                              entry.scope_summary, language_));
    }
  }
  if (facts_cut) {
    fallback.limitations.push_back(FactsCutSentence(limits_.max_facts, language_));
  }
  return fallback;
}

}  // namespace diagd::release
