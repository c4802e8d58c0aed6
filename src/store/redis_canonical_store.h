// The canonical store on Redis (storage.canonical = "redis://..."), shared
// by the instances of one service: one hash per run,
// `diagd:canonical:<run id>`, a field per tool call id holding the encoded
// record (canonical_codec.h). Every Put sets the hash to expire
// `canonical_ttl_seconds` later (HSET and EXPIRE in one MULTI), so a run's
// records leave together, `ttl` after its last call; ForgetRun deletes the
// hash at once.
//
// Redis is opened lazily: nothing is dialled until the first call, so an
// instance starts while Redis is down. A Redis that is unreachable costs a
// call at most the connect timeout, and then calls fail at once for a
// back-off (redis_client.h); errors are UNAVAILABLE, a damaged value
// INTERNAL. Most callers want `FallbackCanonicalStore` in front of this
// (fallback_canonical_store.h): a run must not stop because Redis did.
//
// Thread safety: safe for concurrent use (a pool of connections).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "core/result.h"
#include "store/redis_client.h"
#include "tools/canonical_store.h"

namespace diagd::store {

class RedisCanonicalStore final : public tools::CanonicalInvocationStore {
 public:
  // INVALID_ARGUMENT when `url` is not a usable redis:// URL; Redis itself
  // is not contacted.
  static Result<std::unique_ptr<RedisCanonicalStore>> Open(std::string_view url,
                                                           std::chrono::seconds ttl,
                                                           RedisPoolOptions options = {});
  RedisCanonicalStore(RedisEndpoint endpoint, std::chrono::seconds ttl, RedisPoolOptions options);

  // The hash that holds a run's records.
  static std::string KeyOf(const std::string& run_id);

  // tools::CanonicalInvocationStore
  Status Put(tools::CanonicalRecord record) override;
  Result<std::optional<tools::CanonicalRecord>> Get(const std::string& run_id,
                                                    const std::string& tool_call_id) override;
  // Deletes the run's hash; when Redis is unreachable the records are left
  // to their TTL.
  void ForgetRun(const std::string& run_id) override;

 private:
  const std::chrono::seconds ttl_;
  RedisPool pool_;
};

}  // namespace diagd::store
