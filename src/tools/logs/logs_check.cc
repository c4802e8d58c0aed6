// query_logs' part of `diagd check`: a row for tools.logs.path (the topics
// found), then one per topic: its event count and time range, and whether a
// query can reach them from now (the configured `now`, else the clock's);
// then one per aliased topic that has no file.
#include <algorithm>

#include "config/config.h"
#include "tools/logs/logs_backend.h"
#include "tools/logs/logs_tool.h"
#include "tools/logs/topic_census.h"

namespace diagd::tools::logs {
namespace {

using Millis = std::chrono::milliseconds;

// The advice table, in docs/check.md's order; the enum indexes it.
enum Misconfiguration {
  kFolderUnusable,
  kNoTopics,
  kTopicUnreadable,
  kTopicNoEvents,
  kTopicOutOfWindow,
  kAliasedTopicMissing,
};
constexpr AdviceEntry kAdvice[] = {
    {"LOGS_FOLDER_UNUSABLE", "logs", "tools.logs.path is missing or not a folder",
     "set tools.logs.path to the folder of your <topic>.jsonl or <topic>.log files"},
    {"LOGS_NO_TOPICS", "logs", "no <topic>.jsonl or <topic>.log under tools.logs.path",
     "put <topic>.jsonl or <topic>.log files in {path}, or point tools.logs.path at the folder "
     "that holds them"},
    {"LOGS_TOPIC_UNREADABLE", "logs", "a topic file cannot be read",
     "make {file} readable by the user diagd runs as"},
    {"LOGS_TOPIC_NO_EVENTS", "logs", "a topic file holds no line diagd reads as an event",
     "start each event of {file} with a timestamp diagd reads (ISO 8601 for .jsonl; "
     "docs/log-query.md lists the .log formats)"},
    {"LOGS_TOPIC_OUT_OF_WINDOW", "logs",
     "every event lies outside what a query can reach from now (older than the longest "
     "lookback, or after now)",
     "for recorded data set `now` to a time just after its events; else raise "
     "tools.logs.max_lookback_minutes or check that {file} is still written"},
    {"LOGS_ALIASED_TOPIC_MISSING", "logs",
     "a topic given aliases under [tools.logs.topics] has no file under tools.logs.path",
     "fix the topic name of [tools.logs.topics.{name}] (a file name without .jsonl or .log), "
     "or add its file to {path}"},
};

std::string Rfc3339(UnixMillis ms) {
  return FormatRfc3339Millis(WallTime(std::chrono::milliseconds(ms)));
}

// The aliases [tools.logs.topics.TOPIC] gives the topic; nothing when none.
const std::vector<std::string>* AliasesOf(const LogsToolConfig& logs, const std::string& topic) {
  for (const auto& configured : logs.topics) {
    if (configured.name == topic && !configured.aliases.empty()) return &configured.aliases;
  }
  return nullptr;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

CheckRow CheckTopic(const LogsToolConfig& logs, const std::string& topic, UnixMillis now_ms,
                    const Clock& clock, Millis max_time) {
  CheckRow row{"logs", topic, true, "", ""};
  auto census = CountTopicEvents(logs.path, topic, now_ms, clock, clock.Monotonic() + max_time);
  AdviceValues values{{"file", (logs.path / topic).string() + ".*"}, {"path", logs.path.string()}};
  if (!census) {
    if (census.error().code == ErrorCode::kDeadlineExceeded) {
      row.detail = "too large to count within " + std::to_string(max_time.count() / 1000) + " s";
      return row;
    }
    return Problem(row, census.error().message, kAdvice[kTopicUnreadable], values);
  }
  values["file"] = census->file.string();
  const char* format = census->format == TopicFormat::kJsonLines ? "jsonl" : "log";
  if (census->bytes == 0) {
    row.detail = std::string("empty ") + format + " file, no events yet";
    return row;
  }
  std::string skipped =
      census->skipped_lines == 0
          ? ""
          : "; " + Plural(census->skipped_lines, "line", "lines") + " skipped (no event)";
  if (census->events == 0) {
    return Problem(row, std::string("no events in its ") + format + " file" + skipped,
                   kAdvice[kTopicNoEvents], values);
  }
  row.detail = Plural(census->events, "event", "events") + ", " + Rfc3339(*census->oldest_ms) +
               " to " + Rfc3339(*census->newest_ms) + " (" + format + ")" + skipped;
  const UnixMillis reach_ms = now_ms - static_cast<UnixMillis>(logs.max_lookback_minutes) * 60'000;
  if (*census->newest_ms < reach_ms || *census->oldest_ms > now_ms) {
    return Problem(row,
                   row.detail + "; now is " + Rfc3339(now_ms) + ", a query reaches back " +
                       std::to_string(logs.max_lookback_minutes) + " min at most",
                   kAdvice[kTopicOutOfWindow], values);
  }
  return row;
}

}  // namespace

std::vector<CheckRow> QueryLogs::Check(const CheckContext& context) {
  const config::Config& config = context.config;
  const LogsToolConfig& logs = config.tools.logs;
  context.Announce("logs", logs.path.string());
  CheckRow folder{"logs", logs.path.string(), true, "", ""};
  AdviceValues values{{"path", logs.path.string()}};
  auto adapter = OpenLocalAdapter(logs, config.now, context.clock);
  if (!adapter) {
    return {Problem(folder, adapter.error().message, kAdvice[kFolderUnusable], values)};
  }
  std::vector<std::string> topics = (*adapter)->ListTopics();
  if (topics.empty()) return {Problem(folder, "no topic files", kAdvice[kNoTopics], values)};
  folder.detail = Plural(topics.size(), "topic", "topics");
  std::vector<CheckRow> rows{folder};
  const auto now_ms =
      std::chrono::floor<Millis>(config.now.value_or(context.clock.Now()).time_since_epoch())
          .count();
  for (const std::string& topic : topics) {
    context.Announce("logs", topic);
    rows.push_back(CheckTopic(logs, topic, now_ms, context.clock, context.max_time));
    if (const auto* aliased = AliasesOf(logs, topic)) {
      rows.back().detail += "; aliases: " + JoinNames(*aliased);
    }
  }
  // Aliases of a topic that is not there make no question's subject findable.
  for (const auto& configured : logs.topics) {
    if (std::find(topics.begin(), topics.end(), configured.name) != topics.end()) continue;
    CheckRow row{"logs", configured.name, true, "", ""};
    rows.push_back(Problem(
        row,
        "configured under [tools.logs.topics] (aliases: " + JoinNames(configured.aliases) +
            ") but no topic file",
        kAdvice[kAliasedTopicMissing], {{"name", configured.name}, {"path", logs.path.string()}}));
  }
  return rows;
}

std::span<const AdviceEntry> QueryLogs::Advice() { return kAdvice; }

}  // namespace diagd::tools::logs
