#include "core/text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

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


// The checks skip ASCII 8 bytes at a time: an ill-formed byte is found in
// any position of a word, of the tail after the last whole word, or
// between two multi-byte characters.
TEST(Text, FindsAnIllFormedByteWhereverItSitsAmongAsciiWords) {
  for (std::size_t length : {1u, 7u, 8u, 9u, 16u, 23u, 40u}) {
    for (std::size_t at = 0; at < length; ++at) {
      std::string s(length, 'a');
      s[at] = '\xff';
      EXPECT_FALSE(IsValidUtf8(s)) << length << " bytes, bad at " << at;
      EXPECT_EQ(CodePointCount(s), length);
      std::string bounded = s;
      BoundCodePoints(bounded, length);
      EXPECT_TRUE(IsValidUtf8(bounded)) << length << " bytes, bad at " << at;
      EXPECT_EQ(bounded.find("\uFFFD"), at);
    }
    EXPECT_TRUE(IsValidUtf8(std::string(length, 'a')));
  }
  EXPECT_FALSE(IsValidUtf8("0123456789abcdef\xE8\xAE"));  // a character cut short at the end
  EXPECT_TRUE(IsValidUtf8("0123456789abcdef\u8ba2\u5355 timeout 01234567"));
}

TEST(Text, CountsAndBoundsCodePointsAcrossAsciiWordsAndCharacters) {
  const std::string mixed = "payment-service 连接池 exhausted after 30000ms 超时";  // 46 code points
  EXPECT_EQ(CodePointCount(mixed), 46u);
  for (std::size_t max = 0; max <= 48; ++max) {
    std::string s = mixed;
    bool cut = BoundCodePoints(s, max);
    EXPECT_EQ(cut, max < 46) << max;
    EXPECT_EQ(CodePointCount(s), std::min<std::size_t>(max, 46)) << max;
    EXPECT_EQ(mixed.rfind(s, 0), 0u) << max;  // always a prefix
    EXPECT_EQ(TruncateCodePoints(mixed, max), s) << max;
  }
  // Longer in bytes than the bound, within it in code points: kept whole.
  std::string chinese = "订单服务大量五百错误";  // 10 code points, 30 bytes
  EXPECT_FALSE(BoundCodePoints(chinese, 10));
  EXPECT_EQ(chinese, "订单服务大量五百错误");
}

}  // namespace
}  // namespace diagd::text

namespace diagd::text {
namespace {

// The one rule for ill-formed UTF-8: each byte that does not start a
// well-formed sequence is one code point, U+FFFD, one byte long.
TEST(Text, DecodesEachCodePointAndReadsEveryIllFormedByteAsOneReplacement) {
  struct Case {
    std::string bytes;
    char32_t value;
    std::size_t length;
    bool well_formed;
  };
  for (const Case& c : {
           Case{"a", U'a', 1, true},
           Case{"\xC3\xA9", U'\u00E9', 2, true},
           Case{"\xE4\xB8\xAD", U'\u4E2D', 3, true},
           Case{"\xF0\x9F\x98\x80", U'\U0001F600', 4, true},
           Case{"\x80", kReplacementCharacter, 1, false},          // a stray continuation
           Case{"\xC0\xAF", kReplacementCharacter, 1, false},      // overlong '/'
           Case{"\xE0\x80\xAF", kReplacementCharacter, 1, false},  // overlong, three bytes
           Case{"\xED\xA0\x80", kReplacementCharacter, 1, false},  // a surrogate
           Case{"\xF4\x90\x80\x80", kReplacementCharacter, 1, false},  // above U+10FFFF
           Case{"\xF5\x80\x80\x80", kReplacementCharacter, 1, false},
           Case{"\xE4\xB8", kReplacementCharacter, 1, false},  // cut short
       }) {
    CodePoint cp = DecodeCodePoint(c.bytes, 0);
    EXPECT_EQ(cp.value, c.value) << c.bytes;
    EXPECT_EQ(cp.length, c.length) << c.bytes;
    EXPECT_EQ(cp.well_formed, c.well_formed) << c.bytes;
  }
}

TEST(Text, StepsForwardAndBackByTheSameBoundaries) {
  const std::string s = "a\xE4\xB8\xAD\x80\xC3\xA9\xE4\xB8" "b\xF0\x9F\x98\x80";
  std::vector<std::size_t> forward{0};
  while (forward.back() < s.size()) forward.push_back(NextCodePoint(s, forward.back()));
  EXPECT_EQ(forward, (std::vector<std::size_t>{0, 1, 4, 5, 7, 8, 9, 10, 14}));
  std::vector<std::size_t> backward{s.size()};
  while (backward.back() > 0) backward.push_back(PreviousCodePoint(s, backward.back()));
  std::reverse(backward.begin(), backward.end());
  EXPECT_EQ(backward, forward);
  EXPECT_EQ(CodePointCount(s), forward.size() - 1);
}

TEST(Text, AppendsScalarsAndReplacesWhatIsNone) {
  std::string out;
  for (char32_t cp : {U'a', U'\u4E2D', U'\U0001F600', char32_t{0xD800}, char32_t{0x110000}}) {
    AppendCodePoint(out, cp);
  }
  EXPECT_EQ(out, "a\xE4\xB8\xAD\xF0\x9F\x98\x80\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace diagd::text
