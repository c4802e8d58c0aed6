// A run store that passes every call on to another and watches how the
// store is doing, for /healthz, /metrics and the logs: whether its last
// call failed (and since when), and whether a call has been waiting long
// (another process holding SQLite's write lock, a database server that
// stopped answering). Reading the health never touches the store, so a
// health check answers at once whatever the store does.
//
// Thread safety: safe for concurrent use, as the store it wraps.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "app/run_store.h"
#include "core/clock.h"
#include "core/mutex.h"

namespace diagd::app {

struct StoreHealth {
  enum class State {
    kOk,       // the last call succeeded and none is waiting long
    kSlow,     // a call has been waiting longer than the slow threshold
    kFailing,  // the last call failed (UNAVAILABLE, INTERNAL or DEADLINE_EXCEEDED)
  };
  State state = State::kOk;
  std::optional<WallTime> failing_since;  // the first failure of the current streak
  std::string last_error;                 // the store's message (logs and operators only)
  int calls_in_flight = 0;
  double oldest_call_seconds = 0;  // how long the oldest call in flight has waited
  std::int64_t errors_total = 0;   // failed calls since start
};

const char* StoreStateString(StoreHealth::State state);  // "ok", "slow", "failing"

class ObservedRunStore final : public RunStore {
 public:
  // A call waiting longer than this makes the store "slow".
  static constexpr double kSlowSeconds = 1.0;

  ObservedRunStore(std::unique_ptr<RunStore> store, const Clock& clock)
      : store_(std::move(store)), clock_(clock) {}

  StoreHealth health() const EXCLUDES(mu_);

  // app::RunStore
  Status CreateRun(const RunRecord& run) override;
  Status FinishRun(const RunRecord& run) override;
  Status AbandonRun(const AbandonedRun& run) override;
  Status AppendEvents(const std::string& run_id, const std::vector<RunEvent>& events) override;
  Status RenewLeases(const std::string& instance_id, WallTime until) override;
  Result<std::vector<std::string>> ReclaimLostRuns(const LostRunSweep& sweep) override;
  Result<std::optional<RunRecord>> GetRun(const std::string& run_id) override;
  Result<std::vector<RunEvent>> RunEvents(const std::string& run_id,
                                          std::int64_t after_id) override;
  Result<std::vector<RunSummary>> ListRuns(int limit) override;
  Result<RunPage> ListRunPage(const RunQuery& query) override;
  Result<RunPage> ConversationPage(const ConversationQuery& query) override;
  Result<std::optional<std::string>> GetObservation(const std::string& run_id,
                                                    const std::string& tool_call_id) override;
  Result<std::int64_t> PurgeObservations(WallTime before) override;
  Status AppendTurns(const std::string& conversation_id,
                     std::span<const ConversationTurn> turns) override;
  Result<std::vector<ConversationTurn>> RecentTurns(const std::string& conversation_id,
                                                    int max_turns) override;

 private:
  // Times one call and records how it ended; `call` returns a Status or a Result.
  template <typename Call>
  auto Observe(Call&& call) -> decltype(call());
  std::uint64_t Begin() EXCLUDES(mu_);
  void End(std::uint64_t call, const Error* failure) EXCLUDES(mu_);

  std::unique_ptr<RunStore> store_;
  const Clock& clock_;
  mutable Mutex mu_;
  std::uint64_t next_call_ GUARDED_BY(mu_) = 0;
  std::map<std::uint64_t, MonoTime> in_flight_ GUARDED_BY(mu_);  // ordered: oldest first
  std::optional<WallTime> failing_since_ GUARDED_BY(mu_);
  std::string last_error_ GUARDED_BY(mu_);
  std::int64_t errors_total_ GUARDED_BY(mu_) = 0;
};

}  // namespace diagd::app
