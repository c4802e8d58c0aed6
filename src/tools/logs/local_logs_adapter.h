// The local backend of `query_logs`: topics are files under one folder,
// `<topic>.jsonl` or `<topic>.log` (docs/log-query.md). A query reads the
// topic's in-memory index (TopicIndex), built on first use and refreshed
// when the file changes, and reads back only the events of its time window.
//
// Thread safety: one adapter serves every run at once. The topic table is
// guarded by `mu_` (held only to find or add a topic); each topic's index
// has its own locks (topic_index.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/mutex.h"
#include "core/result.h"
#include "tools/logs/log_record.h"
#include "tools/tool_adapter.h"

namespace diagd::tools::logs {

class TopicIndex;

struct LocalLogsOptions {
  std::filesystem::path root;  // the folder of topic files
  // The end of every lookback window; the clock's wall time when unset (a
  // fixed `now` serves recorded data).
  std::optional<WallTime> now;
  std::size_t max_events = 30;
  std::size_t max_message_chars = 2000;
};

class LocalLogsAdapter final : public ToolAdapter {
 public:
  // NOT_FOUND when `options.root` does not exist, INVALID_ARGUMENT when it is
  // not a folder. `clock` must outlive the adapter.
  static Result<std::unique_ptr<LocalLogsAdapter>> Open(LocalLogsOptions options,
                                                        const Clock& clock);
  ~LocalLogsAdapter() override;

  // The topics under the root, sorted: every `<name>.jsonl` and `<name>.log`
  // whose name is a plain file name ([A-Za-z0-9._-], not starting with a
  // dot), once each; where both files exist the `.jsonl` one is the topic.
  std::vector<std::string> ListTopics() const;

 private:
  // ToolAdapter. Events with now - lookback <= time <= now, within the
  // query's after: and before: bounds, that match the query, oldest first,
  // at most max_events: when more matched, the earliest and the newest, with
  // `truncated` (TopicIndex::Search). Messages cut to max_message_chars.
  // QUERY_FAILED for an unknown topic, a malformed query or bounds that
  // leave nothing of the window (with a short reason), TOOL_TIMEOUT past
  // `deadline`, TOOL_UNAVAILABLE when the file cannot be read. A cancel
  // stops the file scan (TOOL_UNAVAILABLE); what the index read by then is
  // kept.
  Result<AdapterOutput, AdapterFailure> DoExecute(const ToolRequest& request, MonoTime deadline,
                                                  const std::stop_token& cancel) override;

  LocalLogsAdapter(LocalLogsOptions options, const Clock& clock);

  // The file behind `topic` and its format; nothing for an unknown topic.
  std::optional<std::pair<std::filesystem::path, TopicFormat>> Locate(
      const std::string& topic) const;
  std::shared_ptr<TopicIndex> IndexFor(const std::filesystem::path& file, TopicFormat format)
      EXCLUDES(mu_);

  const LocalLogsOptions options_;
  const Clock& clock_;
  Mutex mu_;
  // Keyed by file, so a topic whose `.jsonl` appears later gets its own.
  std::map<std::filesystem::path, std::shared_ptr<TopicIndex>> indexes_ GUARDED_BY(mu_);
};

}  // namespace diagd::tools::logs
