// How release reads a call that a draft cites: the canonical record, only
// when it is this run's, and whether a quote is an exact substring of its
// evidence text. The single home of "what counts as quotable"
// (docs/specs/release.md), shared by the evidence guard and the finding check.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tools/canonical_store.h"
#include "tools/observation.h"
#include "tools/tool_request.h"
#include "tools/tool_result.h"

namespace diagd::release {

enum class RecordOwnership {
  kOwned,        // stored under this run, and the record itself says so
  kUnknown,      // no such call in this run's store (never run, another run's, or expired)
  kForeign,      // the store answered with a record of another run or another call
  kStoreFailed,  // the store could not be read: nothing can be verified
};

// Reads (run_id, tool_call_id) once, in place (no copy where the store holds
// its records in memory: at 30 log events a record is some 30 KiB), and shows
// `read` the record only when it is owned. A record is owned only when both
// its own run id and its result's tool call id match what was asked: a store
// that mixes keys up never turns another run's evidence into this run's.
// `read` must not use the store (it may run under the store's lock).
using CitedRecordReader = std::function<void(const tools::CanonicalRecord&)>;
RecordOwnership ReadCitedRecord(tools::CanonicalInvocationStore& store, const std::string& run_id,
                                const std::string& tool_call_id, const CitedRecordReader& read);

// The model observation of a cited call, as the diagnosis model saw it: the
// per-tool whitelist of its canonical result (tools::ResultObservation).
// Nothing for a call that is not this run's or that failed: release's model
// calls never see another run's data, a raw payload or an error text.
std::optional<std::string> CitedObservation(tools::CanonicalInvocationStore& store,
                                            const std::string& run_id,
                                            const std::string& tool_call_id,
                                            const tools::ObservationLimits& limits);

inline constexpr std::size_t kMinQuoteCodePoints = 4;

// At least kMinQuoteCodePoints code points, and not only white space (four
// spaces occur in nearly any text and prove nothing).
bool QuoteLongEnough(std::string_view quote);

// True when `quote` is an exact (byte for byte) substring of one of the
// texts the result's tool verifies quotes against (its face's AnyCitable:
// an excerpt or title, an event's message, a cell's text as the model saw
// it). Fields are never joined: a quote spanning two of them is not found.
bool QuoteOccursIn(const tools::ToolResult& result, std::string_view quote);

}  // namespace diagd::release
