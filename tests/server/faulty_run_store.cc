#include "server/faulty_run_store.h"

namespace diagd::server::testing {

void StoreFaults::Fail(StoreOp op) {
  std::lock_guard lock(mu_);
  failing_.insert(op);
}

void StoreFaults::Block(StoreOp op) {
  std::lock_guard lock(mu_);
  blocking_.insert(op);
}

void StoreFaults::Heal(StoreOp op) {
  {
    std::lock_guard lock(mu_);
    failing_.erase(op);
    blocking_.erase(op);
  }
  changed_.notify_all();
}

bool StoreFaults::WaitBlocked(StoreOp op, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return blocked_.contains(op); });
}

std::optional<Error> StoreFaults::Before(StoreOp op) {
  std::unique_lock lock(mu_);
  if (blocking_.contains(op)) {
    auto waiting = blocked_.insert(op);
    changed_.notify_all();
    changed_.wait(lock, [&] { return !blocking_.contains(op); });
    blocked_.erase(waiting);
  }
  if (failing_.contains(op)) {
    return Error::Unavailable("run store: injected fault (the test made the store fail)");
  }
  return std::nullopt;
}

// Each call: the injected failure, else the real store's answer.
#define DIAGD_FAULTY_CALL(op, call)                       \
  if (auto fault = faults_->Before(op)) return *fault; \
  return store_->call

Status FaultyRunStore::CreateRun(const app::RunRecord& run) {
  DIAGD_FAULTY_CALL(StoreOp::kCreate, CreateRun(run));
}
Status FaultyRunStore::FinishRun(const app::RunRecord& run) {
  DIAGD_FAULTY_CALL(StoreOp::kFinish, FinishRun(run));
}
Status FaultyRunStore::AbandonRun(const app::AbandonedRun& run) {
  DIAGD_FAULTY_CALL(StoreOp::kAbandon, AbandonRun(run));
}
Status FaultyRunStore::AppendEvents(const std::string& run_id,
                                    const std::vector<app::RunEvent>& events) {
  DIAGD_FAULTY_CALL(StoreOp::kAppendEvents, AppendEvents(run_id, events));
}
Status FaultyRunStore::RenewLeases(const std::string& instance_id, WallTime until) {
  DIAGD_FAULTY_CALL(StoreOp::kRenew, RenewLeases(instance_id, until));
}
Result<std::vector<std::string>> FaultyRunStore::ReclaimLostRuns(const app::LostRunSweep& sweep) {
  DIAGD_FAULTY_CALL(StoreOp::kReclaim, ReclaimLostRuns(sweep));
}
Result<std::optional<app::RunRecord>> FaultyRunStore::GetRun(const std::string& run_id) {
  DIAGD_FAULTY_CALL(StoreOp::kGet, GetRun(run_id));
}
Result<std::vector<app::RunEvent>> FaultyRunStore::RunEvents(const std::string& run_id,
                                                            std::int64_t after_id) {
  DIAGD_FAULTY_CALL(StoreOp::kEvents, RunEvents(run_id, after_id));
}
Result<std::vector<app::RunSummary>> FaultyRunStore::ListRuns(int limit) {
  DIAGD_FAULTY_CALL(StoreOp::kList, ListRuns(limit));
}
Result<app::RunPage> FaultyRunStore::ListRunPage(const app::RunQuery& query) {
  DIAGD_FAULTY_CALL(StoreOp::kList, ListRunPage(query));
}
Result<app::RunPage> FaultyRunStore::ConversationPage(const app::ConversationQuery& query) {
  DIAGD_FAULTY_CALL(StoreOp::kGet, ConversationPage(query));
}
Result<std::optional<std::string>> FaultyRunStore::GetObservation(
    const std::string& run_id, const std::string& tool_call_id) {
  DIAGD_FAULTY_CALL(StoreOp::kGet, GetObservation(run_id, tool_call_id));
}
Result<std::int64_t> FaultyRunStore::PurgeObservations(WallTime before) {
  DIAGD_FAULTY_CALL(StoreOp::kPurge, PurgeObservations(before));
}
Status FaultyRunStore::AppendTurns(const std::string& conversation_id,
                                   std::span<const app::ConversationTurn> turns) {
  DIAGD_FAULTY_CALL(StoreOp::kAppendTurn, AppendTurns(conversation_id, turns));
}
Result<std::vector<app::ConversationTurn>> FaultyRunStore::RecentTurns(
    const std::string& conversation_id, int max_turns) {
  DIAGD_FAULTY_CALL(StoreOp::kRecentTurns, RecentTurns(conversation_id, max_turns));
}

#undef DIAGD_FAULTY_CALL

}  // namespace diagd::server::testing
