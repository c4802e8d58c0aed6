// Internal to config/: the stages of loading a configuration, and the record
// of where each key came from that lets a late check still name its line.
//
// ParseConfig runs: ReadToml (types, unknown keys, single-value rules) ->
// environment overrides -> model layering -> path resolution ->
// CheckCrossKeyRules. This header is free of toml++ so only the reader pays
// for it at compile time.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "core/result.h"

namespace diagd::config::internal {

// Where each key that was set came from: a line of the file or an
// environment variable. Keys never set are absent.
class KeyLocations {
 public:
  explicit KeyLocations(std::string source_name) : source_name_(std::move(source_name)) {}

  // `line` is 1-based; 0 when toml++ did not know it.
  void SetLine(const std::string& key, int line);
  void SetVariable(const std::string& key, const std::string& variable);
  bool Has(const std::string& key) const { return where_.count(key) != 0; }

  // What starts a message about `key`: "diagd.toml:12: harness.max_tool_calls",
  // "DIAGD_MODEL_NAME", or the bare key when it was never set.
  std::string Label(const std::string& key) const;
  // "diagd.toml:12: " for a line of the source (or "diagd.toml: " for line 0).
  std::string At(int line) const;

 private:
  std::string source_name_;
  std::map<std::string, std::string> where_;  // key -> label
};

// Every problem found, so that one run of diagd reports all of them.
class Problems {
 public:
  void Add(std::string label, std::string_view problem);
  bool empty() const { return lines_.empty(); }
  // OK when empty; otherwise InvalidArgument with one problem a line.
  Status ToStatus() const;

 private:
  std::vector<std::string> lines_;
};

// The keys of one [model] or [model.X] table that were set.
struct EndpointOverride {
  std::optional<ModelProvider> provider;
  std::optional<std::string> base_url;
  std::optional<std::string> api_key;
  std::optional<std::string> name;
  std::optional<int> timeout_seconds;
  std::optional<int> max_attempts;
  std::optional<ReplayReasoning> replay_reasoning;
};

// `endpoint` with every key set in `layer` replaced.
void Layer(const EndpointOverride& layer, ModelEndpoint& endpoint);

// What the file says, before environment, layering and path resolution.
struct FileSettings {
  Config config;  // model.per_component still empty
  EndpointOverride model_defaults;
  std::map<ModelComponent, EndpointOverride> model_components;
};

// Reads TOML text into `settings` (which starts from the defaults), checking
// types, unknown keys and every rule on a single value. Records the line of
// each key in `locations`. Any syntax error or problem is an error.
Status ReadToml(std::string_view text, FileSettings& settings, KeyLocations& locations);

// Makes every path and sqlite: URL of `tools` absolute against `base`
// (each section resolves its own).
void ResolveToolPaths(const std::filesystem::path& base, ToolsConfig& tools);
// `p` absolute against `base`, normalized.
std::filesystem::path ResolvePath(const std::filesystem::path& base,
                                  const std::filesystem::path& p);
// "sqlite:PATH" with PATH absolute; an in-memory database and any other
// scheme are kept as they are.
std::string ResolveSqliteUrl(const std::filesystem::path& base, const std::string& url);

// The largest configuration or incident file read (1 MiB; the bundled ones
// are a few KiB).
inline constexpr std::size_t kMaxConfigFileBytes = 1 << 20;

// The text of `file` ("config file", "incident file" in messages): a
// regular file of at most kMaxConfigFileBytes; NOT_FOUND when it does not
// exist, INVALID_ARGUMENT for a folder, a FIFO, a device, a larger file or
// a read that fails (config_file.cc).
Result<std::string> ReadConfigText(const std::filesystem::path& file, const std::string& what);

// `dir` absolute and normalized, without a trailing separator.
Result<std::filesystem::path> AbsoluteDir(const std::filesystem::path& dir);

// The rules that relate two keys: each tool section's, then run time
// against the canonical TTL.
Status CheckCrossKeyRules(const Config& config, const KeyLocations& locations);

// A default lookback within its maximum, for the section `table`
// ("tools.logs"): the message goes to whichever key the file set.
void CheckLookback(std::string_view table, int default_minutes, int max_minutes,
                   const KeyLocations& at, Problems& problems);

}  // namespace diagd::config::internal
