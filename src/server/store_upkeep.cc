#include "server/store_upkeep.h"

namespace diagd::server {

void StoreUpkeep::Start() {
  started_ = std::chrono::system_clock::now();
  horizon_.emplace(service_.owner.lease, *started_, std::chrono::steady_clock::now());
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
  // A third of a lease: a lease outlives two renewals that fail, and the
  // store answers the upkeep well within half a lease when it is healthy
  // (LostRunHorizon's silence).
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
  MonoTime began = std::chrono::steady_clock::now();
  Renew();
  Reclaim(std::chrono::system_clock::now());
  PurgeObservations(std::chrono::system_clock::now());
  if (int stored = service_.records->FlushBacklog(); stored > 0) {
    log_.Info("runs_stored_late", {{"runs", std::int64_t{stored}}});
  }
  WatchHealth();
  // A round that took long waited on the store: its renewal may have been
  // written long after it was asked for, with a lease already run out, and
  // the next round is a third of a lease away. The runs go on meanwhile
  // (and spend model calls): renew at once.
  if (std::chrono::steady_clock::now() - began > service_.owner.lease / 3) Renew();
}

void StoreUpkeep::Renew() {
  WallTime now = std::chrono::system_clock::now();
  Status renewed = service_.runs->RenewLeases(service_.owner.instance_id,
                                              now + service_.owner.lease);
  Heard(static_cast<bool>(renewed));
  if (!renewed) log_.Warn("leases_not_renewed", {{"error", renewed.error().message}});
}

void StoreUpkeep::Heard(bool answered) {
  auto silence = horizon_->Heard(answered, std::chrono::system_clock::now(),
                                 std::chrono::steady_clock::now());
  if (silence) log_.Warn("run_store_silent", {{"milliseconds", std::int64_t{silence->count()}}});
}

void StoreUpkeep::Reclaim(WallTime now) {
  WallTime horizon = horizon_->Horizon(now, std::chrono::steady_clock::now());
  auto lost = service_.runs->ReclaimLostRuns({service_.owner.instance_id, started_, horizon});
  Heard(lost.has_value());
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
  Heard(purged.has_value());
  if (purged && *purged > 0) log_.Info("observations_purged", {{"observations", *purged}});
}

void StoreUpkeep::WatchHealth() {
  app::StoreHealth health = service_.runs->health();
  bool failing = health.state == app::StoreHealth::State::kFailing;
  if (failing == store_failing_) return;
  store_failing_ = failing;
  // Another caller's store error (a run's write) is a silence as the
  // upkeep's own would be: until the upkeep hears the store again.
  if (failing) {
    Heard(false);
    log_.Error("run_store_failing", {{"error", health.last_error}});
  } else {
    log_.Info("run_store_recovered", {});
  }
}

}  // namespace diagd::server
