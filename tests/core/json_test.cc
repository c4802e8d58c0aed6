#include "core/json.h"

#include <gtest/gtest.h>

#include "core/json_writer.h"
#include "core/text.h"

#include <random>

namespace diagd::json {
namespace {

TEST(Json, ParsesOneDocument) {
  auto v = Parse(R"({"a": [1, "订单"]})");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->at("a").at(1).as_string(), "订单");
}

// A parsed tree lives in an arena shared by its values: a part taken out
// of it (moved, or copied: a copy uses the same arena) outlives the tree it
// came from, and a long document fills more than the first block.
TEST(Json, APartTakenOutOfAParsedTreeOutlivesTheTree) {
  boost::json::value moved;
  boost::json::value copied;
  const std::string long_text(3000, 'x');
  {
    auto v = Parse(R"({"a": {"b": "a string longer than any small buffer", "c": [1, 2, 3]},
                       "d": ")" + long_text + R"("})");
    ASSERT_TRUE(v.has_value());
    moved = std::move(v->as_object()["a"]);
    copied = v->at("d");
  }
  EXPECT_EQ(moved.at("b").as_string(), "a string longer than any small buffer");
  EXPECT_EQ(moved.at("c").at(2).as_int64(), 3);
  EXPECT_EQ(copied.as_string(), long_text);
  moved.as_object()["e"] = "added after the tree was gone";
  EXPECT_EQ(Serialize(moved.at("e")), R"("added after the tree was gone")");
}

TEST(Json, RejectsTrailingContentCommentsAndGarbageWithoutEchoingInput) {
  EXPECT_FALSE(Parse(R"({"a":1} {"b":2})").has_value());
  EXPECT_FALSE(Parse(R"({"a":1,})").has_value());
  EXPECT_FALSE(Parse("// c\n{}").has_value());
  auto bad = Parse("secret-token-value");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message.find("secret"), std::string::npos);
}

TEST(Json, CanonicalSortsKeysRecursively) {
  auto a = Parse(R"({"b": {"y": 1, "x": 2}, "a": [3, {"d": 4, "c": 5}]})");
  auto b = Parse(R"({"a": [3, {"c": 5, "d": 4}], "b": {"x": 2, "y": 1}})");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(Canonical(*a), Canonical(*b));
  EXPECT_EQ(Canonical(*a), R"({"a":[3,{"c":5,"d":4}],"b":{"x":2,"y":1}})");
}

}  // namespace
}  // namespace diagd::json

namespace diagd::json {
namespace {

TEST(Json, WritesDoublesInShortestReadableForm) {
  boost::json::array numbers{0.5, 42.0, 1e20, 3.14159, std::int64_t{7}};
  EXPECT_EQ(Serialize(numbers), "[0.5,42,1e+20,3.14159,7]");
}

}  // namespace
}  // namespace diagd::json

namespace diagd::json {
namespace {

TEST(Json, EscapesQuotesBackslashesAndControlCharactersAndRoundTrips) {
  boost::json::value v = {{"k\"ey", "a\"b\\c\nd\te\x01 订单"}};
  std::string text = Serialize(v);
  EXPECT_EQ(text, "{\"k\\\"ey\":\"a\\\"b\\\\c\\nd\\te\\u0001 订单\"}");
  auto back = Parse(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, v);
}

}  // namespace
}  // namespace diagd::json

namespace diagd::json {
namespace {

TEST(Json, EscapingRoundTripsRandomTextAtEveryPosition) {
  // Characters that need escaping, placed after long clean runs and at odd
  // offsets, so the 8-bytes-at-a-time scan is exercised on every alignment.
  std::mt19937 rng(42);
  const std::string alphabet[] = {"a", "Z", " ", "订", "\"", "\\", "\n", "\x01", "\x1f", "/", "~"};
  for (int round = 0; round < 2000; ++round) {
    std::string s;
    int length = static_cast<int>(rng() % 40);
    for (int i = 0; i < length; ++i) s += alphabet[rng() % std::size(alphabet)];
    boost::json::value v = boost::json::string(s);
    auto back = Parse(Serialize(v));
    ASSERT_TRUE(back.has_value()) << Serialize(v);
    ASSERT_EQ(back->as_string(), s);
    std::string escaped;
    AppendEscaped(s, escaped);
    std::string read = "kept ";
    ASSERT_TRUE(ReadEscaped(escaped, read)) << escaped;
    ASSERT_EQ(read, "kept " + s) << escaped;
  }
}

// Every byte on its own and after a clean run of 8 reads back as it was
// written (an encoded tool result is read back so at the end of a run).
TEST(Json, ReadEscapedReadsBackWhatEscapingWroteForEveryByte) {
  for (int c = 0; c < 256; ++c) {
    for (const std::string& s : {std::string(1, static_cast<char>(c)),
                                 "abcdefgh" + std::string(1, static_cast<char>(c)) + "ij"}) {
      std::string escaped;
      AppendEscaped(s, escaped);
      std::string read;
      ASSERT_TRUE(ReadEscaped(escaped, read)) << "byte " << c;
      ASSERT_EQ(read, s) << "byte " << c;
    }
  }
  std::string empty;
  EXPECT_TRUE(ReadEscaped(R"("")", empty));
  EXPECT_EQ(empty, "");
}

// What AppendEscaped never writes is refused, for a full JSON reader.
TEST(Json, ReadEscapedRefusesWhatEscapingNeverWrites) {
  for (std::string_view literal :
       {"", "\"", "abc", "\"abc", "\"abc\\\"", R"("\u00e9")", R"("\u4e2d")", R"("\ud83d\ude00")",
        R"("\u00")", R"("\x41")"}) {
    std::string read;
    EXPECT_FALSE(ReadEscaped(literal, read)) << literal;
  }
  std::string read;
  ASSERT_TRUE(ReadEscaped(R"("a\/b\u001F\u0041")", read));
  EXPECT_EQ(read, "a/b\x1F" "A");
}

}  // namespace
}  // namespace diagd::json
