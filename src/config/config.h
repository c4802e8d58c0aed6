// diagd's configuration: the TOML file of docs/configuration.md as plain
// structs, with defaults, environment overrides and validation.
//
// A `Config` returned by `ParseConfig`, `LoadConfigFile` or `DefaultConfig` is
// complete and valid: every key has a value (the documented default when the
// file does not set it), every relative path and `sqlite:` URL is absolute
// (resolved against `base_dir`), every model component has a fully resolved
// endpoint, and every rule of docs/configuration.md holds. Callers never check
// a value again; they only read it.
//
// Errors are values. A bad file, key or value gives an `Error` whose message
// names the source, the line, the dotted key (or the environment variable) and
// what was expected, one problem a line, e.g.
//   diagd.toml:12: harness.max_tool_calls: expected a positive integer, got -1
// Messages never contain an API key, a bearer token or a URL password.
//
// Thread safety: plain values; functions here are pure apart from reading the
// file or the process environment they are asked to read.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "tools/tool_sections.h"

namespace diagd::config {

// The language prompts are written in.
enum class Language { kZh, kEn };

enum class ModelProvider { kOpenAi, kOffline };

// docs/model-endpoints.md: whether an assistant turn's reasoning goes back
// to the model within the diagnosis tool loop. kAuto replays what came as
// `reasoning_content` (what DeepSeek's thinking mode demands); kAlways also
// replays reasoning that came as `reasoning` or as a leading <think> block,
// as `reasoning_content`; kNever replays none.
enum class ReplayReasoning { kAuto, kAlways, kNever };

// The parts of diagd that call a model; each may use its own endpoint.
enum class ModelComponent {
  kRouter,
  kSystemChat,
  kKnowledgeAnswer,
  kDiagnosisAgent,
  kEvidenceRepair,
  kSemanticGuard,
};

// Every component, in declaration order.
inline constexpr ModelComponent kAllModelComponents[] = {
    ModelComponent::kRouter,          ModelComponent::kSystemChat,
    ModelComponent::kKnowledgeAnswer, ModelComponent::kDiagnosisAgent,
    ModelComponent::kEvidenceRepair,  ModelComponent::kSemanticGuard,
};

// The component's table name under [model]: "router", "system_chat", ...
const char* ComponentKey(ModelComponent component);

struct ModelEndpoint {
  ModelProvider provider = ModelProvider::kOpenAi;
  std::string base_url = "http://127.0.0.1:8000/v1";
  std::string api_key;  // a secret: never log or echo it
  std::string name = "qwen2.5-72b-instruct";
  int timeout_seconds = 60;
  // docs/model-endpoints.md: exchanges per model call, the first included.
  int max_attempts = 3;
  ReplayReasoning replay_reasoning = ReplayReasoning::kAuto;
};

struct ModelConfig {
  // [model], after the DIAGD_MODEL_* environment overrides.
  ModelEndpoint defaults;
  // Fully resolved: every component is present, its own [model.X] keys
  // layered on `defaults`.
  std::map<ModelComponent, ModelEndpoint> per_component;

  // The endpoint of `component`; `defaults` when `per_component` lacks it
  // (only possible in a hand-built ModelConfig).
  const ModelEndpoint& For(ModelComponent component) const;
};

struct ServerConfig {
  std::string listen = "127.0.0.1:8080";  // host:port, IPv6 as [::1]:8080
  std::vector<std::string> auth_tokens;   // secrets; empty = no auth
  int max_concurrent_runs = 1000;
  int max_queued_runs = 1000;
  int64_t max_body_bytes = 65536;
  // Keys of diagd's own (docs/configuration.md, "Keys that need a word of why"):
  int max_header_bytes = 16384;      // request line and headers together
  int max_connections = 4096;        // open client connections; past it: 503
  int shutdown_grace_seconds = 25;   // on SIGTERM: how long running runs may finish
  // docs/deploy.md: the instance's name, stored with each run it
  // executes (empty: host name and port), and how long a run's lease lasts
  // without renewal before the run counts as lost (INSTANCE_LOST).
  std::string instance_id;
  int lease_seconds = 30;
  // Not a configuration key (tests set it): how long an SSE stream may be
  // quiet before it gets a `: keepalive` comment (15 s).
  std::chrono::milliseconds sse_keepalive{15000};
};

struct StorageConfig {
  // "sqlite:/abs/path" (absolute after loading) or "postgresql://...".
  std::string runs = "sqlite:data/diagd.db";
  // "memory:" or "redis://[[user]:password@]host[:port][/db]".
  std::string canonical = "memory:";
  int canonical_ttl_seconds = 3600;
  // docs/console.md: how long the model observations of a run's tool calls
  // are kept (GET /api/v1/runs/{id}/observations/{tool_call_id}).
  int observation_retention_days = 30;
};

struct HarnessConfig {
  int no_gain_threshold = 3;
  int protocol_violation_threshold = 2;
  int max_model_calls = 12;
  int max_tool_calls = 10;
  int64_t max_total_tokens = 64000;
  int64_t max_tool_bytes = 1048576;
  int max_run_seconds = 180;
};

// [tools]: what applies to every tool, and each registered tool's section
// (tools/tool_sections.h) as a member of its own name: `documents`, `logs`,
// `datasources` (of [tools.mysql]), `metrics` (set where configured).
struct ToolsConfig : tools::RegisteredSections::Holder {
  int max_attempts = 2;  // 1..5
};

struct Config {
  std::optional<WallTime> now;  // a fixed clock, for recorded data
  Language language = Language::kZh;
  ServerConfig server;
  StorageConfig storage;
  ModelConfig model;
  HarnessConfig harness;
  ToolsConfig tools;
  // The folder relative paths were resolved against (absolute).
  std::filesystem::path base_dir;
};

// Environment variables by name. Tests pass their own; only the entry points
// read the process environment.
using Environment = std::map<std::string, std::string>;

// The DIAGD_* variables of this process.
Environment ProcessEnvironment();

// Parses `toml_text`. `source_name` starts every error message; relative
// paths resolve against `base_dir` (made absolute against the working
// directory when it is relative). DIAGD_MODEL_BASE_URL, DIAGD_MODEL_API_KEY,
// DIAGD_MODEL_NAME and DIAGD_MODEL_PROVIDER in `env` override [model].
Result<Config> ParseConfig(std::string_view toml_text, const std::filesystem::path& base_dir,
                           const Environment& env, std::string_view source_name = "diagd.toml");

// Reads and parses `file`; relative paths resolve against the file's folder.
// A missing file is a NotFound error, an unreadable one InvalidArgument.
Result<Config> LoadConfigFile(const std::filesystem::path& file, const Environment& env);

// The configuration when there is no file at all: every default, paths under
// `base_dir`, and the environment overrides.
Result<Config> DefaultConfig(const std::filesystem::path& base_dir, const Environment& env);

// A "host:port" listen address split in two; the host keeps no brackets
// ("[::1]:8080" gives "::1" and 8080). Nothing when `listen` is not one.
struct ListenAddress {
  std::string host;
  int port = 0;
};
std::optional<ListenAddress> ParseListenAddress(std::string_view listen);

}  // namespace diagd::config
