// ReadToml: the schema of docs/configuration.md, one function per table, each
// reading its known keys and then rejecting the rest.
#include <string>
#include <type_traits>

#include "config/config_parse.h"
#include "config/config_rules.h"
#include "config/toml_reader.h"

namespace diagd::config::internal {
namespace {

constexpr char kComponentHint[] =
    "[model.X] components are router, system_chat, knowledge_answer, diagnosis_agent, "
    "evidence_repair, semantic_guard";

void ReadServer(TableReader server, ServerConfig& out) {
  server.Read("listen", out.listen, CheckListen);
  server.Read("auth_tokens", out.auth_tokens, CheckToken);
  server.Read("max_concurrent_runs", out.max_concurrent_runs);
  server.Read("max_queued_runs", out.max_queued_runs);
  server.Read("max_body_bytes", out.max_body_bytes);
  server.Read("max_header_bytes", out.max_header_bytes);
  server.Read("max_connections", out.max_connections);
  server.Read("shutdown_grace_seconds", out.shutdown_grace_seconds);
  server.Read("instance_id", out.instance_id, CheckToken);
  server.Read("lease_seconds", out.lease_seconds, 3);
  server.RejectUnknownKeys();
}

void ReadStorage(TableReader storage, StorageConfig& out) {
  storage.Read("runs", out.runs, CheckRunsUrl);
  storage.Read("canonical", out.canonical, CheckCanonicalUrl);
  storage.Read("canonical_ttl_seconds", out.canonical_ttl_seconds);
  storage.Read("observation_retention_days", out.observation_retention_days);
  storage.RejectUnknownKeys();
}

// The endpoint keys shared by [model] and every [model.X].
void ReadEndpointKeys(TableReader& model, EndpointOverride& out) {
  if (auto provider = model.ReadChoice("provider", {"openai", "offline"})) {
    out.provider = *provider == 0 ? ModelProvider::kOpenAi : ModelProvider::kOffline;
  }
  model.Read("base_url", out.base_url, CheckHttpUrl);
  model.Read("api_key", out.api_key, CheckSecret);
  model.Read("name", out.name, CheckNonEmpty);
  model.Read("timeout_seconds", out.timeout_seconds);
  model.Read("max_attempts", out.max_attempts, 1, 10);
  if (auto replay = model.ReadChoice("replay_reasoning", {"auto", "always", "never"})) {
    constexpr ReplayReasoning kChoices[] = {ReplayReasoning::kAuto, ReplayReasoning::kAlways,
                                            ReplayReasoning::kNever};
    out.replay_reasoning = kChoices[*replay];
  }
}

void ReadModel(TableReader model, FileSettings& out) {
  ReadEndpointKeys(model, out.model_defaults);
  for (ModelComponent component : kAllModelComponents) {
    if (auto table = model.Table(ComponentKey(component))) {
      EndpointOverride& layer = out.model_components[component];
      ReadEndpointKeys(*table, layer);
      table->RejectUnknownKeys();
    }
  }
  model.RejectUnknownKeys(kComponentHint);
}

void ReadHarness(TableReader harness, HarnessConfig& out) {
  harness.Read("no_gain_threshold", out.no_gain_threshold);
  harness.Read("protocol_violation_threshold", out.protocol_violation_threshold);
  harness.Read("max_model_calls", out.max_model_calls);
  harness.Read("max_tool_calls", out.max_tool_calls);
  harness.Read("max_total_tokens", out.max_total_tokens);
  harness.Read("max_tool_bytes", out.max_tool_bytes);
  harness.Read("max_run_seconds", out.max_run_seconds);
  harness.RejectUnknownKeys();
}

void ReadRoot(TableReader root, FileSettings& out) {
  root.Read("now", out.config.now);
  if (auto language = root.ReadChoice("language", {"zh", "en"})) {
    out.config.language = *language == 0 ? Language::kZh : Language::kEn;
  }
  if (auto server = root.Table("server")) ReadServer(*server, out.config.server);
  if (auto storage = root.Table("storage")) ReadStorage(*storage, out.config.storage);
  if (auto model = root.Table("model")) ReadModel(*model, out);
  if (auto harness = root.Table("harness")) ReadHarness(*harness, out.config.harness);
  if (auto tools = root.Table("tools")) ReadTools(*tools, out.config.tools);
  root.RejectUnknownKeys();
}

}  // namespace

void ReadTools(TableReader tools, ToolsConfig& out) {
  tools.Read("max_attempts", out.max_attempts, 1, 5);
  tools::RegisteredSections::ForEach([&]<typename Section>(std::type_identity<Section>) {
    if (auto table = tools.Table(Section::kTable)) Section::Read(*table, out);
  });
  tools.RejectUnknownKeys();
}

Status ReadToml(std::string_view text, FileSettings& settings, KeyLocations& locations) {
  toml::table root;
  try {
    root = toml::parse(text, std::string_view("config"));
  } catch (const toml::parse_error& error) {
    Problems problems;
    problems.Add(locations.At(static_cast<int>(error.source().begin.line)) + "syntax error",
                 error.description());
    return problems.ToStatus();
  } catch (const std::exception& error) {
    // toml++ documents only parse_error; anything else must still not escape.
    return Error::Internal(std::string("reading the configuration failed: ") + error.what());
  }
  Problems problems;
  ReadRoot(TableReader(root, "", locations, problems), settings);
  return problems.ToStatus();
}

}  // namespace diagd::config::internal
