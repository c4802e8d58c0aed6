// A throw-away workspace for `diagd check` tests: a Markdown runbook, a
// `.jsonl` log topic, a SQLite datasource and a diagd.toml over them, in a
// fresh folder under /tmp that is deleted with everything in it.
#pragma once

#include <filesystem>
#include <string>

#include "config/config.h"
#include "core/result.h"
#include "tools/mysql/test_databases.h"

namespace diagd::check::testing {

// The workspace's fixed `now`; its log events lie 30, 20 and 10 minutes
// before it.
inline constexpr const char* kNow = "2026-11-29T10:30:00Z";

// A [model] table for an OpenAI-compatible endpoint (timeout 5 s).
std::string OpenAiModelToml(const std::string& base_url, const std::string& name = "qwen2.5-7b",
                            const std::string& api_key = "");

class CheckWorkspace {
 public:
  // docs/runbook.md (a title and two sections), logs/app.jsonl (3 events),
  // data/orders.db (the tables orders and audit and the view paid).
  CheckWorkspace();

  const std::filesystem::path& dir() const { return temp_.path(); }
  std::filesystem::path config_file() const { return dir() / "diagd.toml"; }

  // The sections of diagd.toml, each TOML text; the defaults are this
  // workspace's tools. `tables` follow them (a [model] table, datasources).
  struct Toml {
    std::string now = kNow;
    std::string documents = "[tools.documents]\npath = \"docs\"\ncache_path = \"cache\"\n";
    std::string logs = "[tools.logs]\npath = \"logs\"\n";
    std::string datasources = "[tools.mysql.datasources.orders]\nurl = \"sqlite:data/orders.db\"\n";
    std::string tables;
  };

  // Writes diagd.toml: `now`, the run store (data/runs.db), then `toml`'s
  // sections.
  void WriteConfig(const Toml& toml) const;
  // WriteConfig, then loads it as `diagd check` would.
  Result<config::Config> Load(const Toml& toml, const config::Environment& env = {}) const;
  // The default sections with these `tables`.
  Result<config::Config> Load(const std::string& tables, const config::Environment& env = {}) const;

 private:
  diagd::testing::TempDir temp_;
};

}  // namespace diagd::check::testing
