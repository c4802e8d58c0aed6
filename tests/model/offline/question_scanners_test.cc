#include "model/offline/question_scanners.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace diagd::model::offline {
namespace {

// The scanners' results as text, so each expectation reads as the regex's
// match would: "30|minute", "" for no match.
std::string Show(const std::optional<LookbackMatch>& m) {
  if (!m) return "";
  const char* unit = m->unit == TimeUnit::kMinute ? "minute"
                     : m->unit == TimeUnit::kHour ? "hour"
                                                  : "day";
  return std::string(m->count) + "|" + unit;
}
std::string Show(const std::optional<std::string_view>& m) { return m ? std::string(*m) : ""; }
std::string Show(const std::optional<EnglishHourMatch>& m) {
  return m ? std::string(m->hour) + "|" + std::string(m->suffix) : "";
}
std::vector<std::string> Strings(const std::vector<std::string_view>& views) {
  return {views.begin(), views.end()};
}

std::string Repeat(std::string_view piece, std::size_t bytes) {
  std::string out;
  while (out.size() < bytes) out += piece;
  return out;
}

TEST(FindChineseLookback, ReadsTheCountAndTheUnit) {
  EXPECT_EQ(Show(FindChineseLookback("过去 30 分钟支付超时")), "30|minute");
  EXPECT_EQ(Show(FindChineseLookback("近半小时")), "半|hour");
  EXPECT_EQ(Show(FindChineseLookback("最近两天")), "两|day");
  EXPECT_EQ(Show(FindChineseLookback("最近一个小时")), "一|hour");
  EXPECT_EQ(Show(FindChineseLookback("最近\t5 \n 个 分钟")), "5|minute");
  EXPECT_EQ(Show(FindChineseLookback("最近小时")), "|hour");
}

TEST(FindChineseLookback, TakesTheFirstAndNeedsTheKeyword) {
  EXPECT_EQ(Show(FindChineseLookback("近 3 天里，最近 2 小时最多")), "3|day");
  EXPECT_EQ(Show(FindChineseLookback("30 分钟前")), "");
  EXPECT_EQ(Show(FindChineseLookback("最近个把小时")), "");
  EXPECT_EQ(Show(FindChineseLookback("最近 3 5 分钟")), "");
}

TEST(FindEnglishLookback, IgnoresCaseAndReadsWordCounts) {
  EXPECT_EQ(Show(FindEnglishLookback("in the LAST 2 Hours")), "2|hour");
  EXPECT_EQ(Show(FindEnglishLookback("over the past hour")), "|hour");
  EXPECT_EQ(Show(FindEnglishLookback("last an hour")), "an|hour");
  EXPECT_EQ(Show(FindEnglishLookback("past One day")), "One|day");
  EXPECT_EQ(Show(FindEnglishLookback("last 15mins")), "15|minute");
  EXPECT_EQ(Show(FindEnglishLookback("last ahour")), "a|hour");
}

TEST(FindEnglishLookback, KeepsTheRegexEdges) {
  // No boundary on either side, as the pattern had none.
  EXPECT_EQ(Show(FindEnglishLookback("blast 5 min")), "5|minute");
  EXPECT_EQ(Show(FindEnglishLookback("the last minimum")), "|minute");
  // At least one space after the keyword; an unknown count word ends it.
  EXPECT_EQ(Show(FindEnglishLookback("last2 hours")), "");
  EXPECT_EQ(Show(FindEnglishLookback("the last another hour")), "");
  EXPECT_EQ(Show(FindEnglishLookback("last week, last 3 days")), "3|day");
}

TEST(FindChineseHour, TakesTheLastTwoDigitsBeforeTheMark) {
  EXPECT_EQ(Show(FindChineseHour("订单服务从 10 点左右开始")), "10");
  EXPECT_EQ(Show(FindChineseHour("从10点")), "10");
  EXPECT_EQ(Show(FindChineseHour("9时")), "9");
  EXPECT_EQ(Show(FindChineseHour("123点")), "23");
  EXPECT_EQ(Show(FindChineseHour("10 分钟")), "");
}

TEST(FindClockHour, NeedsWordBoundariesAroundTheClock) {
  EXPECT_EQ(Show(FindClockHour("10:02 的发布")), "10");
  EXPECT_EQ(Show(FindClockHour("在9:30左右")), "9");
  EXPECT_EQ(Show(FindClockHour("at 9:30am")), "") << "the regex wanted a boundary after :30";
  EXPECT_EQ(Show(FindClockHour("v10:02")), "");
  EXPECT_EQ(Show(FindClockHour("123:45")), "");
  EXPECT_EQ(Show(FindClockHour("10:020")), "");
}

TEST(FindEnglishHour, ReadsTheHourAndItsSuffix) {
  EXPECT_EQ(Show(FindEnglishHour("time out since 10am?")), "10|am");
  EXPECT_EQ(Show(FindEnglishHour("AROUND 3 PM")), "3|PM");
  EXPECT_EQ(Show(FindEnglishHour("after 7 O'Clock")), "7|O'Clock");
  EXPECT_EQ(Show(FindEnglishHour("failing with 502 around 14?")), "14|");
  EXPECT_EQ(Show(FindEnglishHour("at 123")), "12|");
}

TEST(FindEnglishHour, NeedsAWordOfItsOwnAndASpace) {
  EXPECT_EQ(Show(FindEnglishHour("that 5")), "");
  EXPECT_EQ(Show(FindEnglishHour("at5")), "");
  EXPECT_EQ(Show(FindEnglishHour("从at 5")), "5|") << "Chinese is no word character";
}

TEST(FindChineseDate, QuotesTheDateAsWritten) {
  EXPECT_EQ(Show(FindChineseDate("昨天（11 月 28 日）晚上")), "11 月 28 日");
  EXPECT_EQ(Show(FindChineseDate("3月5日")), "3月5日");
  EXPECT_EQ(Show(FindChineseDate("3月5号")), "3月5号");
  EXPECT_EQ(Show(FindChineseDate("123月45日")), "23月45日");
  EXPECT_EQ(Show(FindChineseDate("3 月")), "");
  EXPECT_EQ(Show(FindChineseDate("3 月 5")), "");
}

TEST(FindPastDayWord, TakesTheFirstWordAsWritten) {
  EXPECT_EQ(Show(FindPastDayWord("Yesterday it broke")), "Yesterday");
  EXPECT_EQ(Show(FindPastDayWord("since LAST NIGHT")), "LAST NIGHT");
  EXPECT_EQ(Show(FindPastDayWord("上周和昨天")), "上周");
  EXPECT_EQ(Show(FindPastDayWord("last  night")), "") << "one space, as in the pattern";
}

TEST(FindServerErrorCodes, FindsWholeNumbersOnly) {
  EXPECT_EQ(Strings(FindServerErrorCodes("500 502, 5000 x503 503x 599")),
            (std::vector<std::string>{"500", "502", "599"}));
  EXPECT_EQ(Strings(FindServerErrorCodes("大量500，504")),
            (std::vector<std::string>{"500", "504"}));
  EXPECT_TRUE(FindServerErrorCodes("HTTP_500 5xx 404").empty());
}

TEST(FindNameTokens, EndsEachNameOnALetterOrDigit) {
  EXPECT_EQ(Strings(FindNameTokens("payment-service. 和 x--y")),
            (std::vector<std::string>{"payment-service", "x--y"}));
  EXPECT_EQ(Strings(FindNameTokens("a1- 1abc a")), (std::vector<std::string>{"a1", "abc"}));
  EXPECT_EQ(Strings(FindNameTokens("订单order-service服务")),
            std::vector<std::string>{"order-service"});
  EXPECT_EQ(Strings(FindNameTokens("caf\xC3\xA9-db")), (std::vector<std::string>{"caf", "db"}));
  EXPECT_TRUE(FindNameTokens("a-- _b").empty());
}

// 100 KB of what overflowed the regexes' stack: each scanner runs through
// it in linear time (a quadratic one would take minutes here).
TEST(QuestionScanners, HostileInputsFinishWithSensibleResults) {
  constexpr std::size_t kBytes = 100 * 1024;
  auto start = std::chrono::steady_clock::now();

  std::string letters = Repeat("x", kBytes);
  EXPECT_EQ(FindNameTokens(letters), std::vector<std::string_view>{letters});
  std::string digits = Repeat("1234567890", kBytes);
  EXPECT_EQ(Show(FindChineseHour(digits + "点")), "90");
  EXPECT_TRUE(FindServerErrorCodes(digits).empty());
  EXPECT_EQ(Show(FindClockHour(digits)), "");
  EXPECT_EQ(Show(FindChineseDate(digits)), "");
  std::string dashed = Repeat("a1-", kBytes);
  ASSERT_EQ(FindNameTokens(dashed).size(), 1u);
  EXPECT_EQ(FindNameTokens(dashed).front().size(), dashed.size() - 1);
  std::string lasts = Repeat("last ", kBytes);
  EXPECT_EQ(Show(FindEnglishLookback(lasts)), "");
  EXPECT_EQ(Show(FindEnglishLookback(lasts + "2 hours")), "2|hour");
  EXPECT_EQ(Show(FindPastDayWord(lasts)), "");
  EXPECT_EQ(Show(FindEnglishHour(Repeat("at ", kBytes))), "");
  std::string spaces = "最近" + Repeat(" ", kBytes);
  EXPECT_EQ(Show(FindChineseLookback(spaces + "5 分钟")), "5|minute");
  std::string chinese = Repeat("最近过去近5点月日", kBytes);
  EXPECT_EQ(Show(FindChineseLookback(chinese)), "");
  EXPECT_EQ(Show(FindChineseHour(chinese)), "5");
  EXPECT_EQ(Show(FindChineseDate(Repeat("12 月", kBytes))), "");

  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace diagd::model::offline
