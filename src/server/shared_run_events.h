// The events of a run executing here, shared with the other instances of
// the service (docs/deploy.md): each is committed to the run store first,
// then published on the run bus, so that an instance streaming the run
// (remote_run_feed.h) finds in the store whatever it subscribed too late to
// hear. An event the store cannot take yet (the `run` event comes before the
// run is stored; a store that is failing) goes with the next one, and is
// published only then.
//
// Thread safety: one run, on its worker (each call may park its fiber on
// the store's group commit).
#pragma once

#include <string>
#include <vector>

#include "app/run_bus.h"
#include "app/run_events.h"
#include "app/run_store.h"

namespace diagd::server {

class SharedRunEvents {
 public:
  SharedRunEvents(app::RunStore& runs, app::RunBus& bus) : runs_(runs), bus_(bus) {}

  void set_run_id(std::string run_id) { run_id_ = std::move(run_id); }
  // The run's next event, before the run is stored as finished.
  void Share(const app::RunEvent& event);
  // The run's record was given to the store (stored, or kept for a later
  // write): its closing events are published as they come, without
  // appending (the record holds them, or the store is not taking any).
  void RecordGiven();

 private:
  void Publish();

  app::RunStore& runs_;
  app::RunBus& bus_;
  std::string run_id_;
  std::vector<app::RunEvent> unshared_;  // in order, not yet stored
  bool record_given_ = false;
  bool ended_elsewhere_ = false;  // the store ended the run (lost): its stream stands
};

}  // namespace diagd::server
