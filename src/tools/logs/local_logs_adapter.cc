#include "tools/logs/local_logs_adapter.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <system_error>

#include "core/json_writer.h"
#include "tools/logs/log_query.h"
#include "tools/logs/logs_tool.h"
#include "tools/logs/topic_index.h"

namespace diagd::tools::logs {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kMillisPerMinute = 60'000;
constexpr std::string_view kJsonLinesSuffix = ".jsonl";
constexpr std::string_view kPlainTextSuffix = ".log";

bool IsRegularFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);  // follows symlinks
}

UnixMillis ToUnixMillis(WallTime time) {
  return std::chrono::floor<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

AdapterFailure QueryFailed(std::string reason) {
  return {ToolErrorCode::kQueryFailed, std::move(reason)};
}

AdapterFailure FailureOf(const Error& error) {
  switch (error.code) {
    case ErrorCode::kDeadlineExceeded:
      return {ToolErrorCode::kToolTimeout, {}};
    case ErrorCode::kNotFound:  // the file went away after it was found
      return QueryFailed("unknown topic");
    default:
      return {ToolErrorCode::kToolUnavailable, {}};
  }
}

// Counts only: the canonical record keeps it, and event bodies are already
// in the result.
std::string RawResponse(const std::string& topic, TopicFormat format,
                        const SearchOutcome& outcome) {
  json::JsonWriter out(256);
  auto count = [&out](std::string_view key, std::size_t n) {
    out.Key(key).Int(static_cast<std::int64_t>(n));
  };
  out.BeginObject();
  out.Key("topic").String(topic);
  out.Key("format").String(format == TopicFormat::kJsonLines ? "jsonl" : "log");
  count("indexed_events", outcome.indexed_events);
  count("skipped_lines", outcome.skipped_lines);
  count("window_events", outcome.window_events);
  count("examined", outcome.examined);
  count("returned", outcome.events.size());
  out.Key("more_matched").Bool(outcome.more_matched);
  out.Key("messages_cut").Bool(outcome.message_cut);
  out.EndObject();
  return out.Take();
}

// A bounded query whose bounds leave nothing of the lookback window: told
// to the model with the window, rather than an empty answer it could read
// as "nothing happened then".
std::string OutsideWindow(UnixMillis now_ms, const LogsRequest& request) {
  auto rfc3339 = [](UnixMillis ms) {
    return FormatRfc3339Millis(WallTime(std::chrono::milliseconds(ms)));
  };
  UnixMillis from_ms = now_ms - static_cast<std::int64_t>(request.lookback_minutes) * kMillisPerMinute;
  return "after:/before: leave nothing of the lookback window " + rfc3339(from_ms) + " to " +
         rfc3339(now_ms) + "; raise lookback_minutes or move the bounds";
}

}  // namespace

LocalLogsAdapter::LocalLogsAdapter(LocalLogsOptions options, const Clock& clock)
    : options_(std::move(options)), clock_(clock) {}

LocalLogsAdapter::~LocalLogsAdapter() = default;

Result<std::unique_ptr<LocalLogsAdapter>> LocalLogsAdapter::Open(LocalLogsOptions options,
                                                                 const Clock& clock) {
  std::error_code ec;
  auto status = fs::status(options.root, ec);
  if (!fs::exists(status)) {
    return Error::NotFound("logs folder does not exist: " + options.root.string());
  }
  if (!fs::is_directory(status)) {
    return Error::InvalidArgument("logs path is not a folder: " + options.root.string());
  }
  return std::unique_ptr<LocalLogsAdapter>(new LocalLogsAdapter(std::move(options), clock));
}

std::vector<std::string> LocalLogsAdapter::ListTopics() const {
  std::set<std::string> topics;
  std::error_code ec;
  for (fs::directory_iterator it(options_.root, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    for (std::string_view suffix : {kJsonLinesSuffix, kPlainTextSuffix}) {
      if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
      std::string topic = name.substr(0, name.size() - suffix.size());
      if (IsPlainName(topic) && IsRegularFile(it->path())) topics.insert(std::move(topic));
    }
  }
  return {topics.begin(), topics.end()};
}

std::optional<std::pair<fs::path, TopicFormat>> LocalLogsAdapter::Locate(
    const std::string& topic) const {
  if (!IsPlainName(topic)) return std::nullopt;
  fs::path jsonl = options_.root / (topic + std::string(kJsonLinesSuffix));
  if (IsRegularFile(jsonl)) return std::pair{jsonl, TopicFormat::kJsonLines};
  fs::path log = options_.root / (topic + std::string(kPlainTextSuffix));
  if (IsRegularFile(log)) return std::pair{log, TopicFormat::kPlainText};
  return std::nullopt;
}

std::shared_ptr<TopicIndex> LocalLogsAdapter::IndexFor(const fs::path& file, TopicFormat format) {
  MutexLock lock(mu_);
  auto& index = indexes_[file];
  if (!index) index = std::make_shared<TopicIndex>(file, format);
  return index;
}

Result<AdapterOutput, AdapterFailure> LocalLogsAdapter::DoExecute(const ToolRequest& request,
                                                                  MonoTime deadline,
                                                                  const std::stop_token& cancel) {
  const auto* logs = std::get_if<LogsRequest>(&request);
  if (logs == nullptr) return Unexpected(QueryFailed("not a query_logs request"));
  if (cancel.stop_requested()) return Unexpected(AdapterFailure{ToolErrorCode::kToolUnavailable, {}});
  if (clock_.Monotonic() > deadline)
    return Unexpected(AdapterFailure{ToolErrorCode::kToolTimeout, {}});
  auto located = Locate(logs->topic);
  if (!located) return Unexpected(QueryFailed("unknown topic"));
  auto query = ParseLogQuery(logs->query);
  if (!query) return Unexpected(QueryFailed(query.error().message));
  if (logs->lookback_minutes < 1)
    return Unexpected(QueryFailed("lookback_minutes must be at least 1"));

  UnixMillis now_ms = ToUnixMillis(options_.now.value_or(clock_.Now()));
  SearchRequest search;
  search.query = &*query;
  search.from_ms = now_ms - static_cast<std::int64_t>(logs->lookback_minutes) * kMillisPerMinute;
  search.to_ms = now_ms;
  // The bounds narrow the lookback window, never widen it.
  const TimeBounds& bounds = query->bounds;
  if (bounds.after_ms) search.from_ms = std::max(search.from_ms, *bounds.after_ms);
  if (bounds.before_ms) search.to_ms = std::min(search.to_ms, *bounds.before_ms - 1);
  if (search.from_ms > search.to_ms) return Unexpected(QueryFailed(OutsideWindow(now_ms, *logs)));
  auto [file, format] = *located;
  auto index = IndexFor(file, format);
  auto refreshed = index->Refresh(clock_, deadline, now_ms, cancel);
  if (!refreshed) {
    if (refreshed.error().code == ErrorCode::kNotFound) {
      MutexLock lock(mu_);
      indexes_.erase(file);  // a deleted topic gives its memory back
    }
    return Unexpected(FailureOf(refreshed.error()));
  }
  search.max_events = options_.max_events;
  search.max_message_chars = options_.max_message_chars;
  search.reference_ms = now_ms;
  auto found = index->Search(search, *refreshed, clock_, deadline, cancel);
  if (!found) return Unexpected(FailureOf(found.error()));

  LogsResult result;
  result.topic = logs->topic;
  result.query = logs->query;
  result.lookback_minutes = logs->lookback_minutes;
  result.returned_count = found->events.size();
  result.truncated = found->more_matched || found->message_cut;
  result.evidence_status =
      found->events.empty() ? EvidenceStatus::kNoEvidence : EvidenceStatus::kEvidenceFound;
  std::string raw = RawResponse(logs->topic, format, *found);
  result.events = std::move(found->events);
  return AdapterOutput{std::move(result), std::move(raw)};
}

}  // namespace diagd::tools::logs
