#include "app/observed_run_store.h"

#include <chrono>

namespace diagd::app {
namespace {

// The store's own condition, as opposed to a caller's mistake (an unknown
// run, a run that is no longer running, an invalid record).
bool StoreTrouble(const Error& error) {
  return error.code == ErrorCode::kUnavailable || error.code == ErrorCode::kInternal ||
         error.code == ErrorCode::kDeadlineExceeded;
}

template <typename T>
const Error* FailureOf(const Result<T>& result) {
  return result ? nullptr : &result.error();
}

}  // namespace

const char* StoreStateString(StoreHealth::State state) {
  switch (state) {
    case StoreHealth::State::kOk:
      return "ok";
    case StoreHealth::State::kSlow:
      return "slow";
    case StoreHealth::State::kFailing:
      return "failing";
  }
  return "ok";
}

StoreHealth ObservedRunStore::health() const {
  MutexLock lock(mu_);
  StoreHealth health;
  health.failing_since = failing_since_;
  health.last_error = last_error_;
  health.errors_total = errors_total_;
  health.calls_in_flight = static_cast<int>(in_flight_.size());
  if (!in_flight_.empty()) {
    health.oldest_call_seconds =
        std::chrono::duration<double>(clock_.Monotonic() - in_flight_.begin()->second).count();
  }
  if (failing_since_) {
    health.state = StoreHealth::State::kFailing;
  } else if (health.oldest_call_seconds > kSlowSeconds) {
    health.state = StoreHealth::State::kSlow;
  }
  return health;
}

std::uint64_t ObservedRunStore::Begin() {
  MutexLock lock(mu_);
  std::uint64_t call = next_call_++;
  in_flight_.emplace(call, clock_.Monotonic());
  return call;
}

void ObservedRunStore::End(std::uint64_t call, const Error* failure) {
  MutexLock lock(mu_);
  in_flight_.erase(call);
  if (failure == nullptr) {
    failing_since_.reset();
    return;
  }
  if (!StoreTrouble(*failure)) return;
  ++errors_total_;
  last_error_ = failure->message;
  if (!failing_since_) failing_since_ = clock_.Now();
}

template <typename Call>
auto ObservedRunStore::Observe(Call&& call) -> decltype(call()) {
  std::uint64_t id = Begin();
  auto outcome = call();
  End(id, FailureOf(outcome));
  return outcome;
}

Status ObservedRunStore::CreateRun(const RunRecord& run) {
  return Observe([&] { return store_->CreateRun(run); });
}
Status ObservedRunStore::FinishRun(const RunRecord& run) {
  return Observe([&] { return store_->FinishRun(run); });
}
Status ObservedRunStore::AbandonRun(const AbandonedRun& run) {
  return Observe([&] { return store_->AbandonRun(run); });
}
Status ObservedRunStore::AppendEvents(const std::string& run_id,
                                      const std::vector<RunEvent>& events) {
  return Observe([&] { return store_->AppendEvents(run_id, events); });
}
Status ObservedRunStore::RenewLeases(const std::string& instance_id, WallTime until) {
  return Observe([&] { return store_->RenewLeases(instance_id, until); });
}
Result<std::vector<std::string>> ObservedRunStore::ReclaimLostRuns(const LostRunSweep& sweep) {
  return Observe([&] { return store_->ReclaimLostRuns(sweep); });
}
Result<std::optional<RunRecord>> ObservedRunStore::GetRun(const std::string& run_id) {
  return Observe([&] { return store_->GetRun(run_id); });
}
Result<std::vector<RunEvent>> ObservedRunStore::RunEvents(const std::string& run_id,
                                                         std::int64_t after_id) {
  return Observe([&] { return store_->RunEvents(run_id, after_id); });
}
Result<std::vector<RunSummary>> ObservedRunStore::ListRuns(int limit) {
  return Observe([&] { return store_->ListRuns(limit); });
}
Result<RunPage> ObservedRunStore::ListRunPage(const RunQuery& query) {
  return Observe([&] { return store_->ListRunPage(query); });
}
Result<RunPage> ObservedRunStore::ConversationPage(const ConversationQuery& query) {
  return Observe([&] { return store_->ConversationPage(query); });
}
Result<std::optional<std::string>> ObservedRunStore::GetObservation(
    const std::string& run_id, const std::string& tool_call_id) {
  return Observe([&] { return store_->GetObservation(run_id, tool_call_id); });
}
Result<std::int64_t> ObservedRunStore::PurgeObservations(WallTime before) {
  return Observe([&] { return store_->PurgeObservations(before); });
}
Status ObservedRunStore::AppendTurns(const std::string& conversation_id,
                                     std::span<const ConversationTurn> turns) {
  return Observe([&] { return store_->AppendTurns(conversation_id, turns); });
}
Result<std::vector<ConversationTurn>> ObservedRunStore::RecentTurns(
    const std::string& conversation_id, int max_turns) {
  return Observe([&] { return store_->RecentTurns(conversation_id, max_turns); });
}

}  // namespace diagd::app
