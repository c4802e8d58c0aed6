#include "tools/logs/log_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/logs/log_record.h"

namespace diagd::tools::logs {
namespace {

constexpr UnixMillis kReference = 1'795'953'600'000;  // 2026-11-29T12:00:00Z

struct Head {
  std::string level;
  std::string service;
  std::string message;
};

// What a one-line `.log` event says, or a marker for a continuation line.
Head Read(std::string_view line) {
  auto head = ParseLineHead(line, kReference);
  if (!head) return {"<continuation>", "", ""};
  return {std::string(head->level), std::string(head->service),
          std::string(line.substr(head->message_offset))};
}

MATCHER_P3(IsHead, level, service, message, "") {
  return arg.level == level && arg.service == service && arg.message == message;
}

TEST(LogLine, DiagdLayoutGivesLevelBracketedServiceAndMessage) {
  EXPECT_THAT(Read("2026-11-29 10:05:12,345 ERROR [order-service] HikariPool-1 - Connection is "
                   "not available"),
              IsHead("ERROR", "order-service", "HikariPool-1 - Connection is not available"));
  EXPECT_THAT(Read("2026-11-29T10:05:12.345Z WARNING [payment-db] 连接池耗尽"),
              IsHead("WARN", "payment-db", "连接池耗尽"));
  EXPECT_THAT(Read("2026-11-29T10:05:12Z info [gw] ok"), IsHead("INFO", "gw", "ok"));
}

TEST(LogLine, LevelWordsAreNormalizedToUpperCase) {
  for (auto [word, level] :
       std::vector<std::pair<std::string, std::string>>{{"trace", "TRACE"},
                                                        {"Debug", "DEBUG"},
                                                        {"INFO", "INFO"},
                                                        {"warn", "WARN"},
                                                        {"Warning", "WARN"},
                                                        {"ERROR", "ERROR"},
                                                        {"fatal", "FATAL"},
                                                        {"CRITICAL", "CRITICAL"},
                                                        {"severe", "SEVERE"}}) {
    EXPECT_EQ(Read("2026-11-29 10:05:12 " + word + " text").level, level) << word;
  }
  EXPECT_EQ(NormalizeLevelText("notice"), "NOTICE");
  EXPECT_EQ(NormalizeLevelText("warning"), "WARN");
  EXPECT_EQ(NormalizeLevelWord("notice"), "");
}

TEST(LogLine, LevelIsFoundNearTheStartOnlyAfterLayoutTokens) {
  EXPECT_THAT(Read("2026-11-29 10:00:00 connection error occurred"),
              IsHead("", "", "connection error occurred"))
      << "a level word inside the text is text";
  EXPECT_THAT(Read("2026-11-29 10:00:00 [main] ERROR com.example.Pool - exhausted"),
              IsHead("ERROR", "", "com.example.Pool - exhausted"))
      << "logback: a bracketed thread before the level";
  EXPECT_THAT(Read("2026-11-29 10:00:00 ERROR - broken pipe"), IsHead("ERROR", "", "broken pipe"))
      << "a separator after the level is layout";
  EXPECT_THAT(Read("2026-11-29 10:00:00 <ERROR> x"), IsHead("ERROR", "", "x"));
  EXPECT_THAT(Read("2026-11-29 10:00:00 ERROR: x"), IsHead("ERROR", "", "x"));
  EXPECT_THAT(Read("2026-11-29 10:00:00 ERROR"), IsHead("ERROR", "", ""));
  EXPECT_THAT(Read("2026-11-29 10:00:00 ERROR [has space] x"), IsHead("ERROR", "", "[has space] x"))
      << "a service is a plain name";
}

TEST(LogLine, ReadsTheLoghubLayouts) {
  EXPECT_THAT(Read("[Sun Dec 04 04:47:44 2005] [error] mod_jk child workerEnv in error state 6"),
              IsHead("ERROR", "", "mod_jk child workerEnv in error state 6"));
  EXPECT_THAT(Read("[Sun Dec 04 04:47:44 2005] [notice] workerEnv.init() ok"),
              IsHead("", "", "[notice] workerEnv.init() ok"))
      << "notice is no level: it stays in the message";
  EXPECT_THAT(Read("081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1"),
              IsHead("INFO", "", "dfs.DataNode$PacketResponder: PacketResponder 1"));
  EXPECT_THAT(Read("2015-10-18 18:01:47,978 INFO [main] org.apache.hadoop.X: Created"),
              IsHead("INFO", "main", "org.apache.hadoop.X: Created"))
      << "log4j's thread has the diagd layout's place";
  EXPECT_THAT(Read("2015-10-18 18:01:48,963 WARN [RMCommunicator Allocator] org.X: y"),
              IsHead("WARN", "", "[RMCommunicator Allocator] org.X: y"));
  EXPECT_THAT(Read("20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579"),
              IsHead("", "Step_LSC", "onStandStepChanged 3579"));
  EXPECT_THAT(Read("nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO "
                   "nova.osapi_compute.wsgi.server [req-38] 10.11.10.1 \"GET /v2\" status: 200"),
              IsHead("INFO", "nova-api",
                     "nova.osapi_compute.wsgi.server [req-38] 10.11.10.1 \"GET /v2\" status: 200"));
  EXPECT_THAT(Read("17/06/09 20:10:40 INFO executor.CoarseGrainedExecutorBackend: Registered"),
              IsHead("INFO", "", "executor.CoarseGrainedExecutorBackend: Registered"));
  EXPECT_THAT(Read("2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:"
                   "FastLeaderElection@774] - Notification time out: 3200"),
              IsHead("INFO", "",
                     "[QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:FastLeaderElection@774] - "
                     "Notification time out: 3200"));
}

TEST(LogLine, LinesWithoutATimestampContinueTheEventBefore) {
  EXPECT_EQ(Read("\tat com.example.Pool.get(Pool.java:42)").level, "<continuation>");
  EXPECT_EQ(Read("Caused by: java.net.SocketTimeoutException").level, "<continuation>");
  EXPECT_EQ(Read("app.log is rotated").level, "<continuation>")
      << "a file-name token counts only before a timestamp";
}

// Collects what a scan reports.
class Collector : public ScanSink {
 public:
  void OnEvent(const ScannedEvent& event) override { events.push_back(event); }
  void OnExtend(std::uint32_t length) override { events.back().length = length; }
  void OnSkipped(std::uint64_t offset) override { skipped.push_back(offset); }
  std::vector<ScannedEvent> events;
  std::vector<std::uint64_t> skipped;
};

std::vector<std::string> ScanAndDecode(const std::string& text, TopicFormat format,
                                       Collector& sink) {
  RecordScanner scanner(format, kReference, sink);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    scanner.Feed(std::string_view(text).substr(start, end - start), start);
    start = end + 1;
  }
  std::vector<std::string> messages;
  for (const auto& event : sink.events) {
    auto decoded =
        DecodeRecord(format, std::string_view(text).substr(event.offset, event.length), kReference);
    messages.push_back(decoded ? decoded->message : "<undecodable>");
  }
  return messages;
}

TEST(LogRecord, StackTraceJoinsItsEventWithLineEndingsAsNewlines) {
  std::string text =
      "junk before the first event\r\n"
      "2026-11-29 10:00:00 ERROR [orders] Request failed\r\n"
      "java.lang.IllegalStateException: pool closed\r\n"
      "\tat com.example.Pool.get(Pool.java:42)\r\n"
      "\r\n"
      "2026-11-29 10:00:01 INFO [orders] next\r\n"
      "\r\n";
  Collector sink;
  auto messages = ScanAndDecode(text, TopicFormat::kPlainText, sink);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0],
            "Request failed\njava.lang.IllegalStateException: pool closed\n"
            "\tat com.example.Pool.get(Pool.java:42)");
  EXPECT_EQ(messages[1], "next") << "trailing blank lines are not message";
  EXPECT_EQ(sink.skipped, std::vector<std::uint64_t>{0}) << "text before the first event";
}

TEST(LogRecord, EventWhoseFirstLineEndsAtTheLevelStartsOnTheNextLine) {
  Collector sink;
  auto messages =
      ScanAndDecode("2026-11-29 10:00:00 ERROR\n  detail here\n", TopicFormat::kPlainText, sink);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "  detail here");
}

TEST(LogRecord, JsonLinesKeepKnownKeysAndSkipBrokenLines) {
  std::string text =
      R"({"timestamp":"2026-11-29T10:00:00Z","level":"warning","service":"gw","message":"slow","extra":{"a":1}})"
      "\n"
      R"({"timestamp":"2026-11-29T10:00:01+08:00","msg":"from msg"})"
      "\n"
      "{not json\n"
      R"({"level":"ERROR","message":"no timestamp"})"
      "\n"
      "   \n"
      R"({"timestamp":"2026-11-29T10:00:02Z","level":50,"message":"pino \"quoted\"\nline"})";
  Collector sink;
  auto messages = ScanAndDecode(text, TopicFormat::kJsonLines, sink);
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0], "slow");
  EXPECT_EQ(messages[1], "from msg");
  EXPECT_EQ(messages[2], "pino \"quoted\"\nline");
  EXPECT_EQ(sink.skipped.size(), 2u)
      << "broken JSON and a missing timestamp; blank lines are not counted";
  auto decoded = DecodeRecord(
      TopicFormat::kJsonLines,
      std::string_view(text).substr(sink.events[0].offset, sink.events[0].length), kReference);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->level, "WARN");
  EXPECT_EQ(decoded->service, "gw");
}

}  // namespace
}  // namespace diagd::tools::logs
