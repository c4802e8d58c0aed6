#include "tools/canonical_store.h"

namespace diagd::tools {

ControlView ControlViewOf(const CanonicalRecord& record) {
  ControlView view;
  view.evidence_status = EvidenceStatusOf(record.result);
  view.returned_count = ReturnedCountOf(record.result);
  view.truncated = TruncatedOf(record.result);
  if (const auto* documents = std::get_if<DocumentsResult>(&record.result)) {
    view.relevance_level = documents->relevance_level;
  }
  view.scope = &record.scope;
  return view;
}

Status MemoryCanonicalStore::Put(CanonicalRecord record) {
  MonoTime now = clock_.Monotonic();
  auto key = std::make_pair(record.run_id, record.tool_call_id);
  MutexLock lock(mu_);
  DropExpired(now);
  if (auto earlier = entries_.find(key); earlier != entries_.end()) {
    expiry_.erase(earlier->second.expiry);
    entries_.erase(earlier);
  }
  MonoTime expires = now + ttl_;
  auto expiry = expiry_.emplace(expires, key);
  entries_.emplace(std::move(key), Entry{std::move(record), expires, expiry});
  return OkStatus();
}

void MemoryCanonicalStore::ForgetRun(const std::string& run_id) {
  MutexLock lock(mu_);
  auto it = entries_.lower_bound({run_id, std::string()});
  while (it != entries_.end() && it->first.first == run_id) {
    expiry_.erase(it->second.expiry);
    it = entries_.erase(it);
  }
}

Result<std::optional<CanonicalRecord>> MemoryCanonicalStore::Get(const std::string& run_id,
                                                                 const std::string& tool_call_id) {
  MonoTime now = clock_.Monotonic();
  MutexLock lock(mu_);
  auto found = entries_.find({run_id, tool_call_id});
  if (found == entries_.end() || found->second.expires <= now) {
    return std::optional<CanonicalRecord>();
  }
  return std::optional<CanonicalRecord>(found->second.record);
}

void MemoryCanonicalStore::DropExpired(MonoTime now) {
  while (!expiry_.empty() && expiry_.begin()->first <= now) {
    entries_.erase(expiry_.begin()->second);
    expiry_.erase(expiry_.begin());
  }
}

std::size_t MemoryCanonicalStore::SizeForTest() {
  MutexLock lock(mu_);
  return entries_.size();
}

}  // namespace diagd::tools
