// Turns a run's progress into its numbered event stream (run_events.h),
// keeping the events for the run record and passing every callback on to
// the caller's watcher.
//
// Thread safety: one run, one worker thread.
#pragma once

#include <vector>

#include "app/chat_observer.h"

namespace diagd::app {

class RunEventRecorder final : public ChatObserver {
 public:
  explicit RunEventRecorder(ChatObserver* watcher) : watcher_(watcher) {}

  void OnRunStarted(const std::string& run_id, const std::string& conversation_id) override;
  void OnRouted(Route route) override;
  void OnToolProgress(const harness::ToolProgress& progress) override;
  void OnRunRecorded(const RunRecord& run) override;
  // Shows the watcher `error` RUN_NOT_STORED and `done`, numbered where
  // `result` and `done` stand in the record, then passes the call on.
  void OnRunNotStored(const RunRecord& run, const Error& why) override;

  // The closing `result` and `done` events: numbered and kept now, shown to
  // the watcher by `DeliverClosing` once the run (with them) is stored.
  void CloseWithResult(const std::string& result_json);
  void DeliverClosing();

  const std::vector<RunEvent>& events() const { return events_; }

 private:
  const RunEvent& Append(std::string name, std::string data);
  void Deliver(const RunEvent& event);

  ChatObserver* watcher_;  // optional, borrowed
  std::vector<RunEvent> events_;
  std::size_t delivered_ = 0;
};

}  // namespace diagd::app
