// The subjects a question names (docs/specs/release.md): instance names in Latin
// letters, configured names and aliases; never quantities, times or plain
// words.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "release/subject_check.h"
#include "release/subject_names.h"

namespace diagd::release {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Names(const std::string& question,
                               const SubjectVocabulary& vocabulary = {}) {
  std::vector<std::string> names;
  for (const auto& subject : SubjectsOf({question}, vocabulary)) names.push_back(subject.name);
  return names;
}

TEST(SubjectNamesTest, InstanceNamesWithADigitOrAJoinerAreSubjects) {
  EXPECT_THAT(Names("Why is order-events lag growing on points-consumer?"),
              ElementsAre("order-events", "points-consumer"));
  EXPECT_THAT(Names("POST /v2/invoices 报错，db-7 还活着吗？"), ElementsAre("/v2/invoices", "db-7"));
  EXPECT_THAT(Names("after v2.3.1 shipped, pay_ledger and app.cfg changed"),
              ElementsAre("v2.3.1", "pay_ledger", "app.cfg"));
}

TEST(SubjectNamesTest, PlainWordsAndBareNumbersAreNot) {
  EXPECT_THAT(Names("Why does MySQL behind the Kafka API return 500 for 3 minutes?"), IsEmpty());
  EXPECT_THAT(Names("订单服务为什么报 500？"), IsEmpty());
  EXPECT_THAT(Names("10.0.0.7 和 1.2.3 是什么"), IsEmpty());
  // Markup pasted with the question: its tags name nothing.
  EXPECT_THAT(Names("<script>alert(1)</script> 支付为什么失败？"), IsEmpty());
}

TEST(SubjectNamesTest, QuantitiesAndTimesAreNot) {
  EXPECT_THAT(Names("5xx and 4xx rose, 50x too, p99 is 500ms, timeouts after 30s for 2h, "
                    "disk 10GB, 1.5k rps, 2h30m, 3x slower, at 2pm, 1st time"),
              IsEmpty());
  EXPECT_THAT(Names("since 2026-11-29T09:55:00Z, or 09:10, or 10:30am, 09:55:00.5Z"), IsEmpty());
  EXPECT_THAT(Names("HTTP/1.1 vs HTTP/2 vs TLSv1.3, e.g. utf-8 on x86_64, read/write"), IsEmpty());
}

TEST(SubjectNamesTest, AUrlNamesItsHostAndPathNotItsScheme) {
  EXPECT_THAT(Names("https://pay-api.internal:8443/v1/charge is down"),
              ElementsAre("pay-api.internal", "/v1/charge"));
  EXPECT_THAT(Names("http://gateway/"), IsEmpty());
}

TEST(SubjectNamesTest, PortsKeysAndPunctuationAreCutOff) {
  EXPECT_THAT(Names("payment-db:3306 down. service:order-api, db-7."),
              ElementsAre("payment-db", "order-api", "db-7"));
  EXPECT_THAT(Names("order-service/db-7"), ElementsAre("order-service", "db-7"));
}

TEST(SubjectNamesTest, EachSubjectOnceWithoutCaseAcrossQuestions) {
  auto subjects = SubjectsOf({"Why is DB-7 slow?", "db-7 again, and order-events"}, {});
  ASSERT_EQ(subjects.size(), 2u);
  EXPECT_EQ(subjects[0].name, "DB-7");
  EXPECT_EQ(subjects[1].name, "order-events");
}

TEST(SubjectNamesTest, ADottedVersionIsAlsoFoundWithoutItsV) {
  auto subjects = SubjectsOf({"v2.3.1 broke it"}, {});
  ASSERT_EQ(subjects.size(), 1u);
  EXPECT_THAT(subjects[0].forms, ElementsAre("v2.3.1", "2.3.1"));
  EXPECT_THAT(SubjectsOf({"v2 api"}, {}).at(0).forms, ElementsAre("v2"));
}

TEST(SubjectNamesTest, ConfiguredPlainNamesAreSubjectsAtWordBoundaries) {
  SubjectVocabulary vocabulary;
  vocabulary.topics = {"gateway"};
  vocabulary.datasources = {"orders"};
  vocabulary.tables = {"payments"};
  EXPECT_THAT(Names("Why do the Gateway and orders fail? payments 表呢", vocabulary),
              ElementsAre("Gateway", "orders", "payments"));
  EXPECT_THAT(Names("gatewayz ordersx", vocabulary), IsEmpty());
}

TEST(SubjectNamesTest, AnAliasNamesItsTopicOnceByItsLongestMatch) {
  SubjectVocabulary vocabulary;
  vocabulary.aliases = {{"订单", "order-service"}, {"订单服务", "order-service"}};
  auto subjects = SubjectsOf({"订单服务从 10 点开始大量 500，订单都失败了"}, vocabulary);
  ASSERT_EQ(subjects.size(), 1u);
  EXPECT_EQ(subjects[0].name, "订单服务");
  EXPECT_THAT(subjects[0].forms, ElementsAre("订单服务", "order-service"));
  EXPECT_THAT(Names("支付服务为什么慢", vocabulary), IsEmpty());
}

TEST(SubjectNamesTest, ANameIsContainedOnlyWhereNoLetterOrDigitContinuesIt) {
  EXPECT_TRUE(ContainsName("db-7 is down", "db-7"));
  EXPECT_TRUE(ContainsName("host=db-7:3306", "db-7"));
  EXPECT_FALSE(ContainsName("db-70 is down", "db-7"));
  EXPECT_FALSE(ContainsName("mydb-7", "db-7"));
  EXPECT_TRUE(ContainsName("get /v2/invoices/12", "/v2/invoices"));
  EXPECT_TRUE(ContainsName("调用订单服务超时", "订单服务"));
}

}  // namespace
}  // namespace diagd::release
