#include "tools/documents/search_terms.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/text.h"

namespace diagd::tools::documents {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

std::vector<std::string> Terms(std::string_view text) {
  std::vector<std::string> out;
  ForEachTerm(text, [&](std::string_view term, std::size_t offset, std::size_t length) {
    EXPECT_LE(offset + length, text.size());
    out.emplace_back(term);
    return true;
  });
  return out;
}

TEST(SearchTerms, SplitsChineseIntoCharactersAndBigrams) {
  EXPECT_THAT(Terms("连接池超时"),
              ElementsAre("连接", "连", "接池", "接", "池超", "池", "超时", "超", "时"));
}

TEST(SearchTerms, QueriesUseBigramsOfLongerRunsAndLoneCharacters) {
  EXPECT_THAT(QueryTerms("订单超时 锁"), ElementsAre("订单", "单超", "超时", "锁"));
}

TEST(SearchTerms, FoldsCaseAndStemsEnglish) {
  EXPECT_THAT(Terms("Timeouts RESTARTING Pods"), ElementsAre("timeout", "restart", "pod"));
  EXPECT_THAT(Terms("ＣＰＵ"), ElementsAre("cpu"));
}

TEST(SearchTerms, GivesIdentifiersAsWholeAndParts) {
  EXPECT_THAT(
      Terms("etcd_disk_wal HikariPool-1"),
      ElementsAre("etcd_disk_wal", "etcd", "disk", "wal", "hikaripool-1", "hikaripool", "1"));
  // A sentence's full stop is not a connector.
  EXPECT_THAT(Terms("restart etcd. Then"), ElementsAre("restart", "etcd", "then"));
}

TEST(SearchTerms, MixedScriptsSplitAtTheScriptBoundary) {
  EXPECT_THAT(Terms("订单服务500错误"), ElementsAre("订单", "订", "单服", "单", "服务", "服", "务",
                                                    "500", "错误", "错", "误"));
}

TEST(SearchTerms, QueryDropsCommonWordsUnlessNothingElseIsLeft) {
  EXPECT_THAT(QueryTerms("how does the etcd leader election work"),
              UnorderedElementsAre("etcd", "leader", "elect", "work"));
  EXPECT_THAT(QueryTerms("如何排查"), ElementsAre("何排", "排查"));
  EXPECT_THAT(QueryTerms("what is this"), Not(testing::IsEmpty()));
  EXPECT_THAT(QueryTerms("?? !!"), testing::IsEmpty());
}

TEST(SearchTerms, ExcerptIsAnExactSubstringCentredOnTheFirstHit) {
  std::string text = std::string(300, 'x') + " 连接池耗尽 " + std::string(300, 'y');
  std::string excerpt = ExcerptAround(text, {"耗尽"}, 41);
  EXPECT_NE(text.find(excerpt), std::string::npos);
  EXPECT_NE(excerpt.find("耗尽"), std::string::npos);
  EXPECT_LE(text::CodePointCount(excerpt), 41u);
  std::size_t hit = excerpt.find("耗尽");
  EXPECT_GT(hit, 10u);  // not pushed to an edge
  EXPECT_LT(excerpt.size() - hit, excerpt.size() - 10);
}

TEST(SearchTerms, ExcerptFindsStemmedFormsAndStartsAtTheTopWithoutAHit) {
  std::string text = "Intro line.\nThe pods keep Restarting after OOM.\n";
  EXPECT_EQ(ExcerptAround(text, {"restart"}, 14), "p Restarting a");
  EXPECT_EQ(ExcerptAround(text, {"nothing"}, 11), "Intro line.");
  EXPECT_EQ(ExcerptAround(text, {}, 1000), "Intro line.\nThe pods keep Restarting after OOM.");
}

TEST(SearchTerms, ExcerptNearTheEndUsesTheRoomBeforeTheHit) {
  std::string text = "abcdefghij klmnop timeout";
  EXPECT_EQ(ExcerptAround(text, {"timeout"}, 15), "klmnop timeout");
}

}  // namespace
}  // namespace diagd::tools::documents
