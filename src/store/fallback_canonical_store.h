// The canonical store of an instance that shares Redis with others: its own
// runs' records in memory (authoritative: the boundary and the release
// stage read them there), each also written to Redis for the other
// instances, which read a run they do not execute from Redis.
//
// "Redis being down must not stop runs that are executing": a Put succeeds
// when the local write does; a failed Redis write is counted
// (`shared_failures`), not returned. Get reads memory first, then Redis
// (whose error it returns: a record this instance never had and cannot
// read is the store failing). ForgetRun forgets the run in both.
//
// Thread safety: safe for concurrent use.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/result.h"
#include "store/redis_client.h"
#include "tools/canonical_store.h"

namespace diagd::store {

class FallbackCanonicalStore final : public tools::CanonicalInvocationStore {
 public:
  // Borrows nothing: both stores are owned.
  FallbackCanonicalStore(std::unique_ptr<tools::MemoryCanonicalStore> local,
                         std::unique_ptr<tools::CanonicalInvocationStore> shared);

  // tools::CanonicalInvocationStore
  Status Put(tools::CanonicalRecord record) override;
  Result<std::optional<tools::CanonicalRecord>> Get(const std::string& run_id,
                                                    const std::string& tool_call_id) override;
  Status Read(const std::string& run_id, const std::string& tool_call_id,
              const RecordReader& read) override;
  void ForgetRun(const std::string& run_id) override;

  // Redis writes and reads that failed since start.
  std::uint64_t shared_failures() const { return shared_failures_.load(); }
  tools::MemoryCanonicalStore& local() { return *local_; }

 private:
  std::unique_ptr<tools::MemoryCanonicalStore> local_;
  std::unique_ptr<tools::CanonicalInvocationStore> shared_;
  std::atomic<std::uint64_t> shared_failures_{0};
};

// storage.canonical = "redis://...": a FallbackCanonicalStore over a
// MemoryCanonicalStore (on `clock`) and a RedisCanonicalStore, both with
// `ttl`. Only a bad URL fails (INVALID_ARGUMENT saying what is wrong);
// Redis is dialled on first use, so it need not be up now.
Result<std::unique_ptr<FallbackCanonicalStore>> OpenRedisCanonicalStore(
    std::string_view url, std::chrono::seconds ttl, const Clock& clock,
    RedisPoolOptions options = {});

}  // namespace diagd::store
