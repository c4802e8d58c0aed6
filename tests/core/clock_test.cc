#include "core/clock.h"

#include <gtest/gtest.h>

#include <random>

#include "core/ids.h"

namespace diagd {
namespace {

TEST(Clock, FormatsRfc3339WithMillisecondsInUtc) {
  auto t = ParseRfc3339("2015-10-18T18:06:01.840Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(FormatRfc3339Millis(*t), "2015-10-18T18:06:01.840Z");
}

TEST(Clock, FormatsTheEdgesOfDaysYearsAndTheEpoch) {
  auto at = [](std::int64_t ms) { return WallTime(std::chrono::milliseconds(ms)); };
  EXPECT_EQ(FormatRfc3339Millis(at(0)), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339Millis(at(-1)), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatRfc3339Millis(at(951782400000)), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339Millis(at(4102444799999)), "2099-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatRfc3339Millis(at(-2208988800000)), "1900-01-01T00:00:00.000Z");
  // Sub-millisecond parts are cut, as the stored form has milliseconds.
  EXPECT_EQ(FormatRfc3339Millis(at(1500) + std::chrono::microseconds(999)),
            "1970-01-01T00:00:01.500Z");
}

TEST(Clock, AFormattedTimeParsesBackToTheSameMillisecond) {
  std::mt19937_64 random(20261202);
  // Over all a WallTime can hold (1677 to 2262).
  using std::chrono::milliseconds;
  std::uniform_int_distribution<std::int64_t> millis(
      std::chrono::duration_cast<milliseconds>(WallTime::duration::min()).count() + 1,
      std::chrono::duration_cast<milliseconds>(WallTime::duration::max()).count());
  for (int i = 0; i < 20000; ++i) {
    WallTime t{std::chrono::milliseconds(millis(random))};
    std::string text = FormatRfc3339Millis(t);
    ASSERT_EQ(text.size(), 24u) << text;
    auto parsed = ParseRfc3339(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    ASSERT_EQ(*parsed, t) << text;
  }
}

TEST(Clock, ParsesOffsetsAndSpaceSeparator) {
  auto t = ParseRfc3339("2026-11-29 18:30:00+08:00");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(FormatRfc3339Millis(*t), "2026-11-29T10:30:00.000Z");
}

TEST(Clock, RejectsMalformedTimestamps) {
  EXPECT_FALSE(ParseRfc3339("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(ParseRfc3339("2026-02-30T00:00:00Z"));
  EXPECT_FALSE(ParseRfc3339("2026-11-29T10:30:00"));  // no zone
  EXPECT_FALSE(ParseRfc3339("yesterday"));
}

TEST(Clock, ManualClockMovesOnlyWhenAdvanced) {
  ManualClock clock(*ParseRfc3339("2026-11-29T10:30:00Z"));
  auto before = clock.Monotonic();
  clock.Advance(std::chrono::milliseconds(1500));
  EXPECT_EQ(clock.Monotonic() - before, std::chrono::milliseconds(1500));
  EXPECT_EQ(FormatRfc3339Millis(clock.Now()), "2026-11-29T10:30:01.500Z");
}

TEST(Ids, AreUniqueAndSortByCreationTime) {
  ManualClock clock(*ParseRfc3339("2026-11-29T10:30:00Z"));
  std::string first = NewId(clock);
  clock.Advance(std::chrono::milliseconds(1));
  std::string second = NewId(clock);
  EXPECT_EQ(first.size(), 32u);
  EXPECT_LT(first, second);
  EXPECT_NE(NewId(clock), NewId(clock));
}

}  // namespace
}  // namespace diagd
