// How every command finds its configuration: --config, else $DIAGD_CONFIG,
// else the defaults in the working directory (docs/configuration.md).
#pragma once

#include <optional>
#include <string>

#include "config/config.h"

namespace diagd::cli {

// The file a command reads: `path`, else $DIAGD_CONFIG; none means the
// defaults.
std::optional<std::string> ConfigFileFor(const std::optional<std::string>& path);

Result<config::Config> LoadConfig(const std::optional<std::string>& path,
                                  const config::Environment& env = config::ProcessEnvironment());

}  // namespace diagd::cli
