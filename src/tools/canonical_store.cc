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
  MonoTime expires = now + ttl_;
  entries_.insert_or_assign(key, Entry{std::move(record), expires});
  expiry_.emplace(expires, std::move(key));
  return OkStatus();
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
    auto node = expiry_.extract(expiry_.begin());
    auto found = entries_.find(node.mapped());
    // A key put again later has a later expiry: keep it.
    if (found != entries_.end() && found->second.expires <= now) entries_.erase(found);
  }
}

std::size_t MemoryCanonicalStore::SizeForTest() {
  MutexLock lock(mu_);
  return entries_.size();
}

}  // namespace diagd::tools
