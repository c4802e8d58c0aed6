#include "check/store_checks.h"

#include "check/misconfigurations.h"
#include "http/http_client.h"
#include "store/redis_client.h"
#include "store/store_probe.h"

namespace diagd::check {
namespace {

using M = Misconfiguration;

CheckItem Row(std::string name, const Result<std::string>& found, M misconfiguration,
              AdviceValues values) {
  if (found) return {"store", std::move(name), true, *found, ""};
  return {"store", std::move(name), false, found.error().message,
          Advise(misconfiguration, values)};
}

}  // namespace

std::vector<CheckItem> CheckStores(const config::Config& config, CheckProgress* progress) {
  std::vector<CheckItem> rows;
  // A PostgreSQL URL may hold a password: the name never does.
  std::string runs = http::RedactUrl(config.storage.runs);
  if (progress != nullptr) progress->OnChecking("store", runs);
  rows.push_back(Row(runs, store::ProbeRunStore(config.storage.runs), M::kRunStoreUnusable, {}));
  const std::string& canonical = config.storage.canonical;
  if (!canonical.starts_with("redis://")) return rows;
  auto endpoint = store::ParseRedisUrl(canonical);
  std::string name = endpoint ? "redis://" + endpoint->Describe() : "redis://";
  if (progress != nullptr) progress->OnChecking("store", name);
  rows.push_back(Row(name, store::ProbeRedis(canonical), M::kRedisUnreachable, {{"url", name}}));
  return rows;
}

}  // namespace diagd::check
