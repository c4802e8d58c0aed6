#include "core/text.h"

#include <gtest/gtest.h>

namespace diagd::text {
namespace {

TEST(Text, CollapsesUnicodeWhitespaceIncludingIdeographicSpace) {
  EXPECT_EQ(CollapseWhitespace("  订单服务\u3000 500\t\n 连接池  "), "订单服务 500 连接池");
  EXPECT_EQ(CollapseWhitespace(""), "");
  EXPECT_EQ(CollapseWhitespace(" \t "), "");
}

TEST(Text, NfcComposesDecomposedCharacters) {
  // "e" + combining acute accent -> "é"
  EXPECT_EQ(Nfc("e\u0301"), "\u00e9");
}

TEST(Text, CaseFoldIgnoresCaseAcrossScripts) {
  EXPECT_EQ(CaseFold("HikariPool"), CaseFold("hikaripool"));
  EXPECT_EQ(CaseFold("ÄBC"), CaseFold("äbc"));
}

TEST(Text, TruncatesOnCodePointBoundaries) {
  bool truncated = false;
  EXPECT_EQ(TruncateCodePoints("订单超时", 2, &truncated), "订单");
  EXPECT_TRUE(truncated);
  EXPECT_EQ(TruncateCodePoints("订单", 5, &truncated), "订单");
  EXPECT_FALSE(truncated);
  // Each of these characters is 3 bytes: 7 bytes hold two of them.
  EXPECT_EQ(TruncateBytes("订单超时", 7, &truncated), "订单");
  EXPECT_TRUE(truncated);
}

TEST(Text, BlankAndInPlaceBound) {
  EXPECT_TRUE(IsBlank(" \t\u3000"));
  EXPECT_TRUE(IsBlank(""));
  EXPECT_FALSE(IsBlank(" x "));
  std::string s = "订单超时";
  EXPECT_FALSE(BoundCodePoints(s, 4));
  EXPECT_TRUE(BoundCodePoints(s, 3));
  EXPECT_EQ(s, "订单超");
  std::string overlong = "\xC0\xAF";  // an overlong "/"
  EXPECT_FALSE(IsValidUtf8(overlong));
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));  // a surrogate
}

TEST(Text, ReplacesIllFormedBytes) {
  std::string bad = "ok\xff\xfe";
  EXPECT_FALSE(IsValidUtf8(bad));
  std::string clean = SanitizeUtf8(bad);
  EXPECT_TRUE(IsValidUtf8(clean));
  EXPECT_EQ(clean, "ok\uFFFD\uFFFD");
  EXPECT_EQ(CodePointCount(bad), 4u);
}

TEST(Text, TruncateBytesNeverExceedsBoundEvenWithReplacements) {
  std::string bad(10, '\xff');
  bool truncated = false;
  auto out = TruncateBytes(bad, 10, &truncated);
  EXPECT_LE(out.size(), 10u);
  EXPECT_TRUE(truncated);
  EXPECT_TRUE(IsValidUtf8(out));
}

}  // namespace
}  // namespace diagd::text
