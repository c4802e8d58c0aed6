#include "tools/metrics/promql_text.h"

#include <gtest/gtest.h>

namespace diagd::tools::metrics {
namespace {

TEST(NormalizePromqlTest, LabelMatchersInASelectorAreOneSetWhateverTheirOrderAndSpacing) {
  EXPECT_EQ(NormalizePromql("up{b=\"1\",a=\"2\"}"), NormalizePromql("up{ a=\"2\" , b=\"1\" }"));
  EXPECT_EQ(NormalizePromql("up{b=\"1\",a=\"2\"}"), "up{a=\"2\",b=\"1\"}");
  EXPECT_NE(NormalizePromql("up{a=\"2\"}"), NormalizePromql("up{a=\"3\"}"));
  EXPECT_NE(NormalizePromql("up{a=\"2\"}"), NormalizePromql("up{a!=\"2\"}"));
  EXPECT_EQ(NormalizePromql("up{a=~\"x.*\" , }"), "up{a=~\"x.*\"}");  // a trailing comma
}

TEST(NormalizePromqlTest, EachSelectorIsSortedOnItsOwn) {
  EXPECT_EQ(NormalizePromql("rate(a{z=\"1\",y=\"2\"}[5m]) / on(k) b{d=\"1\", c=\"2\"}"),
            "rate(a{y=\"2\",z=\"1\"}[5m])/on(k)b{c=\"2\",d=\"1\"}");
}

TEST(NormalizePromqlTest, WhiteSpaceGoesExceptBetweenWordsAndCommentsGo) {
  EXPECT_EQ(NormalizePromql("sum  by (pool) (\n  rate(x[5m])\t)"),
            NormalizePromql("sum by(pool)(rate(x[5m]))"));
  EXPECT_EQ(NormalizePromql("a and b"), "a and b");
  EXPECT_NE(NormalizePromql("a and b"), NormalizePromql("aandb"));
  EXPECT_EQ(NormalizePromql("x # the pool\n + 1"), "x+1");
  EXPECT_EQ(NormalizePromql("x offset 5m"), "x offset 5m");
}

TEST(NormalizePromqlTest, StringLiteralsAreKeptAsWrittenWithTheirSpacesEscapesAndMarks) {
  EXPECT_EQ(NormalizePromql("m{route=\"POST  /api\"}"), "m{route=\"POST  /api\"}");
  EXPECT_NE(NormalizePromql("m{route=\"POST  /api\"}"), NormalizePromql("m{route=\"POST /api\"}"));
  // A quote, a comma, a brace or a # inside a string is text, not syntax.
  EXPECT_EQ(NormalizePromql("m{b=\"x\\\",}#\", a='y,{' , c=`raw\\`}"),
            "m{a='y,{',b=\"x\\\",}#\",c=`raw\\`}");
}

TEST(NormalizePromqlTest, BrokenTextIsStillNormalizedWithoutLosingIt) {
  EXPECT_EQ(NormalizePromql("up{b=\"1\", a=\"2"), "up{a=\"2,b=\"1\"");
  EXPECT_EQ(NormalizePromql("up{b=\"1\", a"), "up{a,b=\"1\"");
  EXPECT_EQ(NormalizePromql("}{"), "}{");
  EXPECT_EQ(NormalizePromql("   "), "");
}

}  // namespace
}  // namespace diagd::tools::metrics
