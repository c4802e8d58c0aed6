#include "check/check_workspace.h"

#include <gtest/gtest.h>

#include <fstream>

namespace diagd::check::testing {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

}  // namespace

std::string OpenAiModelToml(const std::string& base_url, const std::string& name,
                            const std::string& api_key) {
  return "[model]\nprovider = \"openai\"\nbase_url = \"" + base_url + "\"\nname = \"" + name +
         "\"\napi_key = \"" + api_key + "\"\ntimeout_seconds = 5\n";
}

CheckWorkspace::CheckWorkspace() {
  Write(dir() / "docs/runbook.md",
        "# Payment runbook\n\n## Connection pool exhausted\n\nRaise the pool size after checking "
        "slow queries.\n\n## Gateway 504\n\nCheck the upstream timeout.\n");
  Write(dir() / "logs/app.jsonl",
        R"({"timestamp":"2026-11-29T10:00:00Z","level":"INFO","message":"started"})"
        "\n"
        R"({"timestamp":"2026-11-29T10:10:00Z","level":"WARN","message":"slow query"})"
        "\n"
        R"({"timestamp":"2026-11-29T10:20:00Z","level":"ERROR","message":"pool exhausted"})"
        "\n");
  fs::create_directories(dir() / "data");
  auto db = diagd::testing::CreateSqliteFixture(dir() / "data");
  if (!db) ADD_FAILURE() << "the SQLite fixture: " << db.error().message;
}

void CheckWorkspace::WriteConfig(const Toml& toml) const {
  Write(config_file(), "now = \"" + toml.now + "\"\n[storage]\nruns = \"sqlite:data/runs.db\"\n" +
                           toml.documents + toml.logs + toml.datasources + toml.tables);
}

Result<config::Config> CheckWorkspace::Load(const Toml& toml,
                                            const config::Environment& env) const {
  WriteConfig(toml);
  return config::LoadConfigFile(config_file(), env);
}

Result<config::Config> CheckWorkspace::Load(const std::string& tables,
                                            const config::Environment& env) const {
  Toml toml;
  toml.tables = tables;
  return Load(toml, env);
}

}  // namespace diagd::check::testing
