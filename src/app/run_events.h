// The events of one run as a watcher receives them (docs/server.md):
// `run`, `route`, `progress`..., then `result` or `error`, then `done`, each
// numbered 1, 2, 3... within the run. The same events feed the SSE stream of
// POST /api/v1/chat, are stored with the run, and are replayed by
// GET /api/v1/runs/{id}/events, so a client that reconnects sees exactly
// what it would have seen.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace diagd::app {

struct RunEvent {
  std::int64_t id = 0;  // 1, 2, 3... within the run
  std::string name;     // run, route, progress, result, error, done
  std::string data;     // one JSON object
};

// Stable codes of the `error` event: a run that produced no result.
inline constexpr std::string_view kRunNotExecuted = "RUN_NOT_EXECUTED";
inline constexpr std::string_view kRunAbandoned = "RUN_ABANDONED";
inline constexpr std::string_view kServerShuttingDown = "SERVER_SHUTTING_DOWN";
inline constexpr std::string_view kRunFailed = "RUN_FAILED";
// The instance executing the run stopped without finishing it.
inline constexpr std::string_view kInstanceLost = "INSTANCE_LOST";
// The run finished but the run store refused its record (after retries):
// its result is shown once the store has it, never before.
inline constexpr std::string_view kRunNotStored = "RUN_NOT_STORED";

// {"code": ..., "message": ...}, the data of an `error` event.
std::string RunErrorData(std::string_view code, std::string_view message);

}  // namespace diagd::app
