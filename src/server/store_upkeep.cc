#include "server/store_upkeep.h"

namespace diagd::server {

void StoreUpkeep::Start() {
  started_ = std::chrono::system_clock::now();
  Tick();
  thread_ = std::thread([this] { Loop(); });
}

void StoreUpkeep::Stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  service_.records->FlushBacklog();
  if (std::size_t left = service_.records->backlog(); left > 0) {
    // They stay RUNNING in the store: the next start ends them as lost.
    log_.Error("runs_not_stored_at_exit", {{"runs", static_cast<std::int64_t>(left)}});
  }
}

void StoreUpkeep::Loop() {
  // A third of a lease: two renewals may fail (a store busy for a while)
  // before another instance takes this one's runs as lost.
  auto every = std::max<std::chrono::milliseconds>(service_.owner.lease / 3,
                                                   std::chrono::milliseconds(500));
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, every, [this] { return stopping_; })) {
    lock.unlock();
    Tick();
    lock.lock();
  }
}

void StoreUpkeep::Tick() {
  WallTime now = std::chrono::system_clock::now();
  Status renewed = service_.runs->RenewLeases(service_.owner.instance_id,
                                              now + service_.owner.lease);
  if (!renewed) log_.Warn("leases_not_renewed", {{"error", renewed.error().message}});
  Reclaim(now);
  PurgeObservations(now);
  if (int stored = service_.records->FlushBacklog(); stored > 0) {
    log_.Info("runs_stored_late", {{"runs", std::int64_t{stored}}});
  }
  WatchHealth();
}

void StoreUpkeep::Reclaim(WallTime now) {
  // After a store outage every instance's renewals failed alike: until the
  // owners have had a lease to renew again, only runs whose lease ran out
  // before the outage began are lost (those are the dead instances').
  WallTime horizon = now;
  if (outage_began_) {
    bool settling = store_failing_ || now < recovered_at_ + service_.owner.lease;
    if (settling) {
      horizon = std::min(now, *outage_began_);
    } else {
      outage_began_.reset();
    }
  }
  auto lost = service_.runs->ReclaimLostRuns({service_.owner.instance_id, started_, horizon});
  if (!lost) return;  // the store's health says why; the next round tries again
  for (const auto& run_id : *lost) {
    log_.Warn("run_lost", {{"run_id", run_id}});
    // Streams of the run on other instances end now rather than at their
    // next read of the store; they drop the ids they have already sent.
    if (bus_ == nullptr) continue;
    if (auto events = service_.runs->RunEvents(run_id, 0)) {
      for (const auto& event : *events) bus_->PublishEvent(run_id, event);
    }
  }
  lost_total_ += static_cast<std::int64_t>(lost->size());
  started_.reset();  // this instance's runs left behind are ended
}

void StoreUpkeep::PurgeObservations(WallTime now) {
  auto purged = service_.runs->PurgeObservations(now - service_.observation_retention);
  if (purged && *purged > 0) log_.Info("observations_purged", {{"observations", *purged}});
}

void StoreUpkeep::WatchHealth() {
  app::StoreHealth health = service_.runs->health();
  bool failing = health.state == app::StoreHealth::State::kFailing;
  if (failing == store_failing_) return;
  store_failing_ = failing;
  if (failing) {
    outage_began_ = health.failing_since;
  } else {
    recovered_at_ = std::chrono::system_clock::now();
  }
  if (failing) {
    log_.Error("run_store_failing", {{"error", health.last_error}});
  } else {
    log_.Info("run_store_recovered", {});
  }
}

}  // namespace diagd::server
