// A run store that fails on demand, for the server's fault tests: it passes
// every call on to a real store unless the test has told that operation to
// fail (with an UNAVAILABLE error, as a locked, full or unreachable store
// answers) or to block until released (a store stuck on another process's
// lock). Reached through the app::RunStore interface, as the server uses it.
//
// Thread safety: safe for concurrent use; the test thread configures faults
// while the server's threads call the store.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>

#include "app/run_store.h"

namespace diagd::server::testing {

enum class StoreOp { kCreate, kFinish, kAbandon, kAppendEvents, kRenew, kReclaim, kGet, kEvents, kList,
                     kAppendTurn, kRecentTurns, kPurge };

// The faults of one store, shared between the test and the store.
class StoreFaults {
 public:
  void Fail(StoreOp op);   // every call of `op` fails until Heal
  void Block(StoreOp op);  // every call of `op` waits until Heal
  void Heal(StoreOp op);
  // Waits until a call of `op` is blocked (true), or `timeout` passes.
  bool WaitBlocked(StoreOp op, std::chrono::milliseconds timeout);

  // The store's side: a failure to return instead of the call, or none
  // (after waiting, when blocked).
  std::optional<Error> Before(StoreOp op);

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::set<StoreOp> failing_;
  std::set<StoreOp> blocking_;
  std::multiset<StoreOp> blocked_;  // calls waiting now
};

class FaultyRunStore final : public app::RunStore {
 public:
  FaultyRunStore(std::unique_ptr<app::RunStore> store, std::shared_ptr<StoreFaults> faults)
      : store_(std::move(store)), faults_(std::move(faults)) {}

  Status CreateRun(const app::RunRecord& run) override;
  Status FinishRun(const app::RunRecord& run) override;
  Status AbandonRun(const app::AbandonedRun& run) override;
  Status AppendEvents(const std::string& run_id,
                      const std::vector<app::RunEvent>& events) override;
  Status RenewLeases(const std::string& instance_id, WallTime until) override;
  Result<std::vector<std::string>> ReclaimLostRuns(const app::LostRunSweep& sweep) override;
  Result<std::optional<app::RunRecord>> GetRun(const std::string& run_id) override;
  Result<std::vector<app::RunEvent>> RunEvents(const std::string& run_id,
                                               std::int64_t after_id) override;
  Result<std::vector<app::RunSummary>> ListRuns(int limit) override;  // kList
  Result<app::RunPage> ListRunPage(const app::RunQuery& query) override;  // kList
  // The reads of 12.4 fail and block as kGet; the purge always passes through.
  Result<app::RunPage> ConversationPage(const app::ConversationQuery& query) override;
  Result<std::optional<std::string>> GetObservation(const std::string& run_id,
                                                    const std::string& tool_call_id) override;
  Result<std::int64_t> PurgeObservations(WallTime before) override;
  Status AppendTurns(const std::string& conversation_id,
                     std::span<const app::ConversationTurn> turns) override;
  Result<std::vector<app::ConversationTurn>> RecentTurns(const std::string& conversation_id,
                                                         int max_turns) override;

 private:
  std::unique_ptr<app::RunStore> store_;
  std::shared_ptr<StoreFaults> faults_;
};

}  // namespace diagd::server::testing
