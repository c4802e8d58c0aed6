// The JSON columns of the run store: a trace event's fields as one JSON
// object (keys in their recorded order, values null, bool, integer or
// string), an agent step's tool call ids as a JSON array of strings, a
// run's failed model calls, and the trace event type's name.
//
// Strings are written as well-formed UTF-8: an ill-formed byte becomes
// U+FFFD, so a stored value can always be read back (Boost.JSON refuses
// ill-formed UTF-8).
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/run_store.h"
#include "core/result.h"
#include "harness/trace.h"

namespace diagd::store {

// INVALID_ARGUMENT when two fields share a key: a JSON object cannot keep
// both, and silently dropping one would falsify the trace.
Result<std::string> EncodeTraceFields(const std::vector<harness::TraceField>& fields);
// INTERNAL when the text is not an object of scalar members (a damaged row).
Result<std::vector<harness::TraceField>> DecodeTraceFields(std::string_view json);

std::string EncodeToolCallIds(const std::vector<std::string>& ids);
Result<std::vector<std::string>> DecodeToolCallIds(std::string_view json);

// A run's failed model calls as [{"component", "reason"}]; nullopt (SQL
// NULL) for none. An empty or NULL column reads back as none.
std::optional<std::string> EncodeModelFailures(const std::vector<app::ModelFailure>& failures);
Result<std::vector<app::ModelFailure>> DecodeModelFailures(std::string_view json);

}  // namespace diagd::store
