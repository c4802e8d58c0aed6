#include "tools/logs/logs_section.h"

#include <algorithm>
#include <map>
#include <utility>

#include "config/toml_reader.h"

namespace diagd::tools::logs {

using namespace config::internal;

namespace {

// [tools.logs.topics.NAME]: per-topic settings; so far only the aliases a
// question may name the topic by. An alias shared by two topics would make
// a question's subject ambiguous, so it is an error on the second.
void ReadTopics(TableReader topics, std::vector<LogTopicConfig>& out) {
  std::map<std::string, std::string> owner_of_alias;
  for (const std::string& name : topics.Keys()) {
    auto table = topics.Table(name);
    if (!table) continue;
    if (Problem problem = CheckTopicName(name)) topics.AddProblem(name, *problem);
    LogTopicConfig topic;
    topic.name = name;
    table->Read("aliases", topic.aliases, CheckNotBlank);
    table->RejectUnknownKeys();
    for (const std::string& alias : topic.aliases) {
      auto [at, added] = owner_of_alias.emplace(alias, name);
      if (!added && at->second != name) {
        table->AddProblem("aliases",
                          "\"" + alias + "\" is already an alias of topic \"" + at->second + "\"");
      }
    }
    out.push_back(std::move(topic));
  }
  std::sort(out.begin(), out.end(),
            [](const LogTopicConfig& a, const LogTopicConfig& b) { return a.name < b.name; });
}

}  // namespace

void LogsSection::Read(TableReader& table, LogsSection& out) {
  LogsToolConfig& logs = out.logs;
  // "local" is the only backend so far; the key exists so that files written
  // for later backends fail clearly instead of silently reading local files.
  table.ReadChoice("backend", {"local"});
  table.Read("path", logs.path);
  table.Read("default_lookback_minutes", logs.default_lookback_minutes);
  table.Read("max_lookback_minutes", logs.max_lookback_minutes);
  table.Read("max_events", logs.max_events);
  table.Read("max_message_chars", logs.max_message_chars);
  table.Read("timeout_ms", logs.timeout_ms);
  if (auto topics = table.Table("topics")) ReadTopics(*topics, logs.topics);
  table.RejectUnknownKeys();
}

void LogsSection::ResolvePaths(const std::filesystem::path& base, LogsSection& out) {
  out.logs.path = ResolvePath(base, out.logs.path);
}

std::vector<LocalPath> LogsSection::LocalPaths(const LogsSection& section) {
  return {{"[tools.logs] path", section.logs.path, true}};
}

void LogsSection::CheckRules(const LogsSection& section, const KeyLocations& at,
                             Problems& problems) {
  CheckLookback("tools.logs", section.logs.default_lookback_minutes,
                section.logs.max_lookback_minutes, at, problems);
}

}  // namespace diagd::tools::logs
