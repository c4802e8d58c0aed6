// What the instances of one service tell each other about runs
// (docs/deploy.md): each new event of a run, and requests to cancel one. The run
// store stays the truth: an event is committed there before it is
// published, so a message lost while the bus was down is found again in the
// store (server/remote_run_feed.h). The Redis implementation is in store/.
//
// Thread safety: Publish* from any thread; the listener's callbacks come
// from the bus's own thread, one at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "app/run_events.h"
#include "core/result.h"

namespace diagd::app {

class RunBus {
 public:
  struct Listener {
    // A run's event, as some instance published it.
    std::function<void(const std::string& run_id, const RunEvent& event)> on_event;
    // Some instance was asked to cancel this run.
    std::function<void(const std::string& run_id)> on_cancel;
    // The subscription came up (again) or went down. Messages published
    // while it was down are never delivered: readers replay from the store.
    std::function<void(bool up)> on_state;
  };

  virtual ~RunBus() = default;

  // Queues the event for publication and returns at once: a run never
  // waits on the bus, and a bus that is down loses the message (readers
  // find the event in the store).
  virtual void PublishEvent(const std::string& run_id, const RunEvent& event) = 0;
  // Publishes a cancel request now; an error when the bus is unreachable.
  virtual Status PublishCancel(const std::string& run_id) = 0;
  // Starts delivering to `listener` (once), until Stop or destruction.
  virtual void Start(Listener listener) = 0;
  virtual void Stop() = 0;
  // Subscribed now. `generation` grows each time the subscription comes up,
  // so a reader can tell that messages may have been lost since it looked.
  virtual bool up() const = 0;
  virtual std::uint64_t generation() const = 0;
};

}  // namespace diagd::app
