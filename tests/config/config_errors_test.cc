// What a bad configuration gives: one clear error per problem, naming the
// source, line and dotted key (or the environment variable), and never a
// secret.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "config/config.h"

namespace diagd::config {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// The error message of parsing `text`; fails the test when it parses.
std::string ErrorOf(std::string_view text, const Environment& env = {}) {
  Result<Config> config = ParseConfig(text, "/etc/diagd", env);
  EXPECT_FALSE(config.has_value()) << "parsed:\n" << text;
  if (config.has_value()) return "";
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  return config.error().message;
}

TEST(Config, RejectsUnknownKeyNamingKeyAndLine) {
  EXPECT_EQ(ErrorOf("[harness]\nmax_tool_call = 3\n"),
            "diagd.toml:2: harness.max_tool_call: unknown key");
}

TEST(Config, RejectsUnknownTopLevelKeyAndTable) {
  EXPECT_EQ(ErrorOf("langauge = \"en\"\n"), "diagd.toml:1: langauge: unknown key");
  EXPECT_EQ(ErrorOf("\n[tool.documents]\npath = \"x\"\n"), "diagd.toml:2: tool: unknown key");
}

TEST(Config, RejectsUnknownModelComponentListingTheKnownOnes) {
  std::string error = ErrorOf("[model.planner]\nname = \"x\"\n");
  EXPECT_THAT(error, HasSubstr("diagd.toml:1: model.planner: unknown key"));
  EXPECT_THAT(error, HasSubstr("router, system_chat"));
}

TEST(Config, RejectsUnknownModelKeyWithoutTheComponentList) {
  EXPECT_EQ(ErrorOf("[model]\ntemperature = 0.2\n"),
            "diagd.toml:2: model.temperature: unknown key");
}

TEST(Config, RejectsUnknownKeyInsideAComponent) {
  EXPECT_EQ(ErrorOf("[model.router]\ntemperature = 0\n"),
            "diagd.toml:2: model.router.temperature: unknown key");
}

TEST(Config, RejectsUnknownKeysUnderTools) {
  EXPECT_EQ(ErrorOf("[tools.mysql]\nhost = \"db\"\n"),
            "diagd.toml:2: tools.mysql.host: unknown key");
  EXPECT_EQ(ErrorOf("[tools.mysql.datasources.orders]\nurl = \"sqlite:o.db\"\nrows = 1\n"),
            "diagd.toml:3: tools.mysql.datasources.orders.rows: unknown key");
  EXPECT_EQ(ErrorOf("[tools.search]\n"), "diagd.toml:1: tools.search: unknown key");
}

TEST(Config, RejectsIntegerWhereStringExpected) {
  EXPECT_EQ(ErrorOf("language = 1\n"), "diagd.toml:1: language: expected a string, got an integer");
  EXPECT_EQ(ErrorOf("[model]\nname = 7\n"),
            "diagd.toml:2: model.name: expected a string, got an integer");
}

TEST(Config, RejectsFloatWhereIntegerExpected) {
  EXPECT_EQ(ErrorOf("[harness]\nmax_model_calls = 12.0\n"),
            "diagd.toml:2: harness.max_model_calls: expected an integer, got a floating-point "
            "number");
}

TEST(Config, RejectsStringWhereIntegerExpected) {
  EXPECT_EQ(ErrorOf("[server]\nmax_body_bytes = \"64k\"\n"),
            "diagd.toml:2: server.max_body_bytes: expected an integer, got a string");
}

TEST(Config, RejectsValueWhereTableExpected) {
  EXPECT_EQ(ErrorOf("server = 1\n"), "diagd.toml:1: server: expected a table, got an integer");
  EXPECT_EQ(ErrorOf("[model]\nrouter = \"small\"\n"),
            "diagd.toml:2: model.router: expected a table, got a string");
}

TEST(Config, RejectsAuthTokensThatAreNotStrings) {
  EXPECT_EQ(ErrorOf("[server]\nauth_tokens = \"abc\"\n"),
            "diagd.toml:2: server.auth_tokens: expected an array of strings, got a string");
  EXPECT_THAT(ErrorOf("[server]\nauth_tokens = [\"ok\",\n  2]\n"),
              HasSubstr("diagd.toml:3: server.auth_tokens[1]: expected a string, got an integer"));
}

TEST(Config, RejectsNegativeCountWithTheDocumentedMessage) {
  EXPECT_EQ(ErrorOf("[harness]\nmax_tool_calls = -1\n"),
            "diagd.toml:2: harness.max_tool_calls: expected a positive integer, got -1");
}

// Every count and limit must be at least 1.
class PositiveKey : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(PositiveKey, RejectsZeroNamingKeyAndLine) {
  auto [table, key] = GetParam();
  std::string text = std::string("[") + table + "]\n";
  if (std::string_view(table) == "tools.mysql.datasources.orders") text += "url = \"sqlite:o\"\n";
  text += std::string(key) + " = 0\n";
  int line = std::string_view(table) == "tools.mysql.datasources.orders" ? 3 : 2;
  EXPECT_THAT(ErrorOf(text), HasSubstr("diagd.toml:" + std::to_string(line) + ": " + table + "." +
                                       key + ": expected "));
}

INSTANTIATE_TEST_SUITE_P(
    Config, PositiveKey,
    ::testing::Values(
        std::tuple("server", "max_concurrent_runs"), std::tuple("server", "max_queued_runs"),
        std::tuple("server", "max_body_bytes"), std::tuple("server", "max_header_bytes"),
        std::tuple("server", "max_connections"), std::tuple("server", "shutdown_grace_seconds"),
        std::tuple("storage", "canonical_ttl_seconds"),
        std::tuple("storage", "observation_retention_days"),
        std::tuple("model", "timeout_seconds"),
        std::tuple("model.evidence_repair", "timeout_seconds"),
        std::tuple("harness", "no_gain_threshold"),
        std::tuple("harness", "protocol_violation_threshold"),
        std::tuple("harness", "max_model_calls"), std::tuple("harness", "max_tool_calls"),
        std::tuple("harness", "max_total_tokens"), std::tuple("harness", "max_tool_bytes"),
        std::tuple("harness", "max_run_seconds"), std::tuple("tools", "max_attempts"),
        std::tuple("tools.documents", "max_evidence"),
        std::tuple("tools.documents", "max_excerpt_chars"),
        std::tuple("tools.documents", "timeout_ms"),
        std::tuple("tools.logs", "default_lookback_minutes"),
        std::tuple("tools.logs", "max_lookback_minutes"), std::tuple("tools.logs", "max_events"),
        std::tuple("tools.logs", "max_message_chars"), std::tuple("tools.logs", "timeout_ms"),
        std::tuple("tools.mysql.datasources.orders", "max_rows"),
        std::tuple("tools.mysql.datasources.orders", "timeout_ms"),
        std::tuple("tools.mysql.datasources.orders", "max_cell_chars")));

TEST(Config, RejectsIntegerTooLargeForItsField) {
  EXPECT_EQ(ErrorOf("[harness]\nmax_model_calls = 3000000000\n"),
            "diagd.toml:2: harness.max_model_calls: expected an integer from 1 to 2147483647, got "
            "3000000000");
}

TEST(Config, RejectsMaxAttemptsOutsideOneToFive) {
  EXPECT_EQ(ErrorOf("[tools]\nmax_attempts = 6\n"),
            "diagd.toml:2: tools.max_attempts: expected an integer from 1 to 5, got 6");
  EXPECT_EQ(ErrorOf("[tools]\nmax_attempts = 0\n"),
            "diagd.toml:2: tools.max_attempts: expected an integer from 1 to 5, got 0");
}

TEST(Config, RejectsUnknownLanguage) {
  EXPECT_EQ(ErrorOf("language = \"fr\"\n"),
            "diagd.toml:1: language: expected \"zh\" or \"en\", got \"fr\"");
}

TEST(Config, RejectsUnknownProvider) {
  EXPECT_EQ(ErrorOf("[model]\nprovider = \"anthropic\"\n"),
            "diagd.toml:2: model.provider: expected \"openai\" or \"offline\", got \"anthropic\"");
  EXPECT_THAT(ErrorOf("[model.router]\nprovider = \"local\"\n"),
              HasSubstr("diagd.toml:2: model.router.provider: expected"));
}

TEST(Config, RejectsBaseUrlThatIsNotHttpWithAHost) {
  for (const char* url : {"ftp://llm/v1", "http://", "127.0.0.1:8000/v1", "http:///v1",
                          "https://host:0/v1", "http://ho st/v1"}) {
    EXPECT_THAT(ErrorOf(std::string("[model.system_chat]\nbase_url = \"") + url + "\"\n"),
                HasSubstr("diagd.toml:2: model.system_chat.base_url: expected an http:// or "
                          "https:// URL with a host"))
        << url;
  }
}

TEST(Config, RejectsEmptyModelName) {
  EXPECT_THAT(ErrorOf("[model]\nname = \"\"\n"),
              HasSubstr("diagd.toml:2: model.name: expected a non-empty string"));
}

TEST(Config, RejectsRunsStoreThatIsNotSqliteOrPostgres) {
  for (const char* url : {"mysql://u@h/db", "sqlite:", "data/diagd.db", "postgresql//h/db"}) {
    EXPECT_THAT(ErrorOf(std::string("[storage]\nruns = \"") + url + "\"\n"),
                HasSubstr("diagd.toml:2: storage.runs: expected sqlite:PATH, postgresql://"))
        << url;
  }
}

TEST(Config, RejectsCanonicalStoreThatIsNotMemoryOrRedis) {
  for (const char* url : {"memory", "redis://", "redis://host:0", "redis://host:6379/x",
                          "redis://host/", "redis://user@host", "memcached://host"}) {
    EXPECT_THAT(ErrorOf(std::string("[storage]\ncanonical = \"") + url + "\"\n"),
                HasSubstr("diagd.toml:2: storage.canonical: expected memory: or "
                          "redis://[[user]:password@]host[:port][/db]"))
        << url;
  }
}

TEST(Config, RejectsDatasourceUrlThatIsNotSqliteOrMysql) {
  for (const char* url : {"mysql://host/db", "mysql://u@host", "mysql://u@host/", "mysql://u@/db",
                          "sqlite:", "postgresql://u@h/db"}) {
    EXPECT_THAT(ErrorOf(std::string("[tools.mysql.datasources.orders]\nurl = \"") + url + "\"\n"),
                HasSubstr("diagd.toml:2: tools.mysql.datasources.orders.url: expected "
                          "sqlite:PATH or mysql://user[:pass]@host[:port]/db"))
        << url;
  }
}

TEST(Config, RejectsDatasourceWithoutUrl) {
  EXPECT_EQ(ErrorOf("[tools.mysql.datasources.orders]\nmax_rows = 3\n"),
            "diagd.toml:1: tools.mysql.datasources.orders: missing the required key \"url\"");
}

TEST(Config, RejectsDatasourceNameOutsideTheAllowedCharacters) {
  EXPECT_THAT(ErrorOf("[tools.mysql.datasources.\"order book\"]\nurl = \"sqlite:o.db\"\n"),
              HasSubstr("diagd.toml:1: tools.mysql.datasources.order book: expected a name of "
                        "ASCII letters, digits, '_' and '-', got \"order book\""));
}

TEST(Config, RejectsDatasourceThatIsNotATable) {
  EXPECT_EQ(ErrorOf("[tools.mysql.datasources]\norders = \"sqlite:o.db\"\n"),
            "diagd.toml:2: tools.mysql.datasources.orders: expected a table, got a string");
}

TEST(Config, RejectsListenWithoutAValidPort) {
  for (const char* listen : {"localhost", "127.0.0.1:0", "127.0.0.1:65536", "::1:8080", "[::1]",
                             ":8080", "[::1]:", "host:80x"}) {
    EXPECT_THAT(ErrorOf(std::string("[server]\nlisten = \"") + listen + "\"\n"),
                HasSubstr("diagd.toml:2: server.listen: expected host:port"))
        << listen;
  }
}

TEST(Config, RejectsDefaultLookbackAboveTheMaximum) {
  EXPECT_EQ(ErrorOf("[tools.logs]\nmax_lookback_minutes = 30\ndefault_lookback_minutes = 45\n"),
            "diagd.toml:3: tools.logs.default_lookback_minutes: must not exceed "
            "tools.logs.max_lookback_minutes (30), got 45");
}

TEST(Config, MetricsNeedAUrlAndTheirOwnLookbackWithinTheirMaximum) {
  EXPECT_THAT(ErrorOf("[tools.metrics]\nbackend = \"prometheus\"\n"),
              HasSubstr("tools.metrics: requires url"));
  EXPECT_THAT(ErrorOf("[tools.metrics]\nurl = \"ftp://x\"\n"), HasSubstr("tools.metrics.url"));
  EXPECT_THAT(ErrorOf("[tools.metrics]\nurl = \"http://p:9090\"\nbackend = \"graphite\"\n"),
              HasSubstr("tools.metrics.backend"));
  EXPECT_THAT(ErrorOf("[tools.metrics]\nurl = \"http://p:9090\"\nmax_series = 0\n"),
              HasSubstr("tools.metrics.max_series"));
  EXPECT_THAT(ErrorOf("[tools.metrics]\nurl = \"http://p:9090\"\nmax_lookback_minutes = 30\n"),
              HasSubstr("tools.metrics.max_lookback_minutes: must be at least "
                        "tools.metrics.default_lookback_minutes (60), got 30"));
  EXPECT_THAT(ErrorOf("[tools.metrics]\nurl = \"http://p:9090\"\nquery_path = \"/x\"\n"),
              HasSubstr("tools.metrics.query_path"));
}

TEST(Config, RejectsMaximumLookbackBelowTheDefaultOne) {
  EXPECT_EQ(ErrorOf("[tools.logs]\nmax_lookback_minutes = 30\n"),
            "diagd.toml:2: tools.logs.max_lookback_minutes: must be at least "
            "tools.logs.default_lookback_minutes (60), got 30");
}

TEST(Config, RejectsRunTimeNotBelowTheCanonicalTtlNamingBothKeys) {
  EXPECT_EQ(ErrorOf("[harness]\nmax_run_seconds = 3600\n"),
            "diagd.toml:2: harness.max_run_seconds: must be less than "
            "storage.canonical_ttl_seconds (3600), got 3600");
  EXPECT_EQ(ErrorOf("[storage]\ncanonical_ttl_seconds = 100\n"),
            "diagd.toml:2: storage.canonical_ttl_seconds: must exceed harness.max_run_seconds "
            "(180), got 100");
}

TEST(Config, RejectsHttpDocumentsBackendWithoutUrl) {
  EXPECT_EQ(ErrorOf("[tools.documents]\nbackend = \"http\"\n"),
            "diagd.toml:2: tools.documents.backend: \"http\" requires tools.documents.url (an "
            "http:// or https:// URL)");
}

TEST(Config, RejectsDocumentsUrlThatIsNotHttp) {
  EXPECT_THAT(ErrorOf("[tools.documents]\nbackend = \"http\"\nurl = \"kb.internal\"\n"),
              HasSubstr("diagd.toml:3: tools.documents.url: expected an http:// or https://"));
}

TEST(Config, RejectsUnknownDocumentsBackend) {
  EXPECT_EQ(
      ErrorOf("[tools.documents]\nbackend = \"xapian\"\n"),
      "diagd.toml:2: tools.documents.backend: expected \"local\" or \"http\", got \"xapian\"");
}

TEST(Config, RejectsLogsBackendOtherThanLocal) {
  EXPECT_EQ(ErrorOf("[tools.logs]\nbackend = \"loki\"\n"),
            "diagd.toml:2: tools.logs.backend: expected \"local\", got \"loki\"");
}

TEST(Config, RejectsEmptyPath) {
  EXPECT_THAT(ErrorOf("[tools.logs]\npath = \"\"\n"),
              HasSubstr("diagd.toml:2: tools.logs.path: expected a non-empty string"));
}

TEST(Config, RejectsNowThatIsNotRfc3339) {
  EXPECT_THAT(ErrorOf("now = \"yesterday\"\n"),
              HasSubstr("diagd.toml:1: now: expected an RFC 3339 timestamp"));
  EXPECT_THAT(ErrorOf("now = \"2026-11-29T10:30:00\"\n"),
              HasSubstr("diagd.toml:1: now: expected an RFC 3339 timestamp"));
  EXPECT_THAT(ErrorOf("now = 2026-11-29T10:30:00\n"),
              HasSubstr("diagd.toml:1: now: expected an RFC 3339 timestamp with a zone"));
  EXPECT_EQ(ErrorOf("now = 1\n"),
            "diagd.toml:1: now: expected an RFC 3339 timestamp, got an "
            "integer");
}

TEST(Config, ReportsSyntaxErrorWithItsLine) {
  EXPECT_THAT(ErrorOf("language = \"zh\"\n\n[server\nlisten = \"x\"\n"),
              HasSubstr("diagd.toml:3: syntax error: "));
  EXPECT_THAT(ErrorOf("a = 1\na = 2\n"), HasSubstr("diagd.toml:2: syntax error: "));
}

TEST(Config, ReportsEveryProblemOnePerLine) {
  EXPECT_EQ(ErrorOf("language = \"fr\"\n[harness]\nmax_tool_calls = 0\nextra = 1\n"),
            "diagd.toml:1: language: expected \"zh\" or \"en\", got \"fr\"\n"
            "diagd.toml:3: harness.max_tool_calls: expected a positive integer, got 0\n"
            "diagd.toml:4: harness.extra: unknown key");
}

TEST(Config, StartsErrorsWithTheSourceName) {
  Result<Config> config = ParseConfig("language = 1\n", "/etc/diagd", {}, "site.toml");
  ASSERT_FALSE(config.has_value());
  EXPECT_THAT(config.error().message, ::testing::StartsWith("site.toml:1: language:"));
}

TEST(Config, NeverEchoesAnApiKey) {
  std::string error = ErrorOf("[model]\napi_key = \"sk-hunter2\\n\"\n");
  EXPECT_THAT(error, HasSubstr("diagd.toml:2: model.api_key: must not contain control characters"));
  EXPECT_THAT(error, Not(HasSubstr("hunter2")));
  std::string env_error = ErrorOf("", {{"DIAGD_MODEL_API_KEY", "sk-hunter2\r\n"}});
  EXPECT_THAT(env_error, HasSubstr("DIAGD_MODEL_API_KEY: must not contain control characters"));
  EXPECT_THAT(env_error, Not(HasSubstr("hunter2")));
}

TEST(Config, NeverEchoesABearerToken) {
  std::string error = ErrorOf("[server]\nauth_tokens = [\"good\", \"hunter2 with space\"]\n");
  EXPECT_THAT(error, HasSubstr("diagd.toml:2: server.auth_tokens[1]: expected a non-empty token"));
  EXPECT_THAT(error, Not(HasSubstr("hunter2")));
}

TEST(Config, NeverEchoesAUrlPassword) {
  for (const char* text : {
           "[model]\nbase_url = \"ftp://user:hunter2@llm/v1\"\n",
           "[storage]\nruns = \"mysql://user:hunter2@db/runs\"\n",
           "[storage]\ncanonical = \"redis://user:hunter2@cache:0/0\"\n",
           "[tools.mysql.datasources.orders]\nurl = \"mysql://user:hunter2@db:3306\"\n",
           "[tools.mysql.datasources.orders]\nurl = \"mysql://user:hun@ter2@db\"\n",
       }) {
    std::string error = ErrorOf(text);
    EXPECT_THAT(error, AllOf(HasSubstr("***"), Not(HasSubstr("hunter2")), Not(HasSubstr("ter2"))))
        << text;
  }
  std::string env_error = ErrorOf("", {{"DIAGD_MODEL_BASE_URL", "ftp://user:hunter2@llm/v1"}});
  EXPECT_THAT(env_error, AllOf(HasSubstr("DIAGD_MODEL_BASE_URL: expected an http:// or https://"),
                               Not(HasSubstr("hunter2"))));
}

TEST(Config, EnvironmentProblemsNameTheVariable) {
  EXPECT_EQ(ErrorOf("", {{"DIAGD_MODEL_PROVIDER", "cloud"}}),
            "DIAGD_MODEL_PROVIDER: expected \"openai\" or \"offline\", got \"cloud\"");
  EXPECT_THAT(ErrorOf("", {{"DIAGD_MODEL_BASE_URL", "llm.internal"}}),
              HasSubstr("DIAGD_MODEL_BASE_URL: expected an http:// or https:// URL with a host, "
                        "got \"llm.internal\""));
  EXPECT_THAT(ErrorOf("", {{"DIAGD_MODEL_NAME", ""}}),
              HasSubstr("DIAGD_MODEL_NAME: expected a non-empty string"));
}

TEST(Config, DefaultConfigReportsABadEnvironment) {
  Result<Config> config = DefaultConfig("/etc/diagd", {{"DIAGD_MODEL_PROVIDER", "cloud"}});
  ASSERT_FALSE(config.has_value());
  EXPECT_THAT(config.error().message, HasSubstr("DIAGD_MODEL_PROVIDER"));
}

}  // namespace
}  // namespace diagd::config
