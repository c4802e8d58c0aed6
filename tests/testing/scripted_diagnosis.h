// A scripted diagnosis conversation for many concurrent runs against the
// scripted model server (it plays a script; it is no model). Each request
// is answered from what it holds, not from a shared queue, so any number of
// runs can interleave: the router says DIAGNOSIS, the diagnosis agent calls
// `query_logs` on the demo workspace's payment-service topic `tool_turns`
// times (a new scope each time, grading the last result GAINED when it
// found evidence), then concludes citing the first call's Hikari line, and
// the semantic guard says SUPPORTED.
//
// With `route: diagnosis` given, a run takes tool_turns + 2 model calls.
#pragma once

#include <chrono>

#include "testing/scripted_model_server.h"

namespace diagd::testing {

// The quote the conclusion cites (a line of the demo's payment-service log).
inline constexpr const char* kScriptedDiagnosisQuote = "HikariPool-1 - Connection is not available";

ScriptedModelServer::Responder ScriptedDiagnosis(int tool_turns, std::chrono::milliseconds latency);

}  // namespace diagd::testing
