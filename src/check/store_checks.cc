#include "check/store_checks.h"

#include "check/misconfigurations.h"
#include "http/http_client.h"
#include "wiring/store_probes.h"

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
  rows.push_back(Row(runs, wiring::ProbeRunStore(config), M::kRunStoreUnusable, {}));
  if (!wiring::HasSharedCanonicalStore(config)) return rows;
  std::string name = wiring::SharedCanonicalStoreName(config);
  if (progress != nullptr) progress->OnChecking("store", name);
  rows.push_back(
      Row(name, wiring::ProbeSharedCanonicalStore(config), M::kRedisUnreachable, {{"url", name}}));
  return rows;
}

}  // namespace diagd::check
