// Which lease ends the upkeep takes for its owner's death: only those that
// ran out while the store answered (lost_run_horizon.h). Times are given,
// not measured: a lease of 3 s, answers every second.
#include "server/lost_run_horizon.h"

#include <gtest/gtest.h>

namespace diagd::server {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using namespace std::chrono_literals;

constexpr auto kLease = seconds(3);

class LostRunHorizonTest : public ::testing::Test {
 protected:
  // The instance started at 0 s.
  LostRunHorizonTest() : horizon_(kLease, Wall(0ms), Mono(0ms)) {}

  static WallTime Wall(milliseconds at) { return WallTime{} + seconds(1'000'000) + at; }
  static MonoTime Mono(milliseconds at) { return MonoTime{} + at; }

  std::optional<milliseconds> Answer(milliseconds at, bool answered = true) {
    return horizon_.Heard(answered, Wall(at), Mono(at));
  }
  WallTime At(milliseconds at) const { return horizon_.Horizon(Wall(at), Mono(at)); }

  LostRunHorizon horizon_;
};

TEST_F(LostRunHorizonTest, AStoreAnsweringEveryThirdOfALeaseLetsLeasesEndNow) {
  for (int s = 1; s <= 10; ++s) {
    EXPECT_EQ(Answer(seconds(s)), std::nullopt);
    EXPECT_EQ(At(seconds(s) + 10ms), Wall(seconds(s) + 10ms));
  }
}

TEST_F(LostRunHorizonTest, AfterAStallOnlyLeasesEndedBeforeItAreLostForALease) {
  Answer(seconds(1));
  Answer(seconds(2));
  // The store stalls: a call waits from 2.5 s to 12 s, the answer comes late.
  EXPECT_EQ(At(seconds(4)), Wall(seconds(2))) << "silent for two seconds already";
  EXPECT_EQ(Answer(seconds(12)), milliseconds(10'000));
  EXPECT_EQ(At(seconds(12)), Wall(seconds(2)));
  Answer(seconds(13));
  Answer(seconds(14));
  EXPECT_EQ(At(milliseconds(14'900)), Wall(seconds(2))) << "the owners still have time to renew";
  Answer(seconds(15));
  EXPECT_EQ(At(seconds(15)), Wall(seconds(15))) << "a lease of answers after the stall";
}

TEST_F(LostRunHorizonTest, AStoreErrorIsASilenceUntilTheStoreAnswersAgain) {
  Answer(seconds(1));
  Answer(seconds(2), false);
  EXPECT_EQ(At(seconds(2)), Wall(seconds(1))) << "an error at once";
  EXPECT_EQ(Answer(milliseconds(2'200)), milliseconds(1'200));
  EXPECT_EQ(At(milliseconds(2'500)), Wall(seconds(1)));
  Answer(seconds(3));
  Answer(seconds(4));
  Answer(seconds(5));
  EXPECT_EQ(At(milliseconds(5'300)), Wall(milliseconds(5'300)));
}

TEST_F(LostRunHorizonTest, ASilenceWhileSettlingReachesBackToTheFirst) {
  Answer(seconds(1));
  Answer(seconds(5));  // silent from 1 s
  Answer(seconds(6));
  Answer(seconds(8));  // silent again from 6 s, within a lease of 5 s
  EXPECT_EQ(At(seconds(8)), Wall(seconds(1)));
  Answer(seconds(9));
  Answer(seconds(10));
  Answer(seconds(11));
  EXPECT_EQ(At(seconds(11)), Wall(seconds(11)));
}

TEST_F(LostRunHorizonTest, AStoreSilentFromTheStartJudgesFromTheStart) {
  Answer(seconds(1), false);
  EXPECT_EQ(At(seconds(4)), Wall(0ms));
  Answer(seconds(4));
  EXPECT_EQ(At(milliseconds(4'500)), Wall(0ms));
  Answer(seconds(5));
  Answer(seconds(6));
  Answer(seconds(7));
  EXPECT_EQ(At(seconds(7)), Wall(seconds(7)));
}

}  // namespace
}  // namespace diagd::server
