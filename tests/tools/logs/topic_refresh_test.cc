// The topic index follows its file: appends, half-written lines, late
// continuation lines, truncation, rotation, rewrites, and a deadline or a
// run's cancel that stops indexing half way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <stop_token>

#include "logs_test_support.h"
#include "testing/cancelling_clock.h"
#include "tools/logs/topic_index.h"

namespace diagd::tools::logs {
namespace {

using ::testing::ElementsAre;
using testing::JsonLine;
using testing::MinutesAgo;
using testing::SteppingClock;
using testing::TestNow;
using testing::TopicFolder;

constexpr UnixMillis kReference = 1'795'953'600'000;

class TopicRefreshTest : public ::testing::Test {
 protected:
  Result<LogFile> Refresh(TopicIndex& index) {
    return index.Refresh(clock_, clock_.Monotonic() + std::chrono::seconds(10), kReference);
  }
  // The topic's file opened afresh, for a search with no refresh before it.
  LogFile Opened(const std::string& name) { return *LogFile::Open(folder_.Path(name)); }
  SearchOutcome All(TopicIndex& index, const std::string& query = "") {
    auto file = Refresh(index);
    EXPECT_TRUE(file) << file.error().ToString();
    if (!file) return {};
    parsed_ = *ParseLogQuery(query);
    SearchRequest request;
    request.query = &parsed_;
    request.from_ms = std::numeric_limits<UnixMillis>::min() / 2;
    request.to_ms = std::numeric_limits<UnixMillis>::max() / 2;
    request.max_events = 1'000'000;
    request.reference_ms = kReference;
    auto out = index.Search(request, *file, clock_, clock_.Monotonic() + std::chrono::seconds(10));
    EXPECT_TRUE(out) << out.error().ToString();
    return out ? *out : SearchOutcome{};
  }
  std::vector<std::string> Messages(TopicIndex& index, const std::string& query = "") {
    std::vector<std::string> out;
    for (auto& event : All(index, query).events) out.push_back(event.message);
    return out;
  }

  // t.jsonl of three scan blocks (a refresh checks its stop between
  // blocks); the number of lines.
  int WriteThreeScanBlocks() {
    std::string text;
    int lines = 0;
    while (text.size() < (3u << 20)) {
      text += JsonLine(MinutesAgo(50 - lines * 0.0001), "INFO", "a", std::string(100, 'x'));
      ++lines;
    }
    folder_.Write("t.jsonl", text);
    return lines;
  }

  TopicFolder folder_;
  ManualClock clock_{TestNow()};
  LogQuery parsed_;
};

TEST_F(TopicRefreshTest, AppendedLinesAreIndexedIncrementally) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(3), "INFO", "a", "one"));
  TopicIndex index(folder_.Path("t.jsonl"), TopicFormat::kJsonLines);
  EXPECT_THAT(Messages(index), ElementsAre("one"));
  folder_.Append("t.jsonl", JsonLine(MinutesAgo(2), "INFO", "a", "two") + "{broken\n");
  EXPECT_THAT(Messages(index), ElementsAre("one", "two"));
  folder_.Append("t.jsonl", JsonLine(MinutesAgo(9), "INFO", "a", "older, appended late"));
  auto all = All(index);
  EXPECT_EQ(all.indexed_events, 3u);
  EXPECT_EQ(all.skipped_lines, 1u);
  EXPECT_THAT(Messages(index), ElementsAre("older, appended late", "one", "two"));
}

TEST_F(TopicRefreshTest, HalfWrittenJsonLineIsReadAgainOnceComplete) {
  std::string line = JsonLine(MinutesAgo(1), "ERROR", "a", "complete at last");
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(2), "INFO", "a", "before") + line.substr(0, 30));
  TopicIndex index(folder_.Path("t.jsonl"), TopicFormat::kJsonLines);
  auto partial = All(index);
  EXPECT_EQ(partial.indexed_events, 1u);
  EXPECT_EQ(partial.skipped_lines, 1u) << "for now the fragment is a broken line";
  folder_.Append("t.jsonl", line.substr(30));
  auto complete = All(index);
  EXPECT_EQ(complete.indexed_events, 2u);
  EXPECT_EQ(complete.skipped_lines, 0u);
  EXPECT_THAT(Messages(index), ElementsAre("before", "complete at last"));
}

TEST_F(TopicRefreshTest, ContinuationLinesWrittenLaterJoinTheirEvent) {
  folder_.Write("t.log", "2026-11-29 10:00:00 ERROR [a] Request failed\n");
  TopicIndex index(folder_.Path("t.log"), TopicFormat::kPlainText);
  EXPECT_THAT(Messages(index), ElementsAre("Request failed"));
  folder_.Append("t.log", "java.io.IOException: reset\n\tat x.Y(Y.java:1)\n2026-11-29 10:0");
  EXPECT_THAT(Messages(index, "IOException"),
              ElementsAre("Request failed\njava.io.IOException: reset\n\tat x.Y(Y.java:1)\n"
                          "2026-11-29 10:0"))
      << "an incomplete line reads as a continuation for now";
  folder_.Append("t.log", "1:00 INFO [a] next\n");
  EXPECT_THAT(
      Messages(index),
      ElementsAre("Request failed\njava.io.IOException: reset\n\tat x.Y(Y.java:1)", "next"));
  EXPECT_EQ(All(index).indexed_events, 2u);
}

TEST_F(TopicRefreshTest, TruncatedFileIsIndexedAnew) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(3), "INFO", "a", "old one") +
                               JsonLine(MinutesAgo(2), "INFO", "a", "old two"));
  TopicIndex index(folder_.Path("t.jsonl"), TopicFormat::kJsonLines);
  EXPECT_EQ(All(index).indexed_events, 2u);
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(1), "INFO", "a", "new"));
  EXPECT_THAT(Messages(index), ElementsAre("new"));
}

TEST_F(TopicRefreshTest, RotatedFileIsIndexedAnew) {
  folder_.Write("t.log", "2026-11-29 10:00:00 INFO [a] before rotation\n");
  TopicIndex index(folder_.Path("t.log"), TopicFormat::kPlainText);
  EXPECT_THAT(Messages(index), ElementsAre("before rotation"));
  std::filesystem::rename(folder_.Path("t.log"), folder_.Path("t.log.1"));
  folder_.Write("t.log", "2026-11-29 10:01:00 INFO [a] after rotation, a longer first line\n");
  EXPECT_THAT(Messages(index), ElementsAre("after rotation, a longer first line"));
}

TEST_F(TopicRefreshTest, ASearchReadsTheFileItsRefreshIndexedThoughThePathIsRotatedBetween) {
  folder_.Write("t.log", "2026-11-29 10:00:00 INFO [a] before rotation\n");
  TopicIndex index(folder_.Path("t.log"), TopicFormat::kPlainText);
  auto file = Refresh(index);
  ASSERT_TRUE(file);
  std::filesystem::rename(folder_.Path("t.log"), folder_.Path("t.log.1"));
  folder_.Write("t.log", "2026-11-29 10:01:00 INFO [a] after rotation, at other offsets\n");
  LogQuery everything;
  SearchRequest request;
  request.query = &everything;
  request.from_ms = std::numeric_limits<UnixMillis>::min() / 2;
  request.to_ms = std::numeric_limits<UnixMillis>::max() / 2;
  request.max_events = 10;
  request.reference_ms = kReference;
  auto out = index.Search(request, *file, clock_, clock_.Monotonic() + std::chrono::seconds(10));
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_EQ(out->events.size(), 1u);
  EXPECT_EQ(out->events[0].message, "before rotation");
  EXPECT_THAT(Messages(index), ElementsAre("after rotation, at other offsets"))
      << "the next refresh sees the new file";
}

TEST_F(TopicRefreshTest, FileRewrittenInPlaceIsIndexedAnew) {
  folder_.Write("t.log", "2026-11-29 10:00:00 INFO [a] aaaa\n");
  TopicIndex index(folder_.Path("t.log"), TopicFormat::kPlainText);
  EXPECT_THAT(Messages(index), ElementsAre("aaaa"));
  auto mtime = std::filesystem::last_write_time(folder_.Path("t.log"));
  folder_.Write("t.log", "2026-11-29 10:00:00 INFO [a] bbbb\n");  // same size
  std::filesystem::last_write_time(folder_.Path("t.log"), mtime + std::chrono::seconds(1));
  EXPECT_THAT(Messages(index), ElementsAre("bbbb"));
  folder_.Write("t.log", "2026-11-29 10:00:00 INFO [a] cccc, and longer\n");  // grown, new head
  EXPECT_THAT(Messages(index), ElementsAre("cccc, and longer"));
}

TEST_F(TopicRefreshTest, FileThatDisagreesWithItsIndexIsIndexedAnewByTheNextRefresh) {
  folder_.Write("t.log", "2026-11-29 10:00:00 INFO [a] aa\n2026-11-29 10:01:00 INFO [a] bb\n");
  TopicIndex index(folder_.Path("t.log"), TopicFormat::kPlainText);
  EXPECT_THAT(Messages(index), ElementsAre("aa", "bb"));
  // Same size, same mtime: nothing a stat can see.
  auto mtime = std::filesystem::last_write_time(folder_.Path("t.log"));
  folder_.Write("t.log", "2026-11-29 10:00:00 INFO [a] aaaa\n2026-11-29 10:01:00 INFO [a] \n");
  std::filesystem::last_write_time(folder_.Path("t.log"), mtime);
  LogQuery everything;
  SearchRequest request;
  request.query = &everything;
  request.from_ms = std::numeric_limits<UnixMillis>::min() / 2;
  request.to_ms = std::numeric_limits<UnixMillis>::max() / 2;
  auto out = index.Search(request, Opened("t.log"), clock_,
                          clock_.Monotonic() + std::chrono::seconds(10));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kUnavailable) << "a retry may cure it";
  EXPECT_THAT(Messages(index), ElementsAre("aaaa"));
}

TEST_F(TopicRefreshTest, DeletedFileIsNotFound) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(1), "INFO", "a", "x"));
  TopicIndex index(folder_.Path("t.jsonl"), TopicFormat::kJsonLines);
  EXPECT_TRUE(Refresh(index));
  std::filesystem::remove(folder_.Path("t.jsonl"));
  auto refreshed = Refresh(index);
  ASSERT_FALSE(refreshed);
  EXPECT_EQ(refreshed.error().code, ErrorCode::kNotFound);
}

TEST_F(TopicRefreshTest, IndexingStoppedByTheDeadlineGoesOnFromThereNextTime) {
  int lines = WriteThreeScanBlocks();
  TopicIndex index(folder_.Path("t.jsonl"), TopicFormat::kJsonLines);
  SteppingClock clock;
  auto stopped = index.Refresh(clock, clock.Monotonic() + std::chrono::milliseconds(2), kReference);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, ErrorCode::kDeadlineExceeded);
  std::size_t partial = index.EventCount();
  EXPECT_GT(partial, 0u);
  EXPECT_LT(partial, static_cast<std::size_t>(lines));
  LogQuery everything;
  SearchRequest request;
  request.query = &everything;
  request.to_ms = std::numeric_limits<UnixMillis>::max() / 2;
  auto half_built = index.Search(request, Opened("t.jsonl"), clock_,
                                 clock_.Monotonic() + std::chrono::seconds(10));
  ASSERT_FALSE(half_built) << "an index without the file's end misses the newest events";
  EXPECT_EQ(half_built.error().code, ErrorCode::kUnavailable);
  EXPECT_TRUE(Refresh(index));
  EXPECT_EQ(index.EventCount(), static_cast<std::size_t>(lines));
  EXPECT_EQ(All(index).skipped_lines, 0u);
}

TEST_F(TopicRefreshTest, IndexingStoppedByACancelKeepsWhatItReadAndGoesOnNextTime) {
  int lines = WriteThreeScanBlocks();
  TopicIndex index(folder_.Path("t.jsonl"), TopicFormat::kJsonLines);
  std::stop_source cancel;
  // Read 1: the refresh gate; read 2: before the first block. The cancel
  // comes while that block is read, and the second block is never started.
  diagd::testing::CancellingClock clock(cancel, 2);
  auto stopped = index.Refresh(clock, MonoTime{} + std::chrono::hours(1), kReference,
                               cancel.get_token());
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, ErrorCode::kCancelled);
  std::size_t partial = index.EventCount();
  EXPECT_GT(partial, 0u);
  EXPECT_LT(partial, static_cast<std::size_t>(lines));
  EXPECT_TRUE(Refresh(index));
  EXPECT_EQ(index.EventCount(), static_cast<std::size_t>(lines));
}

TEST_F(TopicRefreshTest, ACancelStopsASearch) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += JsonLine(MinutesAgo(1), "INFO", "a", "m");
  folder_.Write("t.jsonl", text);
  TopicIndex index(folder_.Path("t.jsonl"), TopicFormat::kJsonLines);
  auto file = Refresh(index);
  ASSERT_TRUE(file);
  LogQuery query = *ParseLogQuery("nothing matches this");
  SearchRequest request;
  request.query = &query;
  request.from_ms = std::numeric_limits<UnixMillis>::min() / 2;
  request.to_ms = std::numeric_limits<UnixMillis>::max() / 2;
  std::stop_source cancel;
  cancel.request_stop();
  auto out = index.Search(request, *file, clock_, clock_.Monotonic() + std::chrono::hours(1),
                          cancel.get_token());
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kCancelled);
  EXPECT_TRUE(index.Search(request, *file, clock_, clock_.Monotonic() + std::chrono::hours(1)))
      << "the index is whole: only that search stopped";
}

TEST_F(TopicRefreshTest, PassedDeadlineStopsASearch) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += JsonLine(MinutesAgo(1), "INFO", "a", "m");
  folder_.Write("t.jsonl", text);
  TopicIndex index(folder_.Path("t.jsonl"), TopicFormat::kJsonLines);
  auto file = Refresh(index);
  ASSERT_TRUE(file);
  SteppingClock clock;
  LogQuery query = *ParseLogQuery("nothing matches this");
  SearchRequest request;
  request.query = &query;
  request.from_ms = std::numeric_limits<UnixMillis>::min() / 2;
  request.to_ms = std::numeric_limits<UnixMillis>::max() / 2;
  auto out = index.Search(request, *file, clock, clock.Monotonic());
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kDeadlineExceeded);
}

TEST_F(TopicRefreshTest, IndexCostsTwentyFourBytesPerEvent) {
  EXPECT_EQ(TopicIndex::kBytesPerEvent, 24u);
  std::string text;
  for (int i = 0; i < 10000; ++i) text += JsonLine(MinutesAgo(1), "INFO", "svc", "m");
  folder_.Write("t.jsonl", text);
  TopicIndex index(folder_.Path("t.jsonl"), TopicFormat::kJsonLines);
  ASSERT_TRUE(Refresh(index));
  EXPECT_LE(index.MemoryBytes(), 10000u * 24u + 1024u) << "no slack after a build";
}

TEST_F(TopicRefreshTest, ServicesBeyondTheIdSpaceAreReadBackFromTheRecord) {
  std::string text;
  for (int i = 0; i < 70000; ++i) {
    text += JsonLine(MinutesAgo(1), "INFO", "svc-" + std::to_string(i), "m" + std::to_string(i));
  }
  folder_.Write("t.jsonl", text);
  TopicIndex index(folder_.Path("t.jsonl"), TopicFormat::kJsonLines);
  EXPECT_THAT(Messages(index, "service:SVC-69999"), ElementsAre("m69999"));
  EXPECT_THAT(Messages(index, "service:svc-7"), ElementsAre("m7"));
  auto out = All(index, "m69998");
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_EQ(out.events[0].service, "svc-69998");
}

}  // namespace
}  // namespace diagd::tools::logs
