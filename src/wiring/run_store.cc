#include "wiring/run_store.h"

#include "store/postgres_run_store.h"
#include "store/redis_run_bus.h"
#include "store/sqlite_run_store.h"

namespace diagd::wiring {

Result<std::unique_ptr<app::RunStore>> OpenRunStore(const config::Config& config,
                                                    const Clock& clock) {
  const std::string& url = config.storage.runs;
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) {
    auto store = store::PostgresRunStore::Open(url, clock);
    // The error never repeats the URL: it may hold a password.
    if (!store) return Error{store.error().code, "storage.runs: " + store.error().message};
    return std::unique_ptr<app::RunStore>(std::move(*store));
  }
  if (url.rfind("sqlite:", 0) != 0) {
    return Error::InvalidArgument(
        "storage.runs: expected sqlite:PATH, postgresql://... or postgres://...");
  }
  auto store = store::SqliteRunStore::Open(url, clock);
  if (!store) return Error::InvalidArgument("storage.runs: " + store.error().message);
  return std::unique_ptr<app::RunStore>(std::move(*store));
}

Result<std::unique_ptr<app::RunBus>> OpenRunBus(const config::Config& config) {
  const std::string& url = config.storage.canonical;
  if (!url.starts_with("redis://")) return std::unique_ptr<app::RunBus>();
  auto bus = store::OpenRedisRunBus(url);
  if (!bus) return Error::InvalidArgument("storage.canonical: " + bus.error().message);
  return bus;
}

}  // namespace diagd::wiring
