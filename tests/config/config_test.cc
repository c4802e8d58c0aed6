// What a good configuration becomes: defaults, the contract's example,
// model layering, environment overrides and path resolution.
#include "config/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>

namespace diagd::config {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::filesystem::path kBase = "/etc/diagd";

// A full configuration file: every table and its keys.
constexpr char kContractExample[] = R"(
now = "2026-11-29T10:30:00Z"        # optional fixed clock, for recorded data
language = "zh"                     # prompts: zh (default) or en

[server]
listen = "127.0.0.1:8080"
auth_tokens = []                    # bearer tokens; empty = no auth, loopback only
max_concurrent_runs = 1000          # runs executing at once
max_queued_runs = 1000              # waiting for a slot; past it: 503 + Retry-After
max_body_bytes = 65536

[storage]
runs = "sqlite:data/diagd.db"       # or postgresql://user:pass@host:5432/db
canonical = "memory:"               # or redis://host:6379/0
canonical_ttl_seconds = 3600        # must exceed harness.max_run_seconds

[model]                             # default for every component
provider = "openai"                 # openai | offline
base_url = "http://127.0.0.1:8000/v1"
api_key = ""
name = "qwen2.5-72b-instruct"
timeout_seconds = 60

[model.semantic_guard]              # per-component override: router, system_chat,
name = "..."                        # knowledge_answer, diagnosis_agent,
                                    # evidence_repair, semantic_guard

[harness]
no_gain_threshold = 3
protocol_violation_threshold = 2
max_model_calls = 12
max_tool_calls = 10
max_total_tokens = 64000
max_tool_bytes = 1048576
max_run_seconds = 180

[tools.documents]
backend = "local"                   # local | http
path = "docs"                       # Markdown tree (local)
url = ""                            # upstream retrieval service (http)
max_evidence = 5
max_excerpt_chars = 600

[tools.logs]
backend = "local"                   # local (more later)
path = "logs"                       # <topic>.jsonl or <topic>.log files
default_lookback_minutes = 60
max_lookback_minutes = 1440
max_events = 30

[tools.mysql.datasources.orders]
url = "sqlite:data/orders.db"       # or mysql://user:pass@host:3306/db
max_rows = 30
timeout_ms = 3000
)";

Config MustParse(std::string_view text, const Environment& env = {}) {
  Result<Config> config = ParseConfig(text, kBase, env);
  EXPECT_TRUE(config.has_value()) << config.error().message;
  return config.has_value() ? std::move(config).value() : Config{};
}

void ExpectSameEndpoint(const ModelEndpoint& actual, const ModelEndpoint& expected) {
  EXPECT_EQ(actual.provider, expected.provider);
  EXPECT_EQ(actual.base_url, expected.base_url);
  EXPECT_EQ(actual.api_key, expected.api_key);
  EXPECT_EQ(actual.name, expected.name);
  EXPECT_EQ(actual.timeout_seconds, expected.timeout_seconds);
}

TEST(Config, DefaultsWithNoFile) {
  Result<Config> loaded = DefaultConfig(kBase, {});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  const Config& config = *loaded;
  EXPECT_FALSE(config.now.has_value());
  EXPECT_EQ(config.language, Language::kZh);
  EXPECT_EQ(config.base_dir, kBase);
  EXPECT_EQ(config.server.listen, "127.0.0.1:8080");
  EXPECT_TRUE(config.server.auth_tokens.empty());
  EXPECT_EQ(config.server.max_concurrent_runs, 1000);
  EXPECT_EQ(config.server.max_queued_runs, 1000);
  EXPECT_EQ(config.server.max_body_bytes, 65536);
  EXPECT_EQ(config.server.shutdown_grace_seconds, 25) << "below Kubernetes' default 30 s";
  EXPECT_EQ(config.storage.runs, "sqlite:/etc/diagd/data/diagd.db");
  EXPECT_EQ(config.storage.canonical, "memory:");
  EXPECT_EQ(config.storage.canonical_ttl_seconds, 3600);
  EXPECT_EQ(config.storage.observation_retention_days, 30);
  EXPECT_EQ(config.model.defaults.provider, ModelProvider::kOpenAi);
  EXPECT_EQ(config.model.defaults.base_url, "http://127.0.0.1:8000/v1");
  EXPECT_EQ(config.model.defaults.api_key, "");
  EXPECT_EQ(config.model.defaults.name, "qwen2.5-72b-instruct");
  EXPECT_EQ(config.model.defaults.timeout_seconds, 60);
  EXPECT_EQ(config.model.per_component.size(), std::size(kAllModelComponents));
  for (ModelComponent component : kAllModelComponents) {
    ExpectSameEndpoint(config.model.For(component), config.model.defaults);
  }
  EXPECT_EQ(config.harness.no_gain_threshold, 3);
  EXPECT_EQ(config.harness.protocol_violation_threshold, 2);
  EXPECT_EQ(config.harness.max_model_calls, 12);
  EXPECT_EQ(config.harness.max_tool_calls, 10);
  EXPECT_EQ(config.harness.max_total_tokens, 64000);
  EXPECT_EQ(config.harness.max_tool_bytes, 1048576);
  EXPECT_EQ(config.harness.max_run_seconds, 180);
  EXPECT_EQ(config.tools.max_attempts, 2);
  EXPECT_EQ(config.tools.documents.backend, tools::documents::DocumentsToolConfig::Backend::kLocal);
  EXPECT_EQ(config.tools.documents.path, "/etc/diagd/docs");
  EXPECT_EQ(config.tools.documents.cache_path, "/etc/diagd/data/cache");
  EXPECT_EQ(config.tools.documents.url, "");
  EXPECT_EQ(config.tools.documents.max_evidence, 5);
  EXPECT_EQ(config.tools.documents.max_excerpt_chars, 600);
  EXPECT_EQ(config.tools.documents.timeout_ms, 10000);
  EXPECT_EQ(config.tools.logs.path, "/etc/diagd/logs");
  EXPECT_EQ(config.tools.logs.default_lookback_minutes, 60);
  EXPECT_EQ(config.tools.logs.max_lookback_minutes, 1440);
  EXPECT_EQ(config.tools.logs.max_events, 30);
  EXPECT_EQ(config.tools.logs.max_message_chars, 2000);
  EXPECT_EQ(config.tools.logs.timeout_ms, 10000);
  EXPECT_TRUE(config.tools.datasources.empty());
}

TEST(Config, EmptyFileGivesTheDefaults) {
  Config config = MustParse("");
  EXPECT_EQ(config.storage.runs, "sqlite:/etc/diagd/data/diagd.db");
  EXPECT_EQ(config.harness.max_tool_calls, 10);
}

TEST(Config, ParsesTheContractExample) {
  Config config = MustParse(kContractExample);
  ASSERT_TRUE(config.now.has_value());
  EXPECT_EQ(*config.now, ParseRfc3339("2026-11-29T10:30:00Z"));
  EXPECT_EQ(config.language, Language::kZh);
  EXPECT_EQ(config.storage.runs, "sqlite:/etc/diagd/data/diagd.db");
  EXPECT_EQ(config.model.For(ModelComponent::kSemanticGuard).name, "...");
  EXPECT_EQ(config.model.For(ModelComponent::kRouter).name, "qwen2.5-72b-instruct");
  EXPECT_EQ(config.tools.documents.path, "/etc/diagd/docs");
  EXPECT_EQ(config.tools.logs.path, "/etc/diagd/logs");
  ASSERT_EQ(config.tools.datasources.size(), 1u);
  const tools::mysql::DatasourceConfig& orders = config.tools.datasources[0];
  EXPECT_EQ(orders.name, "orders");
  EXPECT_EQ(orders.url, "sqlite:/etc/diagd/data/orders.db");
  EXPECT_EQ(orders.max_rows, 30);
  EXPECT_EQ(orders.timeout_ms, 3000);
  EXPECT_EQ(orders.max_cell_chars, 1000);
}

TEST(Config, ReadsEveryKeyThatDiffersFromItsDefault) {
  Config config = MustParse(R"(
now = 2026-11-29T18:30:00+08:00
language = "en"
[server]
listen = "[::1]:9090"
auth_tokens = ["t1", "t2"]
max_concurrent_runs = 8
max_queued_runs = 16
max_body_bytes = 1024
max_header_bytes = 4096
max_connections = 64
shutdown_grace_seconds = 5
[storage]
runs = "postgresql://diagd:pw@db.internal:5432/diagd"
canonical = "redis://cache.internal:6380/2"
canonical_ttl_seconds = 600
observation_retention_days = 7
[model]
provider = "offline"
timeout_seconds = 5
[harness]
no_gain_threshold = 1
protocol_violation_threshold = 1
max_model_calls = 4
max_tool_calls = 3
max_total_tokens = 9000000000
max_tool_bytes = 4096
max_run_seconds = 30
[tools]
max_attempts = 5
[tools.documents]
backend = "http"
url = "https://kb.internal/search"
max_evidence = 2
max_excerpt_chars = 100
timeout_ms = 700
[tools.logs]
backend = "local"
default_lookback_minutes = 10
max_lookback_minutes = 20
max_events = 7
max_message_chars = 300
timeout_ms = 800
[tools.mysql.datasources.orders]
url = "mysql://reader:secret@10.0.0.5:3306/orders"
max_rows = 5
timeout_ms = 900
max_cell_chars = 64
)");
  EXPECT_EQ(config.now, ParseRfc3339("2026-11-29T10:30:00Z"));
  EXPECT_EQ(config.language, Language::kEn);
  EXPECT_EQ(config.server.listen, "[::1]:9090");
  EXPECT_EQ(config.server.auth_tokens, (std::vector<std::string>{"t1", "t2"}));
  EXPECT_EQ(config.server.max_concurrent_runs, 8);
  EXPECT_EQ(config.server.max_queued_runs, 16);
  EXPECT_EQ(config.server.max_body_bytes, 1024);
  EXPECT_EQ(config.server.max_header_bytes, 4096);
  EXPECT_EQ(config.server.max_connections, 64);
  EXPECT_EQ(config.server.shutdown_grace_seconds, 5);
  EXPECT_EQ(config.storage.runs, "postgresql://diagd:pw@db.internal:5432/diagd");
  EXPECT_EQ(config.storage.canonical, "redis://cache.internal:6380/2");
  EXPECT_EQ(config.storage.canonical_ttl_seconds, 600);
  EXPECT_EQ(config.storage.observation_retention_days, 7);
  EXPECT_EQ(config.model.For(ModelComponent::kDiagnosisAgent).provider, ModelProvider::kOffline);
  EXPECT_EQ(config.model.For(ModelComponent::kDiagnosisAgent).timeout_seconds, 5);
  EXPECT_EQ(config.harness.no_gain_threshold, 1);
  EXPECT_EQ(config.harness.protocol_violation_threshold, 1);
  EXPECT_EQ(config.harness.max_model_calls, 4);
  EXPECT_EQ(config.harness.max_tool_calls, 3);
  EXPECT_EQ(config.harness.max_total_tokens, 9000000000);
  EXPECT_EQ(config.harness.max_tool_bytes, 4096);
  EXPECT_EQ(config.harness.max_run_seconds, 30);
  EXPECT_EQ(config.tools.max_attempts, 5);
  EXPECT_EQ(config.tools.documents.backend, tools::documents::DocumentsToolConfig::Backend::kHttp);
  EXPECT_EQ(config.tools.documents.url, "https://kb.internal/search");
  EXPECT_EQ(config.tools.documents.max_evidence, 2);
  EXPECT_EQ(config.tools.documents.max_excerpt_chars, 100);
  EXPECT_EQ(config.tools.documents.timeout_ms, 700);
  EXPECT_EQ(config.tools.logs.default_lookback_minutes, 10);
  EXPECT_EQ(config.tools.logs.max_lookback_minutes, 20);
  EXPECT_EQ(config.tools.logs.max_events, 7);
  EXPECT_EQ(config.tools.logs.max_message_chars, 300);
  EXPECT_EQ(config.tools.logs.timeout_ms, 800);
  ASSERT_EQ(config.tools.datasources.size(), 1u);
  EXPECT_EQ(config.tools.datasources[0].url, "mysql://reader:secret@10.0.0.5:3306/orders");
  EXPECT_EQ(config.tools.datasources[0].max_rows, 5);
  EXPECT_EQ(config.tools.datasources[0].timeout_ms, 900);
  EXPECT_EQ(config.tools.datasources[0].max_cell_chars, 64);
}

TEST(Config, ComponentOverrideLayersOnTheDefaultModel) {
  Config config = MustParse(R"(
[model]
base_url = "https://llm.internal/v1"
api_key = "sk-default"
[model.router]
name = "qwen2.5-7b-instruct"
timeout_seconds = 5
[model.semantic_guard]
provider = "offline"
)");
  const ModelEndpoint& router = config.model.For(ModelComponent::kRouter);
  EXPECT_EQ(router.name, "qwen2.5-7b-instruct");
  EXPECT_EQ(router.timeout_seconds, 5);
  EXPECT_EQ(router.base_url, "https://llm.internal/v1");
  EXPECT_EQ(router.api_key, "sk-default");
  EXPECT_EQ(router.provider, ModelProvider::kOpenAi);
  EXPECT_EQ(config.model.For(ModelComponent::kSemanticGuard).provider, ModelProvider::kOffline);
  EXPECT_EQ(config.model.For(ModelComponent::kSemanticGuard).name, "qwen2.5-72b-instruct");
  ExpectSameEndpoint(config.model.For(ModelComponent::kDiagnosisAgent), config.model.defaults);
  EXPECT_EQ(config.model.defaults.name, "qwen2.5-72b-instruct");
}

TEST(Config, EnvironmentOverridesTheDefaultModel) {
  Config config = MustParse(R"(
[model]
provider = "offline"
base_url = "http://file.example/v1"
api_key = "from-file"
name = "file-model"
)",
                            {{"DIAGD_MODEL_PROVIDER", "openai"},
                             {"DIAGD_MODEL_BASE_URL", "https://env.example/v1"},
                             {"DIAGD_MODEL_API_KEY", "from-env"},
                             {"DIAGD_MODEL_NAME", "env-model"}});
  const ModelEndpoint& model = config.model.defaults;
  EXPECT_EQ(model.provider, ModelProvider::kOpenAi);
  EXPECT_EQ(model.base_url, "https://env.example/v1");
  EXPECT_EQ(model.api_key, "from-env");
  EXPECT_EQ(model.name, "env-model");
  ExpectSameEndpoint(config.model.For(ModelComponent::kKnowledgeAnswer), model);
}

TEST(Config, EnvironmentDoesNotReplaceAComponentsOwnKey) {
  Config config =
      MustParse(R"(
[model.router]
name = "router-model"
)",
                {{"DIAGD_MODEL_NAME", "env-model"}, {"DIAGD_MODEL_API_KEY", "from-env"}});
  const ModelEndpoint& router = config.model.For(ModelComponent::kRouter);
  EXPECT_EQ(router.name, "router-model");
  EXPECT_EQ(router.api_key, "from-env");  // not set by [model.router]: layered
  EXPECT_EQ(config.model.For(ModelComponent::kSystemChat).name, "env-model");
}

TEST(Config, EnvironmentOverridesApplyWithoutAFile) {
  Result<Config> config = DefaultConfig(kBase, {{"DIAGD_MODEL_PROVIDER", "offline"}});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->model.For(ModelComponent::kRouter).provider, ModelProvider::kOffline);
}

TEST(Config, EnvironmentSetToEmptyApiKeyClearsTheFilesKey) {
  Config config = MustParse("[model]\napi_key = \"from-file\"\n", {{"DIAGD_MODEL_API_KEY", ""}});
  EXPECT_EQ(config.model.defaults.api_key, "");
}

TEST(Config, IgnoresOtherDiagdVariables) {
  Config config = MustParse("", {{"DIAGD_CONFIG", "/x.toml"}, {"DIAGD_LOG_LEVEL", "debug"}});
  EXPECT_EQ(config.model.defaults.name, "qwen2.5-72b-instruct");
}

TEST(Config, ResolvesRelativePathsAgainstTheBaseDir) {
  Config config = MustParse(R"(
[storage]
runs = "sqlite:./state/../state/runs.db"
[tools.documents]
path = "kb"
[tools.logs]
path = "../shared/logs"
[tools.mysql.datasources.local]
url = "sqlite:data/local.db"
[tools.mysql.datasources.abs]
url = "sqlite:/var/lib/diagd/abs.db"
[tools.mysql.datasources.mem]
url = "sqlite::memory:"
)");
  EXPECT_EQ(config.storage.runs, "sqlite:/etc/diagd/state/runs.db");
  EXPECT_EQ(config.tools.documents.path, "/etc/diagd/kb");
  EXPECT_EQ(config.tools.logs.path, "/etc/shared/logs");
  ASSERT_EQ(config.tools.datasources.size(), 3u);
  EXPECT_EQ(config.tools.datasources[0].url, "sqlite:/var/lib/diagd/abs.db");
  EXPECT_EQ(config.tools.datasources[1].url, "sqlite:/etc/diagd/data/local.db");
  EXPECT_EQ(config.tools.datasources[2].url, "sqlite::memory:");
}

TEST(Config, KeepsAbsolutePathsAsWritten) {
  Config config = MustParse("[tools.documents]\npath = \"/srv/kb\"\n");
  EXPECT_EQ(config.tools.documents.path, "/srv/kb");
}

TEST(Config, MakesARelativeBaseDirAbsolute) {
  Result<Config> config = ParseConfig("", "conf", {});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->base_dir, std::filesystem::current_path() / "conf");
  EXPECT_EQ(config->tools.logs.path, std::filesystem::current_path() / "conf" / "logs");
}

TEST(Config, SortsDatasourcesByName) {
  Config config = MustParse(R"(
[tools.mysql.datasources.zeta]
url = "sqlite:z.db"
[tools.mysql.datasources.alpha]
url = "sqlite:a.db"
[tools.mysql.datasources.mid-2_b]
url = "sqlite:m.db"
)");
  ASSERT_EQ(config.tools.datasources.size(), 3u);
  EXPECT_EQ(config.tools.datasources[0].name, "alpha");
  EXPECT_EQ(config.tools.datasources[1].name, "mid-2_b");
  EXPECT_EQ(config.tools.datasources[2].name, "zeta");
}

TEST(Config, AcceptsIpv4AndNamedListenHosts) {
  EXPECT_EQ(MustParse("[server]\nlisten = \"0.0.0.0:80\"\n").server.listen, "0.0.0.0:80");
  EXPECT_EQ(MustParse("[server]\nlisten = \"localhost:65535\"\n").server.listen, "localhost:65535");
}

TEST(Config, ParseListenAddressSplitsHostAndPort) {
  auto v4 = ParseListenAddress("127.0.0.1:8080");
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 8080);
  auto v6 = ParseListenAddress("[::1]:9000");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 9000);
  EXPECT_FALSE(ParseListenAddress("127.0.0.1").has_value());
}

TEST(Config, ComponentKeysMatchTheTomlTables) {
  EXPECT_STREQ(ComponentKey(ModelComponent::kRouter), "router");
  EXPECT_STREQ(ComponentKey(ModelComponent::kSystemChat), "system_chat");
  EXPECT_STREQ(ComponentKey(ModelComponent::kKnowledgeAnswer), "knowledge_answer");
  EXPECT_STREQ(ComponentKey(ModelComponent::kDiagnosisAgent), "diagnosis_agent");
  EXPECT_STREQ(ComponentKey(ModelComponent::kEvidenceRepair), "evidence_repair");
  EXPECT_STREQ(ComponentKey(ModelComponent::kSemanticGuard), "semantic_guard");
}

TEST(Config, ForFallsBackToDefaultsInAHandBuiltConfig) {
  ModelConfig model;
  model.defaults.name = "only-default";
  EXPECT_EQ(model.For(ModelComponent::kRouter).name, "only-default");
}

class ConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("config_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path Write(const std::string& name, const std::string& text) {
    std::filesystem::path file = dir_ / name;
    std::ofstream(file) << text;
    return file;
  }

  std::filesystem::path dir_;
};

TEST_F(ConfigFile, ResolvesPathsAgainstTheFilesFolder) {
  std::filesystem::path file = Write("diagd.toml", "[tools.documents]\npath = \"kb\"\n");
  Result<Config> config = LoadConfigFile(file, {});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->base_dir, dir_.lexically_normal());
  EXPECT_EQ(config->tools.documents.path, (dir_ / "kb").lexically_normal());
  EXPECT_EQ(config->storage.runs, "sqlite:" + (dir_ / "data/diagd.db").lexically_normal().string());
}

TEST_F(ConfigFile, ErrorsStartWithTheFilesPath) {
  std::filesystem::path file = Write("bad.toml", "\n[harness]\nmax_tool_calls = 0\n");
  Result<Config> config = LoadConfigFile(file, {});
  ASSERT_FALSE(config.has_value());
  EXPECT_THAT(config.error().message,
              StartsWith(file.string() + ":3: harness.max_tool_calls: expected a positive"));
}

TEST_F(ConfigFile, ReportsAMissingFileAsNotFound) {
  Result<Config> config = LoadConfigFile(dir_ / "absent.toml", {});
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(config.error().message, HasSubstr("absent.toml"));
}

TEST_F(ConfigFile, ReportsADirectoryClearly) {
  Result<Config> config = LoadConfigFile(dir_, {});
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(config.error().message, HasSubstr("is a folder, not a file"));
}

// A FIFO would block a read forever and /dev/zero would fill the memory:
// only a regular file of bounded size is read.
TEST_F(ConfigFile, RefusesAFifoADeviceAndAnOversizedFileBeforeReadingThem) {
  std::filesystem::path fifo = dir_ / "config.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::filesystem::path& file : {fifo, std::filesystem::path("/dev/zero")}) {
    Result<Config> config = LoadConfigFile(file, {});
    ASSERT_FALSE(config.has_value()) << file;
    EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
    EXPECT_THAT(config.error().message, HasSubstr("is not a regular file")) << file;
  }
  std::filesystem::path large = Write("large.toml", std::string((1 << 20) + 1, '#'));
  Result<Config> config = LoadConfigFile(large, {});
  ASSERT_FALSE(config.has_value());
  EXPECT_THAT(config.error().message, HasSubstr("a configuration file holds at most 1048576"));
  std::filesystem::path fits = Write("fits.toml", std::string(1 << 20, '#'));
  EXPECT_TRUE(LoadConfigFile(fits, {}).has_value()) << "a comment of exactly the limit is read";
}

TEST(Config, ProcessEnvironmentKeepsOnlyDiagdVariables) {
  ASSERT_EQ(::setenv("DIAGD_CONFIG_TEST_VARIABLE", "a=b", 1), 0);
  ASSERT_EQ(::setenv("NOT_DIAGD_CONFIG_TEST_VARIABLE", "x", 1), 0);
  Environment env = ProcessEnvironment();
  ::unsetenv("DIAGD_CONFIG_TEST_VARIABLE");
  ::unsetenv("NOT_DIAGD_CONFIG_TEST_VARIABLE");
  EXPECT_EQ(env["DIAGD_CONFIG_TEST_VARIABLE"], "a=b");
  EXPECT_EQ(env.count("NOT_DIAGD_CONFIG_TEST_VARIABLE"), 0u);
  for (const auto& [name, value] : env) EXPECT_THAT(name, StartsWith("DIAGD_"));
}

}  // namespace
}  // namespace diagd::config
