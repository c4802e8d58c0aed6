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

Status CanonicalInvocationStore::Read(const std::string& run_id, const std::string& tool_call_id,
                                      const RecordReader& read) {
  auto record = Get(run_id, tool_call_id);
  if (!record) return record.error();
  read(record->has_value() ? &**record : nullptr);
  return OkStatus();
}

Result<std::optional<CanonicalRecord>> MemoryCanonicalStore::Get(const std::string& run_id,
                                                                 const std::string& tool_call_id) {
  std::optional<CanonicalRecord> copy;
  (void)Read(run_id, tool_call_id, [&](const CanonicalRecord* record) {
    if (record != nullptr) copy = *record;
  });
  return copy;
}

Status MemoryCanonicalStore::Read(const std::string& run_id, const std::string& tool_call_id,
                                  const RecordReader& read) {
  MonoTime now = clock_.Monotonic();
  MutexLock lock(mu_);
  auto found = entries_.find({run_id, tool_call_id});
  read(found == entries_.end() || found->second.expires <= now ? nullptr : &found->second.record);
  return OkStatus();
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
