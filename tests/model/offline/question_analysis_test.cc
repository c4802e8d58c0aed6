#include "model/offline/question_analysis.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/text.h"
#include "runtime/fiber.h"

namespace diagd::model::offline {
namespace {

const std::vector<std::string> kTopics = {"gateway", "inventory-service", "order-service",
                                          "payment-db", "payment-service"};

bool HasSymptom(const QuestionAnalysis& a, const std::string& word) {
  for (const auto& s : a.symptoms) {
    if (s.word == word) return true;
  }
  return false;
}

TEST(AnalyzeQuestion, MatchesChineseServiceWordsToTopicsWithSymptomAndHour) {
  auto a = AnalyzeQuestion("订单服务从 10 点左右开始大量 500，为什么？", kTopics);
  EXPECT_EQ(a.topics, std::vector<std::string>{"order-service"});
  EXPECT_EQ(a.service_words, std::vector<std::string>{"订单服务"});
  EXPECT_TRUE(HasSymptom(a, "500"));
  EXPECT_EQ(a.clock_hour, 10);
  EXPECT_FALSE(a.lookback_minutes.has_value());
  EXPECT_TRUE(a.unknown_services.empty());
}

TEST(AnalyzeQuestion, KeepsANamedServiceWithoutTopicAsUnknown) {
  auto a = AnalyzeQuestion("user-service 昨天（11 月 28 日）晚上为什么频繁 Full GC、最后 OOM？",
                           kTopics);
  EXPECT_TRUE(a.topics.empty());
  EXPECT_EQ(a.unknown_services, std::vector<std::string>{"user-service"});
  EXPECT_TRUE(HasSymptom(a, "Full GC"));
  EXPECT_TRUE(HasSymptom(a, "OOM"));
  EXPECT_FALSE(HasSymptom(a, "GC")) << "covered by Full GC";
  EXPECT_NE(a.past_day_text.find("昨天"), std::string::npos);
  EXPECT_NE(a.past_day_text.find("11 月 28 日"), std::string::npos);
}

TEST(AnalyzeQuestion, ExplicitTopicNamesComeInTheOrderWritten) {
  auto a = AnalyzeQuestion("10:02 的 payment-service 发布和下单失败有关系吗？", kTopics);
  EXPECT_EQ(a.topics, (std::vector<std::string>{"payment-service", "order-service"}));
  EXPECT_EQ(a.clock_hour, 10);
  EXPECT_TRUE(HasSymptom(a, "失败"));
}

TEST(AnalyzeQuestion, DatabaseWordsPointAtInfrastructureTopics) {
  auto a = AnalyzeQuestion("支付数据库为什么突然很慢", kTopics);
  ASSERT_FALSE(a.topics.empty());
  EXPECT_EQ(a.topics.front(), "payment-db");
  ASSERT_FALSE(a.symptoms.empty());
  EXPECT_TRUE(a.symptoms.front().slowness);
}

TEST(AnalyzeQuestion, EndUsersAreNoUserService) {
  auto a = AnalyzeQuestion("用户下单一直失败", kTopics);
  EXPECT_EQ(a.topics, std::vector<std::string>{"order-service"});
  EXPECT_TRUE(a.unknown_services.empty());
  auto named = AnalyzeQuestion("用户服务一直报错", kTopics);
  EXPECT_EQ(named.unknown_services, std::vector<std::string>{"用户服务"});
}

TEST(AnalyzeQuestion, ReadsLookbacksInChineseAndEnglish) {
  EXPECT_EQ(AnalyzeQuestion("最近一小时网关报错", kTopics).lookback_minutes, 60);
  EXPECT_EQ(AnalyzeQuestion("过去 30 分钟支付超时", kTopics).lookback_minutes, 30);
  EXPECT_EQ(AnalyzeQuestion("近半小时库存服务很慢", kTopics).lookback_minutes, 30);
  EXPECT_EQ(
      AnalyzeQuestion("why did the gateway fail in the last 2 hours", kTopics).lookback_minutes,
      120);
  EXPECT_EQ(AnalyzeQuestion("payment errors over the past hour", kTopics).lookback_minutes, 60);
}

TEST(AnalyzeQuestion, ReadsEnglishServicesSymptomsAndHours) {
  auto a = AnalyzeQuestion("Why does the payment service time out since 10am?", kTopics);
  EXPECT_EQ(a.topics, std::vector<std::string>{"payment-service"});
  EXPECT_EQ(a.clock_hour, 10);
  auto b = AnalyzeQuestion("Why are checkouts failing with 502 around 14?", kTopics);
  EXPECT_TRUE(b.topics.empty()) << "no checkout topic here";
  EXPECT_EQ(b.clock_hour, 14);
  EXPECT_TRUE(HasSymptom(b, "502"));
}

TEST(AnalyzeQuestion, AVagueQuestionNamesNothing) {
  auto a = AnalyzeQuestion("帮我看看怎么了", kTopics);
  EXPECT_FALSE(a.HasService());
  EXPECT_FALSE(a.HasSymptom());
}

TEST(AnalyzeQuestion, ReadsTimeWordsPastTheFirstKilobyte) {
  // A follow-up's context holds the earlier turns first.
  std::string earlier(1500, 'x');
  auto a = AnalyzeQuestion("订单服务报错 " + earlier + "\n时间是 10 点以后，最近 2 小时", kTopics);
  EXPECT_EQ(a.clock_hour, 10);
  EXPECT_EQ(a.lookback_minutes, 120);
}

TEST(AnalyzeQuestion, SaturatesAHugeCount) {
  EXPECT_EQ(AnalyzeQuestion("最近 99999999999999 天", kTopics).lookback_minutes, 1'000'000 * 1440);
  EXPECT_EQ(AnalyzeQuestion("last 99999999999999 minutes", kTopics).lookback_minutes, 1'000'000);
}

TEST(AnalyzeQuestion, KeepsTheFirstServiceWordsOfALongList) {
  std::string list;
  for (int i = 0; i < 300; ++i) list += "s" + std::to_string(i) + "-service ";
  auto a = AnalyzeQuestion(list, kTopics);
  EXPECT_EQ(a.unknown_services.size(), 64u);
  EXPECT_EQ(a.unknown_services.front(), "s0-service");
}

std::string Repeat(std::string_view piece, std::size_t bytes) {
  std::string out;
  while (out.size() < bytes) out += piece;
  return out;
}

// "why " + 2,000 letters, or "a1-" 700 times, would overflow a run's 512 KiB
// stack if regular expressions read the question. Here they, and
// 100 KB of worse, run on a fiber with a quarter of that.
TEST(AnalyzeQuestion, HostileQuestionsFitASmallFiberStack) {
  constexpr std::size_t kBytes = 100 * 1024;
  const std::vector<std::string> questions = {
      "why " + std::string(2000, 'x'),
      Repeat("a1-", 2100),
      Repeat("x", kBytes),
      Repeat("7", kBytes),
      Repeat("a1-", kBytes),
      Repeat("last ", kBytes),
      "订单服务 " + Repeat("最近超时 last 500 订单", kBytes),
  };
  std::vector<QuestionAnalysis> results(questions.size());
  {
    runtime::FiberPool pool(1, 128 * 1024);
    for (std::size_t i = 0; i < questions.size(); ++i) {
      ASSERT_TRUE(pool.Spawn([&, i] { results[i] = AnalyzeQuestion(questions[i], kTopics); }));
    }
  }  // waits for the fibers
  for (std::size_t i = 0; i + 1 < questions.size(); ++i) {
    EXPECT_FALSE(results[i].HasService()) << i;
    EXPECT_FALSE(results[i].HasSymptom()) << i;
    EXPECT_FALSE(results[i].lookback_minutes.has_value()) << i;
    EXPECT_FALSE(results[i].clock_hour.has_value()) << i;
  }
  const QuestionAnalysis& mixed = results.back();
  EXPECT_EQ(mixed.topics, std::vector<std::string>{"order-service"});
  EXPECT_TRUE(HasSymptom(mixed, "500"));
  EXPECT_TRUE(HasSymptom(mixed, "超时"));
}

TEST(TopicKinds, InfrastructureTopicsAreRecognisedByName) {
  EXPECT_TRUE(IsInfraTopic("payment-db"));
  EXPECT_TRUE(IsInfraTopic("redis-cart"));
  EXPECT_FALSE(IsInfraTopic("payment-service"));
  EXPECT_EQ(TopicStem("payment-db"), "payment");
}

TEST(AnalyzeQuestion, ALetterWhoseCaseFoldIsLongerNeverCutsAServiceWord) {
  // ŉ (2 bytes) folds to ʼn (3): offsets found in the folded question no
  // longer fit the question as written (found by the question_analysis
  // fuzz target: invalid UTF-8, then std::out_of_range).
  for (const std::string question : {"ŉ风控", "ŉŉŉŉŉŉŉŉŉŉ order", "ŉ支付服务超时"}) {
    QuestionAnalysis analysis = AnalyzeQuestion(question, {"risk-service", "order-service"});
    ASSERT_FALSE(analysis.service_words.empty()) << question;
    for (const auto& word : analysis.service_words) {
      EXPECT_TRUE(text::IsValidUtf8(word)) << question;
    }
  }
  EXPECT_EQ(AnalyzeQuestion("ŉ风控", {"risk-service"}).service_words.front(), "风控");
}

}  // namespace
}  // namespace diagd::model::offline

namespace diagd::model::offline {
namespace {

TEST(AnalyzeQuestion, ReadsTheMinuteAndTheEveningOfAnHour) {
  auto minute = AnalyzeQuestion("结算服务从 18 点 6 分左右开始报错", {"gateway"});
  ASSERT_TRUE(minute.clock_hour && minute.clock_minute);
  EXPECT_EQ(*minute.clock_hour, 18);
  EXPECT_EQ(*minute.clock_minute, 6);
  auto clock = AnalyzeQuestion("errors since 10:02", {"gateway"});
  ASSERT_TRUE(clock.clock_minute.has_value());
  EXPECT_EQ(*clock.clock_minute, 2);
  auto evening = AnalyzeQuestion("晚上 8 点以后很多用户登录失败", {"gateway"});
  ASSERT_TRUE(evening.clock_hour.has_value());
  EXPECT_EQ(*evening.clock_hour, 20);
  EXPECT_FALSE(evening.clock_minute.has_value());
}

TEST(AnalyzeQuestion, CantSaysItFailsAndAHostIsAThingToSearchFor) {
  auto cant = AnalyzeQuestion("Since around 18:58 we can't send notifications. Why?", {"gateway"});
  EXPECT_TRUE(cant.HasConcreteSymptom());
  auto host = AnalyzeQuestion("Why do all calls to api.unionbank.example.com fail since 20:41?",
                              {"gateway", "payment-service"});
  EXPECT_EQ(host.things, std::vector<std::string>{"api.unionbank.example.com"});
}

}  // namespace
}  // namespace diagd::model::offline

namespace diagd::model::offline {
namespace {

TEST(AnalyzeQuestion, TheNameWrittenBeatsTheWordForTheSameThing) {
  // 库存 would fit cert-inventory by its stem; the question names the
  // service itself, which has no topic here.
  auto a = AnalyzeQuestion("为什么库存服务（inventory-service）从 19:37 左右起预占库存失败？",
                           {"gateway", "cert-inventory", "prod-services"});
  EXPECT_TRUE(a.topics.empty());
  EXPECT_EQ(a.unknown_services, std::vector<std::string>{"inventory-service"});
}

}  // namespace
}  // namespace diagd::model::offline
