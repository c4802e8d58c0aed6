#include "tools/logs/log_query.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "core/text.h"

namespace diagd::tools::logs {
namespace {

// Whether `query` selects an event with this message, level and service.
bool Selects(std::string_view query, std::string_view message, std::string_view level = "",
             std::string_view service = "") {
  auto parsed = ParseLogQuery(query);
  EXPECT_TRUE(parsed) << query << ": " << (parsed ? "" : parsed.error().message);
  if (!parsed) return false;
  MessageMatcher matcher(*parsed);
  return LevelMatches(*parsed, level) && ServiceMatches(*parsed, text::CaseFold(service)) &&
         matcher.Matches(message);
}

std::string Rejection(std::string_view query) {
  auto parsed = ParseLogQuery(query);
  return parsed ? "accepted" : parsed.error().message;
}

TEST(LogQuery, EmptyQuerySelectsEveryEvent) {
  EXPECT_TRUE(Selects("", "anything"));
  EXPECT_TRUE(Selects("   ", "anything", "DEBUG", "x"));
  EXPECT_TRUE(Selects("", "", "", ""));
}

TEST(LogQuery, TermsAreAndedCaseInsensitiveSubstringsOfTheMessage) {
  EXPECT_TRUE(Selects("timeout connection", "Connection TIMEOUT after 3000ms"));
  EXPECT_FALSE(Selects("timeout refused", "Connection timeout after 3000ms"));
  EXPECT_TRUE(Selects("time", "Connection timeout")) << "substrings, not words";
  EXPECT_FALSE(Selects("orders", "timeout", "ERROR", "orders")) << "terms look at the message only";
}

TEST(LogQuery, QuotedPhraseMatchesExactlyAsWrittenButForCase) {
  EXPECT_TRUE(Selects("\"connection is not available\"",
                      "HikariPool-1 - Connection is not available, request timed out"));
  EXPECT_FALSE(Selects("\"connection not available\"", "Connection is not available"));
  EXPECT_FALSE(Selects("\"a  b\"", "a b")) << "spaces inside a phrase are kept";
  EXPECT_TRUE(Selects(R"("say \"hi\"")", R"(they say "hi" twice)")) << "escaped quote";
  EXPECT_TRUE(Selects(R"("C:\\temp")", R"(wrote C:\temp\x)")) << "escaped backslash";
}

TEST(LogQuery, MinusExcludesTermsAndPhrases) {
  EXPECT_TRUE(Selects("timeout -healthcheck", "upstream timeout"));
  EXPECT_FALSE(Selects("timeout -healthcheck", "healthcheck timeout"));
  EXPECT_FALSE(Selects("-\"GET /ping\"", "10.0.0.1 GET /ping 200"));
  EXPECT_TRUE(Selects("-\"GET /ping\"", "10.0.0.1 GET /pong 200"));
  EXPECT_TRUE(Selects("a-b", "x a-b y")) << "a dash inside a term is text";
}

TEST(LogQuery, LevelMatchesTheNormalizedLevelInAnyCase) {
  EXPECT_TRUE(Selects("level:ERROR", "x", "ERROR"));
  EXPECT_TRUE(Selects("level:error", "x", "ERROR"));
  EXPECT_TRUE(Selects("LEVEL:Warning", "x", "WARN")) << "WARNING is WARN";
  EXPECT_FALSE(Selects("level:ERROR", "x", "WARN"));
  EXPECT_FALSE(Selects("level:ERROR", "x", "")) << "an event without level has none";
  EXPECT_TRUE(Selects("level:warn,error", "x", "ERROR")) << "a comma lists alternatives";
  EXPECT_TRUE(Selects("-level:INFO", "x", "")) << "exclusion keeps events without level";
  EXPECT_FALSE(Selects("-level:info", "x", "INFO"));
  EXPECT_TRUE(Selects("level:notice", "x", "NOTICE")) << "any level a record writes";
}

TEST(LogQuery, ServiceIsACaseInsensitiveExactName) {
  EXPECT_TRUE(Selects("service:order-service", "x", "", "Order-Service"));
  EXPECT_FALSE(Selects("service:order", "x", "", "order-service")) << "not a substring";
  EXPECT_FALSE(Selects("service:orders", "x", "", ""));
  EXPECT_TRUE(Selects("service:a,orders", "x", "", "orders"));
  EXPECT_FALSE(Selects("-service:gateway", "x", "", "gateway"));
  EXPECT_TRUE(Selects("service:\"order service\"", "x", "", "Order Service"));
  EXPECT_TRUE(Selects("level:ERROR service:gw timeout", "read timeout", "ERROR", "gw"));
  EXPECT_FALSE(Selects("level:ERROR service:gw timeout", "read timeout", "ERROR", "db"));
}

TEST(LogQuery, ChineseMatchesAsSubstring) {
  EXPECT_TRUE(Selects("超时", "调用 payment-db 连接超时 3000ms"));
  EXPECT_TRUE(Selects("连接池 耗尽", "订单服务连接池已耗尽"));
  EXPECT_TRUE(Selects("连接池\xE3\x80\x80耗尽", "订单服务连接池已耗尽"))
      << "ideographic space separates";
  EXPECT_FALSE(Selects("\"连接池耗尽\"", "连接池已耗尽"));
  EXPECT_TRUE(Selects("hikari 超时", "HikariPool 获取连接超时"));
}

TEST(LogQuery, NonAsciiCaseFolds) {
  EXPECT_TRUE(Selects("straße", "STRASSE gesperrt")) << "full case folding";
  EXPECT_TRUE(Selects("ÉCHEC", "échec de connexion"));
}

std::string Utf8(char32_t cp) {
  std::string out;
  out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
  out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
  out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  return out;
}

// The fast fold must agree with utf8proc's: every code point said to be
// fold-stable folds to itself, alone and between letters.
TEST(LogQuery, FoldStableCodePointsReallyFoldToThemselves) {
  int stable = 0;
  for (char32_t cp = 0x800; cp <= 0xFFFF; ++cp) {
    if (!IsFoldStable(cp)) continue;
    ASSERT_FALSE(cp >= 0xD800 && cp <= 0xDFFF);
    ++stable;
    std::string s = Utf8(cp);
    ASSERT_EQ(text::CaseFold(s), s) << std::hex << static_cast<std::uint32_t>(cp);
    ASSERT_EQ(text::CaseFold("Ab" + s + s + "Ba"), "ab" + s + s + "ba")
        << std::hex << static_cast<std::uint32_t>(cp);
  }
  EXPECT_GT(stable, 30000);
}

TEST(LogQuery, MixedScriptsFoldTheSameWayFastOrSlow) {
  EXPECT_TRUE(Selects("hikari 超时", "HIKARI 获取连接超时，等待 3000ms")) << "fast path";
  EXPECT_TRUE(Selects("hikari 超时", "HIKARI 获取连接超时 Ｅ")) << "a fullwidth letter: slow path";
  EXPECT_TRUE(Selects("ｅ", "Ｅ")) << "fullwidth letters fold";
}

TEST(LogQuery, EveryAsciiByteFoldsAsItsLowerCaseAtAnyPositionOfAWord) {
  // The fold takes ASCII 8 bytes at a time: each byte, at each position of
  // such a word and next to the range's edges ('@' '[' '`' '{'), must fold
  // as std::tolower, and a word with a non-ASCII byte must fold as well.
  for (int c = 1; c < 0x80; ++c) {
    for (std::size_t at = 0; at < 9; ++at) {
      std::string message(17, '@');
      message[at] = static_cast<char>(c);
      message[16] = '[';
      std::string term(1, static_cast<char>(std::tolower(c)));
      if (term == "\"" || term == "\\" || term == " " || term == "-" || c < 0x21) continue;
      EXPECT_TRUE(Selects("\"" + term + "\"", message)) << c << " at " << at;
      if (c >= 'A' && c <= 'Z') {
        EXPECT_FALSE(Selects("\"" + term + "\"", std::string(17, c + 1)));
      }
    }
  }
  EXPECT_TRUE(Selects("timeout", "ABCDEFGH连接TIMEOUTabc"));
  EXPECT_TRUE(Selects("straße", "ERROR FROM STRASSE-CLUSTER: Straße nicht erreichbar"));
  EXPECT_FALSE(Selects("[", "@@@@@@@@{{{{{{{{````````"));
}

TEST(LogQuery, OtherFieldsAreText) {
  EXPECT_TRUE(Selects("status:500", "GET /api status:500 len:12"));
  EXPECT_TRUE(Selects("\"level:ERROR\"", "parsed level:ERROR from config"));
}

// 2026-11-29T09:55:00Z in ms since the epoch.
constexpr std::int64_t k0955 = 1'795'946'100'000;

TEST(LogQuery, AfterAndBeforeAreRfc3339TimeBoundsInAnyZone) {
  auto query = ParseLogQuery("timeout after:2026-11-29T09:55:00Z BEFORE:2026-11-29T18:10:00.5+08:00");
  ASSERT_TRUE(query) << query.error().message;
  EXPECT_EQ(query->bounds.after_ms, k0955);
  EXPECT_EQ(query->bounds.before_ms, k0955 + 15 * 60'000 + 500);
  EXPECT_EQ(query->required, std::vector<std::string>{"timeout"}) << "bounds are no text terms";
  EXPECT_FALSE(ParseLogQuery("timeout")->bounds.Any());
  auto tightest = ParseLogQuery(
      "after:2026-11-29T09:00:00Z after:2026-11-29T09:55:00Z before:2026-11-29T11:00:00Z "
      "before:2026-11-29T12:00:00Z");
  ASSERT_TRUE(tightest);
  EXPECT_EQ(tightest->bounds.after_ms, k0955);
  EXPECT_EQ(tightest->bounds.before_ms, k0955 + 65 * 60'000);
  EXPECT_TRUE(Selects("\"after:tomorrow\"", "retry after:tomorrow")) << "a phrase stays text";
}

TEST(LogQuery, BadTimeBoundsAreRefusedNamingTheTerm) {
  EXPECT_EQ(Rejection("timeout after:yesterday"),
            "after:yesterday is not an RFC 3339 time with a zone, e.g. after:2026-11-29T09:55:00Z");
  EXPECT_EQ(Rejection("before:2026-11-29T09:55:00"),
            "before:2026-11-29T09:55:00 is not an RFC 3339 time with a zone, e.g. "
            "before:2026-11-29T09:55:00Z")
      << "a zone is required: the logs' clock is not the model's guess";
  EXPECT_EQ(Rejection("after:2026-13-01T00:00:00Z"),
            "after:2026-13-01T00:00:00Z is not an RFC 3339 time with a zone, e.g. "
            "after:2026-11-29T09:55:00Z");
  EXPECT_EQ(Rejection("after:"), "after: needs an RFC 3339 time, e.g. after:2026-11-29T09:55:00Z");
  EXPECT_EQ(Rejection("-before:2026-11-29T09:55:00Z"),
            "-before: cannot be excluded; bound the other side instead, e.g. "
            "after:2026-11-29T09:55:00Z");
  EXPECT_EQ(Rejection("after:2026-11-29T09:55:00Z before:2026-11-29T09:55:00Z"),
            "after: must be earlier than before: (after: includes its time, before: excludes it)");
  EXPECT_LE(Rejection("after:" + std::string(300, '9')).size(), 200u) << "a long term is cut";
}

TEST(LogQuery, MayMatchLooksForRequiredTermsOnly) {
  auto query = *ParseLogQuery("timeout -healthcheck");
  MessageMatcher matcher(query);
  EXPECT_TRUE(matcher.MayMatch(R"({"service":"healthcheck","message":"TimeOut"})"))
      << "exclusions may sit outside the message";
  EXPECT_FALSE(matcher.MayMatch(R"({"message":"all good"})"));
  auto chinese = *ParseLogQuery("超时");
  MessageMatcher chinese_matcher(chinese);
  EXPECT_TRUE(chinese_matcher.MayMatch(R"({"message":"连接超时"})"));
  auto empty = *ParseLogQuery("-x");
  EXPECT_TRUE(MessageMatcher(empty).MayMatch("anything"));
}

TEST(LogQuery, MalformedQueriesAreRejectedWithAShortReason) {
  EXPECT_EQ(Rejection("\"unterminated phrase"), "unterminated quote in query");
  EXPECT_EQ(Rejection("timeout - retry"),
            "'-' must be followed by a term to exclude, e.g. -healthcheck");
  EXPECT_EQ(Rejection("timeout -"), "'-' must be followed by a term to exclude, e.g. -healthcheck");
  EXPECT_EQ(Rejection("level:"), "level: needs a value, e.g. level:ERROR");
  EXPECT_EQ(Rejection("service: x"), "service: needs a value, e.g. service:gateway");
  EXPECT_EQ(Rejection("level:,"), "level: needs a value, e.g. level:ERROR");
  EXPECT_EQ(Rejection("\"\" -\"\" ok"), "accepted") << "an empty phrase constrains nothing";
}

}  // namespace
}  // namespace diagd::tools::logs
