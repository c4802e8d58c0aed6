#include "tools/logs/local_logs_adapter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <stop_token>
#include <thread>

#include "logs_test_support.h"

namespace diagd::tools::logs {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::JsonLine;
using testing::Messages;
using testing::MinutesAgo;
using testing::SteppingClock;
using testing::TestNow;
using testing::TopicFolder;

class LocalLogsAdapterTest : public ::testing::Test {
 protected:
  std::unique_ptr<LocalLogsAdapter> Adapter(LocalLogsOptions options = {}) {
    options.root = folder_.root();
    if (!options.now) options.now = TestNow();
    auto adapter = LocalLogsAdapter::Open(options, clock_);
    EXPECT_TRUE(adapter) << adapter.error().ToString();
    return std::move(*adapter);
  }
  Result<AdapterOutput, AdapterFailure> Run(LocalLogsAdapter& adapter, const std::string& topic,
                                            const std::string& query, int lookback = 60) {
    return adapter.Execute(LogsRequest{topic, query, lookback},
                           clock_.Monotonic() + std::chrono::seconds(10));
  }
  LogsResult Found(LocalLogsAdapter& adapter, const std::string& topic, const std::string& query,
                   int lookback = 60) {
    auto out = Run(adapter, topic, query, lookback);
    EXPECT_TRUE(out) << "failed: " << (out ? "" : out.error().message);
    return out ? std::get<LogsResult>(out->result) : LogsResult{};
  }

  TopicFolder folder_;
  ManualClock clock_{TestNow()};
};

TEST_F(LocalLogsAdapterTest, OpenFailsClearlyWhenTheRootIsMissingOrNotAFolder) {
  auto missing = LocalLogsAdapter::Open({folder_.Path("nope"), {}, 30, 2000}, clock_);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("logs folder does not exist"));
  folder_.Write("file", "x");
  auto file = LocalLogsAdapter::Open({folder_.Path("file"), {}, 30, 2000}, clock_);
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(LocalLogsAdapterTest, ListsEachTopicOnceFromJsonlAndLogFiles) {
  for (const char* name : {"orders.jsonl", "gateway.log", "both.jsonl", "both.log", "notes.txt",
                           ".hidden.log", "app.log.1", "nova.api.log"}) {
    folder_.Write(name, "");
  }
  std::filesystem::create_directory(folder_.Path("dir.log"));
  EXPECT_THAT(Adapter()->ListTopics(), ElementsAre("both", "gateway", "nova.api", "orders"));
}

TEST_F(LocalLogsAdapterTest, JsonlFileIsTheTopicWhenBothFormatsExist) {
  folder_.Write("both.jsonl", JsonLine(MinutesAgo(1), "INFO", "a", "from jsonl"));
  folder_.Write("both.log", "2026-11-29 10:29:00 INFO [a] from log\n");
  EXPECT_THAT(Messages(Found(*Adapter(), "both", "")), ElementsAre("from jsonl"));
}

TEST_F(LocalLogsAdapterTest, WindowEndsAtConfiguredNowAndIncludesBothEnds) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(60 + 1.0 / 60000), "INFO", "a", "too old") +
                               JsonLine(MinutesAgo(60), "INFO", "a", "oldest kept") +
                               JsonLine(MinutesAgo(30), "INFO", "a", "middle") +
                               JsonLine(MinutesAgo(0), "INFO", "a", "at now") +
                               JsonLine(MinutesAgo(-1.0 / 60000), "INFO", "a", "future"));
  auto result = Found(*Adapter(), "t", "", 60);
  EXPECT_THAT(Messages(result), ElementsAre("oldest kept", "middle", "at now"));
  EXPECT_EQ(result.lookback_minutes, 60);
  EXPECT_EQ(result.events[0].timestamp, "2026-11-29T09:30:00.000Z");
  EXPECT_EQ(result.events[2].timestamp, "2026-11-29T10:30:00.000Z");
  EXPECT_THAT(Messages(Found(*Adapter(), "t", "", 31)), ElementsAre("middle", "at now"));
}

TEST_F(LocalLogsAdapterTest, ReturnsOldestFirstWhateverTheFileOrder) {
  folder_.Write("t.log",
                "2026-11-29 10:10:00 INFO [a] ten past\n"
                "2026-11-29 10:20:00 INFO [a] twenty past\n"
                "2026-11-29 10:05:00 INFO [a] five past\n"
                "2026-11-29 10:20:00 INFO [a] twenty past, later in the file\n");
  EXPECT_THAT(
      Messages(Found(*Adapter(), "t", "")),
      ElementsAre("five past", "ten past", "twenty past", "twenty past, later in the file"));
}

TEST_F(LocalLogsAdapterTest, TimestampsAreRfc3339UtcWithMilliseconds) {
  folder_.Write("t.jsonl", JsonLine("2026-11-29T18:20:00.5+08:00", "INFO", "a", "zoned") +
                               JsonLine("2026-11-29T10:21:00", "INFO", "a", "no zone is UTC"));
  auto result = Found(*Adapter(), "t", "");
  ASSERT_EQ(result.events.size(), 2u);
  EXPECT_EQ(result.events[0].timestamp, "2026-11-29T10:20:00.500Z");
  EXPECT_EQ(result.events[1].timestamp, "2026-11-29T10:21:00.000Z");
}

TEST_F(LocalLogsAdapterTest, MoreMatchesThanMaxEventsGiveTheFirstAndTheNewestInTimeOrder) {
  // e10 is the oldest, e1 the newest; the quiet lines around them match
  // nothing, so each walk has to skip some.
  std::string text = JsonLine(MinutesAgo(11), "INFO", "a", "quiet start");
  for (int i = 10; i >= 1; --i)
    text += JsonLine(MinutesAgo(i), "ERROR", "a", "e" + std::to_string(i));
  text += JsonLine(MinutesAgo(0.5), "INFO", "a", "quiet end");
  folder_.Write("t.jsonl", text);
  LocalLogsOptions options;
  options.max_events = 5;  // the first one and the newest four
  auto adapter = Adapter(options);
  auto many = Found(*adapter, "t", "level:ERROR");
  EXPECT_THAT(Messages(many), ElementsAre("e10", "e4", "e3", "e2", "e1"));
  EXPECT_TRUE(many.truncated);
  EXPECT_EQ(many.returned_count, 5u);

  options.max_events = 10;  // the first two and the newest eight
  auto ten = Found(*Adapter(options), "t", "");
  EXPECT_THAT(Messages(ten), ElementsAre("quiet start", "e10", "e7", "e6", "e5", "e4", "e3", "e2",
                                         "e1", "quiet end"));
  EXPECT_TRUE(ten.truncated);

  auto exact = Found(*adapter, "t", "e1");  // e10 and e1
  EXPECT_THAT(Messages(exact), ElementsAre("e10", "e1"));
  EXPECT_FALSE(exact.truncated);
  options.max_events = 12;  // as many as match
  auto all = Found(*Adapter(options), "t", "");
  EXPECT_EQ(all.events.size(), 12u);
  EXPECT_FALSE(all.truncated);
}

TEST_F(LocalLogsAdapterTest, AQueryThatMatchesMuchReadsOnlyTheEventsItReturns) {
  // Two thousand matches over a few blocks of file: both walks stop at
  // their share, whatever lies between.
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += JsonLine(MinutesAgo(50 - i * 0.02), "ERROR", "a",
                     "timeout " + std::to_string(i) + " " + std::string(200, 'x'));
  }
  folder_.Write("t.jsonl", text);
  LocalLogsOptions options;
  options.max_events = 10;
  auto out = Run(*Adapter(options), "t", "timeout");
  ASSERT_TRUE(out);
  const auto& result = std::get<LogsResult>(out->result);
  ASSERT_EQ(result.events.size(), 10u);
  EXPECT_EQ(result.events[0].message.substr(0, 10), "timeout 0 ");
  EXPECT_EQ(result.events[1].message.substr(0, 10), "timeout 1 ");
  EXPECT_EQ(result.events[2].message.substr(0, 13), "timeout 1992 ");
  EXPECT_EQ(result.events[9].message.substr(0, 13), "timeout 1999 ");
  EXPECT_THAT(out->raw_response, HasSubstr(R"("window_events":2000,"examined":11,)"))
      << "2 from the start, 8 from the end and the one that says more matched";
}

TEST_F(LocalLogsAdapterTest, AfterAndBeforeBoundWhatMatches) {
  // TestNow() is 10:30:00Z.
  folder_.Write("t.jsonl", JsonLine("2026-11-29T09:54:59.999Z", "ERROR", "a", "just before after") +
                               JsonLine("2026-11-29T09:55:00.000Z", "ERROR", "a", "at after") +
                               JsonLine("2026-11-29T10:00:00.000Z", "ERROR", "a", "inside") +
                               JsonLine("2026-11-29T10:09:59.999Z", "ERROR", "a", "last inside") +
                               JsonLine("2026-11-29T10:10:00.000Z", "ERROR", "a", "at before"));
  auto adapter = Adapter();
  EXPECT_THAT(Messages(Found(*adapter, "t",
                             "after:2026-11-29T09:55:00Z before:2026-11-29T10:10:00Z")),
              ElementsAre("at after", "inside", "last inside"))
      << "after: includes its time, before: excludes it";
  EXPECT_THAT(Messages(Found(*adapter, "t", "before:2026-11-29T18:10:00+08:00 inside")),
              ElementsAre("inside", "last inside"))
      << "any zone; with other terms";
  EXPECT_THAT(Messages(Found(*adapter, "t", "after:2026-11-29T10:05:00Z")),
              ElementsAre("last inside", "at before"));
  auto clamped = Found(*adapter, "t", "after:2026-11-28T00:00:00Z", 30);
  EXPECT_THAT(Messages(clamped), ElementsAre("inside", "last inside", "at before"))
      << "the window stays within the lookback";
  EXPECT_EQ(clamped.lookback_minutes, 30);
}

TEST_F(LocalLogsAdapterTest, BadOrOutOfWindowBoundsAreQueryFailedWithAReason) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(1), "ERROR", "a", "x"));
  auto adapter = Adapter();
  auto bad = Run(*adapter, "t", "timeout after:09:55");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_THAT(bad.error().message, HasSubstr("after:09:55 is not an RFC 3339 time"));
  auto outside = Run(*adapter, "t", "before:2026-11-29T09:00:00Z", 60);
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(outside.error().message,
            "after:/before: leave nothing of the lookback window 2026-11-29T09:30:00.000Z to "
            "2026-11-29T10:30:00.000Z; raise lookback_minutes or move the bounds");
  EXPECT_FALSE(Run(*adapter, "t", "after:2026-11-29T11:00:00Z")) << "after now";
  EXPECT_TRUE(Run(*adapter, "t", "before:2026-11-29T09:00:00Z", 120)) << "a wider lookback";
}

TEST_F(LocalLogsAdapterTest, BoundsLongMessagesInCodePointsAndSaysTruncated) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(1), "ERROR", "a", "连接池耗尽，订单服务调用超时") +
                               JsonLine(MinutesAgo(2), "ERROR", "a", "short"));
  LocalLogsOptions options;
  options.max_message_chars = 5;
  auto result = Found(*Adapter(options), "t", "");
  EXPECT_THAT(Messages(result), ElementsAre("short", "连接池耗尽"));
  EXPECT_TRUE(result.truncated);
}

TEST_F(LocalLogsAdapterTest, UsesTheClockWallTimeWhenNowIsNotConfigured) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(5), "INFO", "a", "recent"));
  LocalLogsOptions options;
  options.root = folder_.root();
  auto adapter = LocalLogsAdapter::Open(options, clock_);
  ASSERT_TRUE(adapter);
  EXPECT_THAT(Messages(Found(**adapter, "t", "")), ElementsAre("recent"));
  clock_.Advance(std::chrono::hours(2));
  EXPECT_TRUE(Found(**adapter, "t", "").events.empty());
}

TEST_F(LocalLogsAdapterTest, JsonlToleratesMissingAndExtraKeysAndCountsBrokenLines) {
  folder_.Write(
      "t.jsonl",
      JsonLine(MinutesAgo(1), "error", "orders", "full") + R"({"timestamp":")" + MinutesAgo(2) +
          R"(","message":"bare"})" + "\n" + R"({"timestamp":")" + MinutesAgo(3) +
          R"(","msg":"from msg","trace_id":"abc","nested":{"level":"x"},"n":[1,2]})" + "\n" +
          "{\"timestamp\": \"" + MinutesAgo(4) + "\", \"message\": \"broken\"\n" +
          R"({"message":"no timestamp"})" + "\n" +
          R"({"timestamp":"yesterday","message":"bad timestamp"})" + "\n" + R"({"timestamp":")" +
          MinutesAgo(5) + R"(","level":"INFO","message":{"k":"v"}})" + "\n");
  auto out = Run(*Adapter(), "t", "");
  ASSERT_TRUE(out);
  const auto& result = std::get<LogsResult>(out->result);
  ASSERT_THAT(Messages(result), ElementsAre("from msg", "bare", "full"))
      << "a message that is not a string leaves nothing to quote";
  EXPECT_EQ(result.events[2].level, "ERROR");
  EXPECT_EQ(result.events[2].service, "orders");
  EXPECT_EQ(result.events[1].level, std::nullopt);
  EXPECT_EQ(result.events[1].service, std::nullopt);
  EXPECT_THAT(out->raw_response, HasSubstr(R"("skipped_lines":3)"));
}

TEST_F(LocalLogsAdapterTest, EscapedJsonMessagesAreMatchedAsDecoded) {
  // Every byte of the first message is escaped, so nothing of it can be
  // found in the raw line.
  folder_.Write("t.jsonl", R"({"timestamp":")" + MinutesAgo(1) +
                               R"(","message":"\u8fde\u63a5\u8d85\u65f6 \"pool\"\tx"})" + "\n" +
                               R"({"timestamp":")" + MinutesAgo(2) +
                               R"(","message":"plain \u0054IMEOUT"})" + "\n");
  auto adapter = Adapter();
  EXPECT_THAT(Messages(Found(*adapter, "t", "超时")), ElementsAre("连接超时 \"pool\"\tx"));
  EXPECT_THAT(Messages(Found(*adapter, "t", "\"\\\"pool\\\"\"")),
              ElementsAre("连接超时 \"pool\"\tx"));
  EXPECT_THAT(Messages(Found(*adapter, "t", "timeout")), ElementsAre("plain TIMEOUT"));
}

TEST_F(LocalLogsAdapterTest, RawResponseHoldsCountsAndNoEventBodies) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(1), "ERROR", "a", "secret body") +
                               JsonLine(MinutesAgo(2), "INFO", "a", "other body") +
                               JsonLine(MinutesAgo(120), "INFO", "a", "old body"));
  auto out = Run(*Adapter(), "t", "level:ERROR");
  ASSERT_TRUE(out);
  EXPECT_EQ(out->raw_response,
            R"({"topic":"t","format":"jsonl","indexed_events":3,"skipped_lines":0,)"
            R"("window_events":2,"examined":1,"returned":1,"more_matched":false,)"
            R"("messages_cut":false})");
}

// The index's own stops (mid-scan, mid-search) are in topic_refresh_test.
TEST_F(LocalLogsAdapterTest, ACancelledCallIsUnavailableAndTheNextCallAnswers) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(1), "ERROR", "a", "timeout"));
  auto adapter = Adapter();
  std::stop_source cancel;
  cancel.request_stop();
  auto cancelled =
      adapter->Execute(LogsRequest{"t", "timeout", 60},
                       clock_.Monotonic() + std::chrono::seconds(10), cancel.get_token());
  ASSERT_FALSE(cancelled);
  EXPECT_EQ(cancelled.error().code, ToolErrorCode::kToolUnavailable);
  EXPECT_EQ(Found(*adapter, "t", "timeout").events.size(), 1u);
}

TEST_F(LocalLogsAdapterTest, NoMatchIsNoEvidenceWithNoEvents) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(1), "INFO", "a", "all good"));
  auto result = Found(*Adapter(), "t", "timeout");
  EXPECT_EQ(result.evidence_status, EvidenceStatus::kNoEvidence);
  EXPECT_TRUE(result.events.empty());
  EXPECT_EQ(result.query, "timeout");
  EXPECT_EQ(result.topic, "t");
  EXPECT_EQ(Found(*Adapter(), "t", "good").evidence_status, EvidenceStatus::kEvidenceFound);
}

TEST_F(LocalLogsAdapterTest, QueryLanguageSelectsEventsEndToEnd) {
  folder_.Write("orders.log",
                "2026-11-29 10:01:00,000 ERROR [order-service] HikariPool-1 - Connection is not "
                "available, request timed out after 3000ms\n"
                "2026-11-29 10:02:00,000 WARN [order-service] 调用 payment-db 连接超时\n"
                "2026-11-29 10:03:00,000 INFO [gateway] GET /healthcheck timeout=5s\n"
                "2026-11-29 10:04:00,000 ERROR [Payment-DB] connection refused\n"
                "2026-11-29 10:05:00,000 WARNING [gateway] upstream timeout\n");
  auto adapter = Adapter();
  auto select = [&](const std::string& query) {
    return Messages(Found(*adapter, "orders", query));
  };
  EXPECT_THAT(select("timeout"), ElementsAre("GET /healthcheck timeout=5s", "upstream timeout"));
  EXPECT_THAT(select("out request"), ElementsAre(::testing::StartsWith("HikariPool-1")))
      << "terms in any order and place";
  EXPECT_THAT(select("timeout -healthcheck upstream"), ElementsAre("upstream timeout"));
  EXPECT_THAT(select("\"connection is not available\""),
              ElementsAre(::testing::StartsWith("HikariPool-1")));
  EXPECT_THAT(select("-\"connection is\" level:error"), ElementsAre("connection refused"));
  EXPECT_THAT(select("level:WARN"), ElementsAre("调用 payment-db 连接超时", "upstream timeout"));
  EXPECT_THAT(select("service:payment-db"), ElementsAre("connection refused"));
  EXPECT_THAT(select("超时"), ElementsAre("调用 payment-db 连接超时"));
  EXPECT_EQ(select("").size(), 5u);
  auto result = Found(*adapter, "orders", "service:GATEWAY level:warn");
  ASSERT_EQ(result.events.size(), 1u);
  EXPECT_EQ(result.events[0].level, "WARN");
  EXPECT_EQ(result.events[0].service, "gateway");
}

TEST_F(LocalLogsAdapterTest, MultiLineEventKeepsItsStackTraceAndIsFoundByIt) {
  folder_.Write("app.log",
                "2026-11-29 10:10:00 ERROR [orders] Request failed\n"
                "java.net.SocketTimeoutException: Read timed out\n"
                "\tat java.net.SocketInputStream.read(SocketInputStream.java:150)\n"
                "2026-11-29 10:11:00 INFO [orders] recovered\n");
  auto result = Found(*Adapter(), "app", "SocketTimeoutException");
  ASSERT_EQ(result.events.size(), 1u);
  EXPECT_EQ(result.events[0].message,
            "Request failed\njava.net.SocketTimeoutException: Read timed out\n"
            "\tat java.net.SocketInputStream.read(SocketInputStream.java:150)");
}

TEST_F(LocalLogsAdapterTest, EventsAppendedBetweenCallsAreSeenByTheNextCall) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(5), "ERROR", "a", "first timeout"));
  folder_.Write("u.log", "2026-11-29 10:20:00 ERROR [a] first timeout\n");
  auto adapter = Adapter();
  EXPECT_THAT(Messages(Found(*adapter, "t", "timeout")), ElementsAre("first timeout"));
  EXPECT_THAT(Messages(Found(*adapter, "u", "timeout")), ElementsAre("first timeout"));
  folder_.Append("t.jsonl", JsonLine(MinutesAgo(1), "ERROR", "a", "second timeout"));
  folder_.Append("u.log", "\tat Pool.get\n2026-11-29 10:25:00 ERROR [a] second timeout\n");
  EXPECT_THAT(Messages(Found(*adapter, "t", "timeout")),
              ElementsAre("first timeout", "second timeout"));
  EXPECT_THAT(Messages(Found(*adapter, "u", "timeout")),
              ElementsAre("first timeout\n\tat Pool.get", "second timeout"));
}

TEST_F(LocalLogsAdapterTest, UnknownTopicIsQueryFailed) {
  folder_.Write("orders.jsonl", "");
  auto adapter = Adapter();
  for (const char* topic : {"missing", "../orders", "orders.jsonl", ""}) {
    auto out = Run(*adapter, topic, "");
    ASSERT_FALSE(out) << topic;
    EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
    EXPECT_EQ(out.error().message, "unknown topic");
  }
}

TEST_F(LocalLogsAdapterTest, MalformedQueryIsQueryFailedWithAShortReason) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(1), "INFO", "a", "x"));
  auto out = Run(*Adapter(), "t", "\"connection refused");
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_EQ(out.error().message, "unterminated quote in query");
}

TEST_F(LocalLogsAdapterTest, PassedDeadlineIsToolTimeout) {
  folder_.Write("t.jsonl", JsonLine(MinutesAgo(1), "INFO", "a", "x"));
  auto out = Adapter()->Execute(LogsRequest{"t", "", 60},
                                clock_.Monotonic() - std::chrono::milliseconds(1));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ToolErrorCode::kToolTimeout);
}

TEST_F(LocalLogsAdapterTest, IndexingCutShortByTheDeadlineIsToolTimeoutAndTheNextCallGoesOn) {
  std::string text;
  int lines = 0;
  for (; text.size() < (3u << 20); ++lines) {  // three blocks of indexing
    text += JsonLine(MinutesAgo(30), "INFO", "a", "event " + std::string(100, 'x'));
  }
  folder_.Write("t.jsonl", text);
  SteppingClock clock;
  LocalLogsOptions options;
  options.root = folder_.root();
  options.now = TestNow();
  options.max_events = 1'000'000;
  auto adapter = std::move(*LocalLogsAdapter::Open(options, clock));
  auto cut =
      adapter->Execute(LogsRequest{"t", "", 60}, clock.Monotonic() + std::chrono::milliseconds(3));
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, ToolErrorCode::kToolTimeout);
  auto next = adapter->Execute(LogsRequest{"t", "", 60}, clock.Monotonic() + std::chrono::hours(1));
  ASSERT_TRUE(next);
  EXPECT_EQ(std::get<LogsResult>(next->result).events.size(), static_cast<std::size_t>(lines));
}

TEST_F(LocalLogsAdapterTest, ConcurrentQueriesFromSeveralThreadsWhileTheFileGrows) {
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += JsonLine(MinutesAgo(59 - i * 0.02), i % 10 == 0 ? "ERROR" : "INFO",
                     i % 2 ? "orders" : "gateway", "request " + std::to_string(i) + " timeout");
  }
  folder_.Write("t.jsonl", text);
  LocalLogsOptions options;
  options.max_events = 5000;
  auto adapter = Adapter(options);
  std::atomic<bool> failed{false};
  std::thread writer([&] {
    for (int i = 0; i < 200; ++i) {
      folder_.Append("t.jsonl", JsonLine(MinutesAgo(10), "ERROR", "orders", "appended timeout"));
    }
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        auto out = adapter->Execute(LogsRequest{"t", t % 2 ? "level:ERROR timeout" : "", 60},
                                    clock_.Monotonic() + std::chrono::seconds(30));
        if (!out) {
          failed = true;
          continue;
        }
        const auto& events = std::get<LogsResult>(out->result).events;
        bool sorted =
            std::is_sorted(events.begin(), events.end(),
                           [](const auto& a, const auto& b) { return a.timestamp < b.timestamp; });
        std::size_t floor = t % 2 ? 200u : 2000u;
        if (!sorted || events.size() < floor) failed = true;
        for (const auto& event : events) {
          if (t % 2 && event.level != "ERROR") failed = true;
        }
      }
    });
  }
  writer.join();
  for (auto& reader : readers) reader.join();
  EXPECT_FALSE(failed);
  EXPECT_EQ(Found(*adapter, "t", "level:ERROR").events.size(), 200u + 200u);
}

}  // namespace
}  // namespace diagd::tools::logs
