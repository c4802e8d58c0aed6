// The server's care of its run store between requests (docs/reliability.md):
//
// - before serving, it ends as INSTANCE_LOST the runs its previous process
//   left RUNNING (killed, crashed, power lost): nobody will finish them, and
//   they are never executed again;
// - then, every third of a lease, on a thread of its own: it renews the
//   leases of the runs it executes (again at once after a round that
//   waited on the store), ends other instances' runs whose lease ran out
//   while the store answered (LostRunHorizon: after the store was silent,
//   for one lease, only those whose lease ran out before the silence), and
//   writes again the finished runs the store refused (app::RunRecordWriter's
//   backlog), logging when the store starts and stops failing; and deletes
//   the tool call observations older than storage.observation_retention_days
//   (docs/console.md).
//
// Thread safety: Start and Stop from one thread; the rest is internal.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "app/run_bus.h"
#include "server/lost_run_horizon.h"
#include "server/server_log.h"
#include "wiring/chat_service.h"

namespace diagd::server {

class StoreUpkeep {
 public:
  // `bus` (optional) tells other instances about the runs found lost.
  StoreUpkeep(wiring::ChatService& service, ServerLog& log, app::RunBus* bus)
      : service_(service), log_(log), bus_(bus) {}
  ~StoreUpkeep() { Stop(); }
  StoreUpkeep(const StoreUpkeep&) = delete;
  StoreUpkeep& operator=(const StoreUpkeep&) = delete;

  // Does a first round at once (so the runs left behind are ended before
  // the server serves), then starts the thread. Until the store answers,
  // later rounds try again to end the runs left behind.
  void Start();
  // Joins the thread after a last backlog write.
  void Stop();

  std::int64_t lost_total() const { return lost_total_.load(); }

 private:
  void Loop();
  void Tick();
  void Renew();
  // An upkeep call to the store came back answered or not (LostRunHorizon).
  void Heard(bool answered);
  void Reclaim(WallTime now);
  void WatchHealth();
  void PurgeObservations(WallTime now);

  wiring::ChatService& service_;
  ServerLog& log_;
  app::RunBus* bus_;
  std::atomic<std::int64_t> lost_total_{0};
  // The upkeep thread's own (and Start's, before the thread exists):
  bool store_failing_ = false;  // as last logged
  std::optional<LostRunHorizon> horizon_;  // from Start
  std::optional<WallTime> started_;  // set until the runs left behind are ended

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace diagd::server
