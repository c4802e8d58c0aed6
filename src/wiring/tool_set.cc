#include "wiring/tool_set.h"

#include <functional>
#include <map>
#include <utility>

#include "store/fallback_canonical_store.h"
#include "tools/tool_registry.h"
#include "tools/tool_settings.h"

namespace diagd::wiring {

Result<std::unique_ptr<ToolSet>> OpenToolSet(const config::Config& config, const Clock& clock) {
  auto set = std::make_unique<ToolSet>();

  std::chrono::seconds canonical_ttl(config.storage.canonical_ttl_seconds);
  if (config.storage.canonical == "memory:") {
    set->canonical_store = std::make_unique<tools::MemoryCanonicalStore>(canonical_ttl, clock);
  } else {
    // The instance's own records in memory, mirrored to Redis for the
    // others. Redis is dialled on first use: it need not be up to start.
    auto shared = store::OpenRedisCanonicalStore(config.storage.canonical, canonical_ttl, clock);
    if (!shared) {
      return Error::InvalidArgument("storage.canonical: " + shared.error().message);
    }
    set->canonical_store = std::move(*shared);
  }

  // Every registered tool's backend; a tool the configuration lacks has none.
  std::map<tools::ToolName, tools::ToolAdapter*> adapters;
  std::vector<std::function<void(tools::CatalogOptions&)>> refreshes;
  std::optional<Error> failed;
  tools::RegisteredTools::ForEach([&](auto face) {
    if (failed) return;
    using Face = decltype(face);
    auto opened = Face::OpenBackend({config, clock});
    if (!opened) {
      failed = opened.error();
      return;
    }
    if (!opened->adapter) return;
    adapters.emplace(Face::kName, opened->adapter.get());
    set->adapters.push_back(std::move(opened->adapter));
    if (opened->refresh_catalog) refreshes.push_back(std::move(opened->refresh_catalog));
  });
  if (failed) return *failed;

  // The adapters outlive the catalog that refreshes from them (both belong
  // to the set).
  auto refresh_all = [refreshes](tools::CatalogOptions& options) {
    for (const auto& refresh : refreshes) refresh(options);
  };
  tools::CatalogOptions options = tools::CatalogOptionsFrom(config);
  refresh_all(options);
  set->catalog = std::make_unique<tools::ToolCatalog>(
      std::move(options), tools::CatalogRefresh{refresh_all, &clock, kCatalogRefreshInterval});
  set->boundary = std::make_unique<tools::ToolBoundary>(std::move(adapters), *set->canonical_store,
                                                        clock, tools::BoundaryOptionsFrom(config));
  return set;
}

}  // namespace diagd::wiring
