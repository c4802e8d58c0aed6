// The events of runs executing on other instances, as the run bus
// (app/run_bus.h) brings them, for this instance's streams of those runs
// (GET /api/v1/runs/{id}/events, run_routes.cc). A stream follows its run
// before it replays the store: every event was committed to the store
// before it was published, so each one is either in the replay or arrives
// here afterwards, and the stream drops the ids it has already sent. What
// the bus lost (it was down, or the feed saw a gap) the stream reads again
// from the store.
//
// Thread safety: Deliver and NudgeAll come from the bus's thread; a feed is
// made, read and destroyed on the io thread; one mutex guards the registry
// and one each feed.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app/run_events.h"
#include "core/mutex.h"

namespace diagd::server {

class RemoteRunFeeds;

// One stream's view of one run's published events, from its construction
// to its destruction.
class RemoteRunFeed {
 public:
  using Wake = std::function<void()>;

  RemoteRunFeed(RemoteRunFeeds& feeds, std::string run_id);
  ~RemoteRunFeed();
  RemoteRunFeed(const RemoteRunFeed&) = delete;
  RemoteRunFeed& operator=(const RemoteRunFeed&) = delete;

  // The events delivered since the last Take, in the order they came.
  std::vector<app::RunEvent> Take();
  // Calls `wake` once something was delivered or the bus changed state (at
  // once when that happened already), replacing an earlier wake. `wake`
  // must be cheap: it runs on the bus's thread.
  void WhenWoken(Wake wake);

 private:
  friend class RemoteRunFeeds;
  void Push(const app::RunEvent& event);
  void Nudge();
  void WakeLocked() REQUIRES(mu_);

  RemoteRunFeeds& feeds_;
  const std::string run_id_;
  Mutex mu_;
  std::vector<app::RunEvent> pending_ GUARDED_BY(mu_);
  bool nudged_ GUARDED_BY(mu_) = false;
  Wake wake_ GUARDED_BY(mu_);
};

// The feeds of this instance, by run.
class RemoteRunFeeds {
 public:
  // A run's event, from the bus: to each feed that follows the run.
  void Deliver(const std::string& run_id, const app::RunEvent& event);
  // The bus came up or went down: every reader looks at the store again.
  void NudgeAll();

 private:
  friend class RemoteRunFeed;
  void Add(const std::string& run_id, RemoteRunFeed* feed);
  void Remove(const std::string& run_id, RemoteRunFeed* feed);

  Mutex mu_;
  std::map<std::string, std::set<RemoteRunFeed*>, std::less<>> feeds_ GUARDED_BY(mu_);
};

}  // namespace diagd::server
