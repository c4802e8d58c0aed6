// What a person watching a run sees as it happens: typed callbacks for the
// CLI's stderr progress, and the numbered events of the run's stream for the
// server's SSE clients. Every callback defaults to nothing, so a watcher
// implements only what it shows.
//
// Thread safety: called on the run's worker thread; must not block for long.
#pragma once

#include <string>

#include "app/chat_result.h"
#include "app/run_events.h"
#include "app/run_store.h"
#include "harness/tool_interceptor.h"

namespace diagd::app {

class ChatObserver : public harness::ToolProgressObserver {
 public:
  virtual void OnRunStarted(const std::string& /*run_id*/,
                            const std::string& /*conversation_id*/) {}
  virtual void OnRouted(Route /*route*/) {}
  void OnToolProgress(const harness::ToolProgress& /*progress*/) override {}
  // Each event of the run's stream, in order. `result` and `done` come
  // only after the run is stored, so a watcher that sees `done` can read
  // the finished run back.
  virtual void OnRunEvent(const RunEvent& /*event*/) {}
  // The finished run as it was stored (the operator's view, for metrics and
  // logs; never shown to a user), just before `result` is shown.
  virtual void OnRunRecorded(const RunRecord& /*run*/) {}
  // The run finished but the store refused its record (after retries): its
  // stream ends with `error` RUN_NOT_STORED and `done` instead of `result`.
  virtual void OnRunNotStored(const RunRecord& /*run*/, const Error& /*why*/) {}
};

}  // namespace diagd::app
