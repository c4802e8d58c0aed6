#include "store/fallback_canonical_store.h"

#include "store/redis_canonical_store.h"

namespace diagd::store {

FallbackCanonicalStore::FallbackCanonicalStore(
    std::unique_ptr<tools::MemoryCanonicalStore> local,
    std::unique_ptr<tools::CanonicalInvocationStore> shared)
    : local_(std::move(local)), shared_(std::move(shared)) {}

Status FallbackCanonicalStore::Put(tools::CanonicalRecord record) {
  if (Status stored = local_->Put(record); !stored) return stored;
  if (!shared_->Put(std::move(record))) ++shared_failures_;
  return OkStatus();
}

Result<std::optional<tools::CanonicalRecord>> FallbackCanonicalStore::Get(
    const std::string& run_id, const std::string& tool_call_id) {
  auto local = local_->Get(run_id, tool_call_id);
  if (!local || local->has_value()) return local;
  auto shared = shared_->Get(run_id, tool_call_id);
  if (!shared) ++shared_failures_;
  return shared;
}

// The local copy when there is one, as Get finds it; else Redis's, copied.
Status FallbackCanonicalStore::Read(const std::string& run_id, const std::string& tool_call_id,
                                    const RecordReader& read) {
  bool found = false;
  (void)local_->Read(run_id, tool_call_id, [&](const tools::CanonicalRecord* record) {
    if (record == nullptr) return;
    found = true;
    read(record);
  });
  if (found) return OkStatus();
  Status shared = shared_->Read(run_id, tool_call_id, read);
  if (!shared) ++shared_failures_;
  return shared;
}

void FallbackCanonicalStore::ForgetRun(const std::string& run_id) {
  local_->ForgetRun(run_id);
  shared_->ForgetRun(run_id);
}

Result<std::unique_ptr<FallbackCanonicalStore>> OpenRedisCanonicalStore(
    std::string_view url, std::chrono::seconds ttl, const Clock& clock,
    RedisPoolOptions options) {
  auto shared = RedisCanonicalStore::Open(url, ttl, options);
  if (!shared) return shared.error();
  return std::make_unique<FallbackCanonicalStore>(
      std::make_unique<tools::MemoryCanonicalStore>(ttl, clock), std::move(*shared));
}

}  // namespace diagd::store
