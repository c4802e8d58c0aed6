#include "tools/logs/log_timestamp.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "core/clock.h"

namespace diagd::tools::logs {
namespace {

// 2026-11-29T12:00:00Z: the reference for year-less formats unless a test
// says otherwise.
constexpr UnixMillis kReference = 1'795'953'600'000;

std::string Format(UnixMillis ms) {
  return FormatRfc3339Millis(WallTime(std::chrono::milliseconds(ms)));
}

// The leading timestamp of `line` in RFC 3339, and how many bytes it took.
std::string Leading(std::string_view line, UnixMillis reference = kReference) {
  auto match = MatchLeadingTimestamp(line, reference);
  if (!match) return "none";
  return Format(match->time_ms) + " /" + std::to_string(match->length);
}

TEST(LogTimestamp, ReferenceConstantIsWhatItSays) {
  EXPECT_EQ(Format(kReference), "2026-11-29T12:00:00.000Z");
}

TEST(LogTimestamp, ReadsIso8601AndRfc3339WithAndWithoutZone) {
  EXPECT_EQ(Leading("2026-11-29T10:05:12.345Z payment failed"), "2026-11-29T10:05:12.345Z /24");
  EXPECT_EQ(Leading("2026-11-29T10:05:12.345+08:00 x"), "2026-11-29T02:05:12.345Z /29");
  EXPECT_EQ(Leading("2026-11-29T10:05:12-05:30"), "2026-11-29T15:35:12.000Z /25");
  EXPECT_EQ(Leading("2026-11-29T10:05:12+0800"), "2026-11-29T02:05:12.000Z /24");
  EXPECT_EQ(Leading("2026-11-29T10:05:12+08"), "2026-11-29T02:05:12.000Z /22");
  EXPECT_EQ(Leading("2026-11-29t10:05:12z"), "2026-11-29T10:05:12.000Z /20");
  EXPECT_EQ(Leading("2026-11-29T10:05:12 INFO"), "2026-11-29T10:05:12.000Z /19")
      << "no zone is UTC";
  EXPECT_EQ(Leading("2026-11-29T10:05:12.123456789Z"), "2026-11-29T10:05:12.123Z /30")
      << "digits below the millisecond are dropped, not rounded";
  EXPECT_EQ(Leading("2026-11-29T10:05:12.9999Z"), "2026-11-29T10:05:12.999Z /25");
  EXPECT_EQ(Leading("2026-11-29T10:05:12.5Z"), "2026-11-29T10:05:12.500Z /22");
}

TEST(LogTimestamp, ReadsSpaceSeparatedDateTimeWithCommaOrDotMilliseconds) {
  EXPECT_EQ(Leading("2026-11-29 10:05:12,345 ERROR [gw] x"), "2026-11-29T10:05:12.345Z /23");
  EXPECT_EQ(Leading("2026-11-29 10:05:12.345 ERROR"), "2026-11-29T10:05:12.345Z /23");
  EXPECT_EQ(Leading("2026-11-29 10:05:12 +0800 x"), "2026-11-29T02:05:12.000Z /25")
      << "a zone after a space";
  EXPECT_EQ(Leading("2026-11-29 10:05:12 - INFO x"), "2026-11-29T10:05:12.000Z /19")
      << "a separator dash is no zone";
  EXPECT_EQ(Leading("2026-11-29 10:05:12. Done"), "2026-11-29T10:05:12.000Z /19")
      << "a full stop is no fraction";
}

TEST(LogTimestamp, ReadsEveryLoghubSampleFormat) {
  // Apache error log: ctime in brackets.
  EXPECT_EQ(Leading("[Sun Dec 04 04:47:44 2005] [notice] workerEnv.init() ok"),
            "2005-12-04T04:47:44.000Z /26");
  // HDFS: yyMMdd HHmmss.
  EXPECT_EQ(Leading("081109 203615 148 INFO dfs.DataNode$PacketResponder: x"),
            "2008-11-09T20:36:15.000Z /13");
  // Hadoop and Zookeeper: comma before the milliseconds.
  EXPECT_EQ(Leading("2015-10-18 18:01:47,978 INFO [main] org.apache"),
            "2015-10-18T18:01:47.978Z /23");
  EXPECT_EQ(Leading("2015-07-29 17:41:44,747 - INFO  [QuorumPeer"), "2015-07-29T17:41:44.747Z /23");
  // HealthApp: compact date, unpadded time and milliseconds.
  EXPECT_EQ(Leading("20171223-22:15:29:606|Step_LSC|30002312|x"), "2017-12-23T22:15:29.606Z /21");
  EXPECT_EQ(Leading("20171224-1:1:0:93|x"), "2017-12-24T01:01:00.093Z /17")
      << "93 is 93 ms: the sample's order has :35:96 before :35:104";
  EXPECT_EQ(Leading("20171224-1:12:3:5|x"), "2017-12-24T01:12:03.005Z /17");
  // OpenStack: after the source-file token (log_line_test), a dotted fraction.
  EXPECT_EQ(Leading("2017-05-16 00:00:00.008 25746 INFO"), "2017-05-16T00:00:00.008Z /23");
  // Spark: yy/MM/dd HH:mm:ss.
  EXPECT_EQ(Leading("17/06/09 20:10:40 INFO executor.X: y"), "2017-06-09T20:10:40.000Z /17");
}

TEST(LogTimestamp, ReadsOtherCommonFormats) {
  EXPECT_EQ(Leading("2026/11/29 10:05:12 [error] 123#0: upstream timed out"),
            "2026-11-29T10:05:12.000Z /19")
      << "nginx error log";
  EXPECT_EQ(Leading("29-Nov-2026 10:05:12.345 SEVERE [main] x"), "2026-11-29T10:05:12.345Z /24")
      << "Tomcat";
  EXPECT_EQ(Leading("[2026-11-29 10:05:12,345] INFO x"), "2026-11-29T10:05:12.345Z /25")
      << "any format in brackets";
  EXPECT_EQ(Leading("[Sun Dec 04 04:47:44.123456 2005] [error] x"), "2005-12-04T04:47:44.123Z /33")
      << "Apache 2.4 with microseconds";
  EXPECT_EQ(Leading("Wed Dec  4 04:47:44 2024 x"), "2024-12-04T04:47:44.000Z /24")
      << "ctime pads the day with a space";
}

TEST(LogTimestamp, SyslogTakesTheLatestYearNotMoreThanADayAfterTheReference) {
  EXPECT_EQ(Leading("Nov 29 10:05:12 web-1 sshd[42]: Accepted"), "2026-11-29T10:05:12.000Z /15");
  EXPECT_EQ(Leading("Nov 30 10:05:12 web-1 x"), "2026-11-30T10:05:12.000Z /15")
      << "22 hours ahead of the reference: a clock skew, same year";
  EXPECT_EQ(Leading("Dec 25 10:05:12 web-1 x"), "2025-12-25T10:05:12.000Z /15")
      << "a month ahead: last year";
  EXPECT_EQ(Leading("Nov  3 01:02:03 web-1 x"), "2026-11-03T01:02:03.000Z /15");
  constexpr UnixMillis kNewYear = 1'798'761'600'000;  // 2027-01-01T00:00:00Z
  EXPECT_EQ(Leading("Dec 31 23:59:59 web-1 x", kNewYear), "2026-12-31T23:59:59.000Z /15");
  EXPECT_EQ(Leading("Feb 29 10:00:00 web-1 x", kNewYear), "2024-02-29T10:00:00.000Z /15")
      << "Feb 29 falls in the last leap year";
}

TEST(LogTimestamp, RejectsWhatIsNoTimestamp) {
  for (std::string_view line : {
           "",
           "\tat com.example.Pool.get(Pool.java:42)",
           "Caused by: java.net.SocketTimeoutException: Read timed out",
           "12:00:00 no date",
           "2026-11-29 10:05:123 x",
           "2026-11-29 10:05",
           "2026-13-01 00:00:00 bad month",
           "2026-02-30 00:00:00 bad day",
           "2026-11-29 24:00:00 bad hour",
           "2026-11-29T10:05:12+25:00 bad zone",
           "20171223-22:15 short",
           "[Sun Dec 04 04:47:44 2005 unclosed",
           "123456 654321 not a date",
           "May the force be with you",
       }) {
    EXPECT_EQ(Leading(line), "none") << line;
  }
}

TEST(LogTimestamp, ParseIso8601ReadsTheWholeTextOnly) {
  EXPECT_EQ(Format(*ParseIso8601("2026-11-29T10:05:12.345Z")), "2026-11-29T10:05:12.345Z");
  EXPECT_EQ(Format(*ParseIso8601("2026-11-29T18:05:12.345+08:00")), "2026-11-29T10:05:12.345Z");
  EXPECT_EQ(Format(*ParseIso8601("2026-11-29 10:05:12")), "2026-11-29T10:05:12.000Z");
  EXPECT_EQ(Format(*ParseIso8601("2026-11-29T10:05:12,5")), "2026-11-29T10:05:12.500Z");
  EXPECT_FALSE(ParseIso8601("2026-11-29T10:05:12Z trailing"));
  EXPECT_FALSE(ParseIso8601("29/11/2026 10:05:12"));
  EXPECT_FALSE(ParseIso8601(""));
}

}  // namespace
}  // namespace diagd::tools::logs
