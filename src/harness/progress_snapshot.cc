#include "harness/progress_snapshot.h"

namespace diagd::harness {

const char* LimitationCodeString(LimitationCode code) {
  switch (code) {
    case LimitationCode::kToolCallFailed:
      return "TOOL_CALL_FAILED";
    case LimitationCode::kRecordMissing:
      return "RECORD_MISSING";
    case LimitationCode::kRecordForeign:
      return "RECORD_FOREIGN";
    case LimitationCode::kStoreUnavailable:
      return "STORE_UNAVAILABLE";
  }
  return "";
}

bool ProgressSnapshot::HasObservedFacts() const {
  for (const auto& entry : entries) {
    if (entry.verified_fact) return true;
  }
  return false;
}

const SnapshotEntry* ProgressSnapshot::Find(const std::string& tool_call_id) const {
  for (const auto& entry : entries) {
    if (entry.tool_call_id == tool_call_id) return &entry;
  }
  return nullptr;
}

ProgressSnapshot ProjectProgress(const std::string& run_id, const ProgressState& state,
                                 tools::CanonicalInvocationStore& store, TraceRecorder& trace) {
  ProgressSnapshot snapshot;
  for (const auto& call : state.completed) {
    SnapshotEntry entry;
    entry.tool_call_id = call.tool_call_id;
    entry.tool = call.tool;
    std::optional<LimitationCode> limitation;
    // Read where the store holds it: only the status and scope are kept.
    Status read = store.Read(run_id, call.tool_call_id, [&](const tools::CanonicalRecord* stored) {
      if (stored == nullptr) {
        limitation = LimitationCode::kRecordMissing;
      } else if (stored->run_id != run_id ||
                 tools::ToolCallIdOf(stored->result) != call.tool_call_id) {
        limitation = LimitationCode::kRecordForeign;
      } else {
        entry.scope_summary = stored->scope.summary;
        entry.evidence_status = tools::EvidenceStatusOf(stored->result);
      }
    });
    if (!read) {
      limitation = LimitationCode::kStoreUnavailable;
    } else if (!limitation) {
      entry.verified_fact = entry.evidence_status == tools::EvidenceStatus::kEvidenceFound;
      if (entry.evidence_status == tools::EvidenceStatus::kError) {
        // A failed call is part of the process, never a fact: a limitation,
        // but not an unverified record.
        snapshot.limitations.push_back(
            {LimitationCode::kToolCallFailed, call.tool_call_id, call.tool});
      }
    }
    if (limitation) {
      snapshot.limitations.push_back({*limitation, call.tool_call_id, call.tool});
      trace.Record(TraceEventType::kProgressRecordUnverified,
                   {{"tool_call_id", call.tool_call_id},
                    {"tool", std::string(tools::ToolNameString(call.tool))},
                    {"limitation", std::string(LimitationCodeString(*limitation))}});
    }
    snapshot.entries.push_back(std::move(entry));
  }
  return snapshot;
}

}  // namespace diagd::harness
