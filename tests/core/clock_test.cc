#include "core/clock.h"

#include <gtest/gtest.h>

#include "core/ids.h"

namespace diagd {
namespace {

TEST(Clock, FormatsRfc3339WithMillisecondsInUtc) {
  auto t = ParseRfc3339("2015-10-18T18:06:01.840Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(FormatRfc3339Millis(*t), "2015-10-18T18:06:01.840Z");
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
