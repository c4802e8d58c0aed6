#include "wiring/run_store.h"

#include "store/sqlite_run_store.h"

namespace diagd::wiring {

Result<std::unique_ptr<app::RunStore>> OpenRunStore(const config::Config& config,
                                                    const Clock& clock) {
  const std::string& url = config.storage.runs;
  if (url.rfind("sqlite:", 0) != 0) {
    return Error::InvalidArgument(
        "storage.runs: only sqlite: is available in this build (postgresql:// is not yet)");
  }
  auto store = store::SqliteRunStore::Open(url, clock);
  if (!store) return Error::InvalidArgument("storage.runs: " + store.error().message);
  return std::unique_ptr<app::RunStore>(std::move(*store));
}

}  // namespace diagd::wiring
