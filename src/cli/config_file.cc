#include "cli/config_file.h"

#include <cstdlib>
#include <filesystem>

namespace diagd::cli {

std::optional<std::string> ConfigFileFor(const std::optional<std::string>& path) {
  if (path) return path;
  const char* from_env = std::getenv("DIAGD_CONFIG");
  if (from_env != nullptr && *from_env != '\0') return std::string(from_env);
  return std::nullopt;
}

Result<config::Config> LoadConfig(const std::optional<std::string>& path,
                                  const config::Environment& env) {
  if (auto file = ConfigFileFor(path)) return config::LoadConfigFile(*file, env);
  return config::DefaultConfig(std::filesystem::current_path(), env);
}

}  // namespace diagd::cli
