#include "tools/tool_settings.h"

#include "tools/tool_registry.h"

namespace diagd::tools {

CatalogOptions CatalogOptionsFrom(const config::Config& config) {
  CatalogOptions options;
  RegisteredTools::ForEach(
      [&](auto face) { decltype(face)::ConfigureCatalog(config.tools, options); });
  options.english = config.language == config::Language::kEn;
  return options;
}

BoundaryOptions BoundaryOptionsFrom(const config::Config& config) {
  BoundaryOptions options;
  options.max_attempts = config.tools.max_attempts;
  RegisteredTools::ForEach(
      [&](auto face) { decltype(face)::ConfigureBoundary(config.tools, options); });
  return options;
}

}  // namespace diagd::tools
