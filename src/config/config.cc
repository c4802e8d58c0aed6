// Loading: file and environment in, a finished Config out. The order of the
// stages is the contract of config_parse.h.
#include "config/config.h"

#include <iterator>
#include <system_error>
#include <utility>

#include "config/config_parse.h"
#include "config/config_rules.h"

extern char** environ;  // POSIX; not declared by any standard C++ header

namespace diagd::config {
namespace {

using internal::EndpointOverride;
using internal::KeyLocations;
using internal::Problems;

constexpr char kEnvPrefix[] = "DIAGD_";

// Applies DIAGD_MODEL_* on top of the file's [model] keys, judged by the same
// rules as the file; a problem names the variable.
Status ApplyEnvironment(const Environment& env, EndpointOverride& model, KeyLocations& locations) {
  Problems problems;
  auto take = [&](const char* variable, const char* key,
                  internal::Rule rule) -> std::optional<std::string> {
    auto it = env.find(variable);
    if (it == env.end()) return std::nullopt;
    if (rule != nullptr) {
      if (internal::Problem problem = rule(it->second)) {
        problems.Add(variable, *problem);
        return std::nullopt;
      }
    }
    locations.SetVariable(std::string("model.") + key, variable);
    return it->second;
  };
  if (auto provider = take("DIAGD_MODEL_PROVIDER", "provider", nullptr)) {
    if (*provider == "openai") {
      model.provider = ModelProvider::kOpenAi;
    } else if (*provider == "offline") {
      model.provider = ModelProvider::kOffline;
    } else {
      problems.Add("DIAGD_MODEL_PROVIDER",
                   "expected \"openai\" or \"offline\", got " + internal::Quote(*provider));
    }
  }
  if (auto url = take("DIAGD_MODEL_BASE_URL", "base_url", internal::CheckHttpUrl)) {
    model.base_url = std::move(url);
  }
  if (auto key = take("DIAGD_MODEL_API_KEY", "api_key", internal::CheckSecret)) {
    model.api_key = std::move(key);
  }
  if (auto name = take("DIAGD_MODEL_NAME", "name", internal::CheckNonEmpty)) {
    model.name = std::move(name);
  }
  return problems.ToStatus();
}

}  // namespace

std::filesystem::path internal::ResolvePath(const std::filesystem::path& base,
                                            const std::filesystem::path& p) {
  return (p.is_absolute() ? p : base / p).lexically_normal();
}

std::string internal::ResolveSqliteUrl(const std::filesystem::path& base, const std::string& url) {
  constexpr std::string_view kScheme = "sqlite:";
  if (url.compare(0, kScheme.size(), kScheme) != 0) return url;
  std::string path = url.substr(kScheme.size());
  if (path == ":memory:") return url;
  return std::string(kScheme) + ResolvePath(base, path).string();
}

void internal::ResolveToolPaths(const std::filesystem::path& base, ToolsConfig& tools) {
  tools::RegisteredSections::ForEach([&]<typename Section>(std::type_identity<Section>) {
    Section::ResolvePaths(base, tools);
  });
}

namespace {

void ResolvePaths(Config& config) {
  config.storage.runs = internal::ResolveSqliteUrl(config.base_dir, config.storage.runs);
  internal::ResolveToolPaths(config.base_dir, config.tools);
}

}  // namespace

Result<std::filesystem::path> internal::AbsoluteDir(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(dir.empty() ? "." : dir, error);
  if (error) {
    return Error::InvalidArgument("config folder " + dir.string() + ": " + error.message());
  }
  absolute = absolute.lexically_normal();
  // "/etc/diagd/" -> "/etc/diagd", so that joined paths print cleanly.
  if (!absolute.has_filename() && absolute.has_relative_path()) {
    absolute = absolute.parent_path();
  }
  return absolute;
}

const char* ComponentKey(ModelComponent component) {
  switch (component) {
    case ModelComponent::kRouter:
      return "router";
    case ModelComponent::kSystemChat:
      return "system_chat";
    case ModelComponent::kKnowledgeAnswer:
      return "knowledge_answer";
    case ModelComponent::kDiagnosisAgent:
      return "diagnosis_agent";
    case ModelComponent::kEvidenceRepair:
      return "evidence_repair";
    case ModelComponent::kSemanticGuard:
      return "semantic_guard";
  }
  return "unknown";
}

const ModelEndpoint& ModelConfig::For(ModelComponent component) const {
  auto it = per_component.find(component);
  return it == per_component.end() ? defaults : it->second;
}

Environment ProcessEnvironment() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    if (text.substr(0, sizeof kEnvPrefix - 1) != kEnvPrefix) continue;
    std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    env.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return env;
}

Result<Config> ParseConfig(std::string_view toml_text, const std::filesystem::path& base_dir,
                           const Environment& env, std::string_view source_name) {
  Result<std::filesystem::path> base = internal::AbsoluteDir(base_dir);
  if (!base) return base.error();

  internal::FileSettings settings;
  KeyLocations locations{std::string(source_name)};
  if (Status read = internal::ReadToml(toml_text, settings, locations); !read) {
    return read.error();
  }
  if (Status applied = ApplyEnvironment(env, settings.model_defaults, locations); !applied) {
    return applied.error();
  }

  Config config = std::move(settings.config);
  internal::Layer(settings.model_defaults, config.model.defaults);
  for (ModelComponent component : kAllModelComponents) {
    ModelEndpoint endpoint = config.model.defaults;
    auto layer = settings.model_components.find(component);
    if (layer != settings.model_components.end()) internal::Layer(layer->second, endpoint);
    config.model.per_component[component] = std::move(endpoint);
  }
  config.base_dir = *base;
  ResolvePaths(config);

  if (Status checked = internal::CheckCrossKeyRules(config, locations); !checked) {
    return checked.error();
  }
  return config;
}

Result<Config> LoadConfigFile(const std::filesystem::path& file, const Environment& env) {
  Result<std::string> text = internal::ReadConfigText(file, "config file");
  if (!text) return text.error();
  Result<std::filesystem::path> absolute = internal::AbsoluteDir(file);
  if (!absolute) return absolute.error();
  return ParseConfig(*text, absolute->parent_path(), env, file.string());
}

Result<Config> DefaultConfig(const std::filesystem::path& base_dir, const Environment& env) {
  return ParseConfig("", base_dir, env, "defaults");
}

}  // namespace diagd::config
