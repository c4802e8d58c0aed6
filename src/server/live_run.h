// The event stream of a run this server is executing, in memory while it
// lasts, for the clients that watch it live (the chat's own SSE stream, and
// GET /api/v1/runs/{id}/events). Once the run is stored it is dropped from
// the registry and replay comes from the run store.
//
// Thread safety: the run's worker appends while server sessions read and
// wait; everything is guarded by one mutex per run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "app/run_events.h"
#include "core/mutex.h"

namespace diagd::server {

class LiveRun {
 public:
  using Wake = std::function<void()>;

  // The run's next event, numbered by the run; ignored once the stream is
  // closed (an abandoned run's worker may still be talking). `done` closes it.
  void Append(app::RunEvent event);
  // Closes the stream with an `error` and a `done` of its own, numbered on
  // from the last event: for a run that ends without a result. Returns every
  // event of the stream, or nothing when it was already closed.
  std::optional<std::vector<app::RunEvent>> CloseWithError(std::string_view code,
                                                           std::string_view message);
  // CloseWithError in two steps, for a run whose end is stored before it is
  // shown (a reader who sees `done` must find the run stored): Seal numbers
  // `error` and `done` and ignores later appends, but readers see neither
  // until Reveal.
  std::optional<std::vector<app::RunEvent>> Seal(std::string_view code, std::string_view message);
  void Reveal();

  struct Slice {
    std::vector<app::RunEvent> events;  // those after the id asked for
    bool closed = false;                // `done` is among them or before
  };
  Slice EventsAfter(std::int64_t after_id) const;
  // Calls `wake` once there is an event after `after_id` (at once, on the
  // calling thread, when there is one already), else from the appending
  // thread. `wake` must be cheap and must not call back into this run.
  void WhenEventAfter(std::int64_t after_id, Wake wake);
  // Calls `wake` once the stream is closed (`done` visible), with the same
  // rules: for a watcher that wants only the end (a JSON chat), which the
  // run's other events then do not wake.
  void WhenClosed(Wake wake);
  bool closed() const;

  // POST /api/v1/runs/{id}/cancel: requests the run's cancellation (its
  // ChatRequest::cancel); false when its stream has closed or is closing
  // (the run has ended: nothing to cancel). Safe from any thread.
  bool Cancel();
  std::stop_token cancel_token() const { return cancel_.get_token(); }

  void set_run_id(std::string run_id);
  std::string run_id() const;
  // The route as the run's `route` event named it ("DIAGNOSIS"...); empty
  // before routing. Kept so an abandoned run's record names it.
  void set_route(std::string route);
  std::string route() const;

 private:
  // The waiters an event just appended wakes: every one waiting for an
  // event, and those waiting for the end once the stream is closed.
  std::vector<Wake> TakeWaiters() REQUIRES(mu_);

  mutable Mutex mu_;
  std::string run_id_ GUARDED_BY(mu_);
  std::string route_ GUARDED_BY(mu_);
  std::vector<app::RunEvent> events_ GUARDED_BY(mu_);
  bool closed_ GUARDED_BY(mu_) = false;  // `done` is visible
  std::vector<app::RunEvent> sealed_ GUARDED_BY(mu_);  // error and done, until Reveal
  bool sealing_ GUARDED_BY(mu_) = false;
  std::vector<Wake> waiters_ GUARDED_BY(mu_);
  std::vector<Wake> closing_waiters_ GUARDED_BY(mu_);
  std::stop_source cancel_;  // thread-safe itself
};

// Runs by id, from their `run` event until they are stored.
class LiveRunRegistry {
 public:
  void Add(const std::string& run_id, std::shared_ptr<LiveRun> run);
  void Remove(const std::string& run_id);
  std::shared_ptr<LiveRun> Find(const std::string& run_id) const;
  std::vector<std::shared_ptr<LiveRun>> All() const;

 private:
  mutable Mutex mu_;
  std::map<std::string, std::shared_ptr<LiveRun>, std::less<>> runs_ GUARDED_BY(mu_);
};

}  // namespace diagd::server
