#include "tools/metrics/series_summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace diagd::tools::metrics {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

constexpr std::int64_t kOnset = 1795946520;  // 2026-11-29T10:02:00Z
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(FormatNumberTest, SixSignificantDigitsWithoutExponentInTheUsualRange) {
  EXPECT_EQ(FormatNumber(20), "20");
  EXPECT_EQ(FormatNumber(0.01), "0.01");
  EXPECT_EQ(FormatNumber(4.7), "4.7");
  EXPECT_EQ(FormatNumber(-2.5), "-2.5");
  EXPECT_EQ(FormatNumber(1.0 / 3), "0.333333");
  EXPECT_EQ(FormatNumber(2.0 / 3), "0.666667");
  EXPECT_EQ(FormatNumber(123456789), "123457000");
  EXPECT_EQ(FormatNumber(1234567.89), "1234570");
  EXPECT_EQ(FormatNumber(100000), "100000");
  EXPECT_EQ(FormatNumber(1e6), "1000000");
  EXPECT_EQ(FormatNumber(999999.7), "1000000");
  EXPECT_EQ(FormatNumber(0.0001), "0.0001");
  EXPECT_EQ(FormatNumber(0.000123456789), "0.000123457");
  EXPECT_EQ(FormatNumber(98765432101234.0), "98765400000000");
  EXPECT_EQ(FormatNumber(-0.5), "-0.5");
  EXPECT_EQ(FormatNumber(12.5), "12.5");
}

TEST(FormatNumberTest, ExponentOutsideTheUsualRangeAndSpecialValuesByName) {
  EXPECT_EQ(FormatNumber(1e15), "1e+15");
  EXPECT_EQ(FormatNumber(-2.5e20), "-2.5e+20");
  EXPECT_EQ(FormatNumber(0.00001), "1e-05");
  EXPECT_EQ(FormatNumber(0.0000999999999), "0.0001");  // rounds into the range
  EXPECT_EQ(FormatNumber(0), "0");
  EXPECT_EQ(FormatNumber(-0.0), "0");
  EXPECT_EQ(FormatNumber(std::nan("")), "NaN");
  EXPECT_EQ(FormatNumber(kInf), "+Inf");
  EXPECT_EQ(FormatNumber(-kInf), "-Inf");
}

TEST(FormatNumberTest, SignedAlwaysCarriesItsSign) {
  EXPECT_EQ(FormatSignedNumber(38), "+38");
  EXPECT_EQ(FormatSignedNumber(-2.5), "-2.5");
  EXPECT_EQ(FormatSignedNumber(0), "+0");
  EXPECT_EQ(FormatSignedNumber(kInf), "+Inf");
  EXPECT_EQ(FormatSignedNumber(-kInf), "-Inf");
}

TEST(FormatUnixSecondsTest, Rfc3339UtcSeconds) {
  EXPECT_EQ(FormatUnixSeconds(kOnset), "2026-11-29T10:02:00Z");
  EXPECT_EQ(FormatUnixSeconds(0), "1970-01-01T00:00:00Z");
}

TEST(SeriesSummaryTest, NamesTheSeriesAndItsShape) {
  Labels labels = {{"__name__", "hikaricp_connections_active"},
                   {"pool", "HikariPool-1"},
                   {"service", "payment-service"}};
  std::vector<Sample> samples = {
      {kOnset - 120, 3}, {kOnset - 60, 2}, {kOnset, 4}, {kOnset + 60, 12}, {kOnset + 120, 20}};
  EXPECT_EQ(SeriesSummary(labels, samples),
            "hikaricp_connections_active{pool=\"HikariPool-1\", service=\"payment-service\"}: "
            "first 3 at 2026-11-29T10:00:00Z, last 20 at 2026-11-29T10:04:00Z, min 2, max 20, "
            "largest change +8 at 2026-11-29T10:03:00Z");
}

TEST(SeriesSummaryTest, TheFirstOfEqualChangesWinsAndANegativeChangeKeepsItsSign) {
  std::vector<Sample> samples = {
      {kOnset, 10}, {kOnset + 15, 5}, {kOnset + 30, 10}, {kOnset + 45, 5}};
  EXPECT_EQ(SeriesSummary({{"__name__", "x"}}, samples),
            "x: first 10 at 2026-11-29T10:02:00Z, last 5 at 2026-11-29T10:02:45Z, min 5, "
            "max 10, largest change -5 at 2026-11-29T10:02:15Z");
}

TEST(SeriesSummaryTest, OnePointHasNoChange) {
  EXPECT_EQ(SeriesSummary({{"__name__", "up"}}, {{kOnset, 1}}),
            "up: first 1 at 2026-11-29T10:02:00Z, last 1 at 2026-11-29T10:02:00Z, min 1, max 1, "
            "largest change none");
}

TEST(SeriesSummaryTest, AFlatSeriesChangesByZero) {
  EXPECT_EQ(SeriesSummary({{"__name__", "m"}}, {{kOnset, 20}, {kOnset + 15, 20}}),
            "m: first 20 at 2026-11-29T10:02:00Z, last 20 at 2026-11-29T10:02:15Z, min 20, "
            "max 20, largest change +0 at 2026-11-29T10:02:15Z");
}

TEST(SeriesSummaryTest, WithoutANameTheLabelsStandAloneAndWithoutLabelsNothingIsNamed) {
  std::vector<Sample> one = {{kOnset, 0.5}};
  EXPECT_EQ(
      SeriesSummary({{"service", "gateway"}, {"route", "POST /api/v1/orders"}}, one).substr(0, 50),
      "{service=\"gateway\", route=\"POST /api/v1/orders\"}: ");
  EXPECT_EQ(SeriesSummary({}, one),
            ": first 0.5 at 2026-11-29T10:02:00Z, last 0.5 at 2026-11-29T10:02:00Z, min 0.5, "
            "max 0.5, largest change none");
}

TEST(SeriesSummaryTest, ControlCharactersInLabelsBecomeSpacesAndNothingElseIsEscaped) {
  Labels labels = {{"__name__", "m"}, {"msg", "a\tb\n\"c\"\\d"}};
  EXPECT_EQ(SeriesName(labels), "m{msg=\"a b \"c\"\\d\"}");
}

TEST(SeriesSummaryTest, NaNAndInfinitiesAreNamedAndNaNIsLeftOutOfMinMaxAndChange) {
  std::vector<Sample> samples = {
      {kOnset, std::nan("")}, {kOnset + 15, 1}, {kOnset + 30, std::nan("")},
      {kOnset + 45, 4},       {kOnset + 60, 2}, {kOnset + 75, std::nan("")}};
  EXPECT_EQ(SeriesSummary({{"__name__", "r"}}, samples),
            "r: first NaN at 2026-11-29T10:02:00Z, last NaN at 2026-11-29T10:03:15Z, min 1, "
            "max 4, largest change -2 at 2026-11-29T10:03:00Z");
  std::vector<Sample> infinite = {
      {kOnset, 1}, {kOnset + 15, kInf}, {kOnset + 30, kInf}, {kOnset + 45, -kInf}};
  EXPECT_EQ(SeriesSummary({{"__name__", "r"}}, infinite),
            "r: first 1 at 2026-11-29T10:02:00Z, last -Inf at 2026-11-29T10:02:45Z, min -Inf, "
            "max +Inf, largest change +Inf at 2026-11-29T10:02:15Z");
  std::vector<Sample> all_nan = {{kOnset, std::nan("")}, {kOnset + 15, std::nan("")}};
  EXPECT_EQ(SeriesSummary({{"__name__", "r"}}, all_nan),
            "r: first NaN at 2026-11-29T10:02:00Z, last NaN at 2026-11-29T10:02:15Z, min NaN, "
            "max NaN, largest change none");
}

TEST(SeriesSummaryTest, NoPointsIsSaid) {
  EXPECT_EQ(SeriesSummary({{"__name__", "m"}}, {}), "m: no points");
}

}  // namespace
}  // namespace diagd::tools::metrics
