// The progress snapshot (docs/specs/agent-and-accounting.md): built once when
// the diagnosis loop ends, from the tracker's index and the canonical store.
// For each completed call: its tool, scope summary, status, and whether it is
// a verified fact of this run. A record that is missing, expired, ERROR or
// not owned by this run is no fact: it becomes a stable limitation and a
// trace entry. The snapshot never goes into a model's context.
//
// It lives in harness/ (not release/) because the agent use case returns it
// and arrows point down only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/progress_tracker.h"
#include "harness/trace.h"
#include "tools/canonical_store.h"

namespace diagd::harness {

// Why a completed call is not a verified fact.
enum class LimitationCode {
  kToolCallFailed,   // "TOOL_CALL_FAILED": the call ended ERROR
  kRecordMissing,    // "RECORD_MISSING": not in the canonical store (never stored, or expired)
  kRecordForeign,    // "RECORD_FOREIGN": the stored record belongs to another run
  kStoreUnavailable, // "STORE_UNAVAILABLE": the canonical store could not be read
};
const char* LimitationCodeString(LimitationCode code);

struct Limitation {
  LimitationCode code;
  std::string tool_call_id;
  tools::ToolName tool;
};

struct SnapshotEntry {
  std::string tool_call_id;
  tools::ToolName tool;
  std::string scope_summary;  // empty when the record could not be read
  // The stored status; absent when the record could not be read.
  std::optional<tools::EvidenceStatus> evidence_status;
  bool verified_fact = false;  // EVIDENCE_FOUND, stored, owned by this run
};

struct ProgressSnapshot {
  std::vector<SnapshotEntry> entries;  // in completion order
  std::vector<Limitation> limitations;
  bool HasObservedFacts() const;
  const SnapshotEntry* Find(const std::string& tool_call_id) const;
};

// Reads each indexed call's record once. Traces PROGRESS_RECORD_UNVERIFIED
// (tool_call_id, tool, limitation) for each record that could not be read.
ProgressSnapshot ProjectProgress(const std::string& run_id, const ProgressState& state,
                                 tools::CanonicalInvocationStore& store, TraceRecorder& trace);

}  // namespace diagd::harness
