#include "wiring/store_probes.h"

#include "store/redis_client.h"
#include "store/store_probe.h"

namespace diagd::wiring {

Result<std::string> ProbeRunStore(const config::Config& config) {
  return store::ProbeRunStore(config.storage.runs);
}

bool HasSharedCanonicalStore(const config::Config& config) {
  return config.storage.canonical.starts_with("redis://");
}

std::string SharedCanonicalStoreName(const config::Config& config) {
  auto endpoint = store::ParseRedisUrl(config.storage.canonical);
  return endpoint ? "redis://" + endpoint->Describe() : "redis://";
}

Result<std::string> ProbeSharedCanonicalStore(const config::Config& config) {
  return store::ProbeRedis(config.storage.canonical);
}

}  // namespace diagd::wiring
