// The one deterministic line that names a series and its shape: what a
// metrics observation is quoted by.
//
//   NAME{k1="v1", k2="v2"}: first F at T1, last L at T2, min m, max M,
//   largest change +D at T3
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace diagd::tools::metrics {

// A sample as the server sent it: seconds since the epoch and a value that
// may be NaN or infinite.
struct Sample {
  std::int64_t unix_seconds = 0;
  double value = 0;
};

// At most 6 significant digits, "%.6g" style but with no exponent for
// |x| in [1e-4, 1e15); "NaN", "+Inf", "-Inf"; negative zero is "0".
std::string FormatNumber(double x);
// FormatNumber with a sign always: "+38", "-2.5", "+0", "+Inf".
std::string FormatSignedNumber(double x);
// "2026-11-29T10:02:00Z"
std::string FormatUnixSeconds(std::int64_t unix_seconds);

// `NAME{k="v", ...}`: `__name__` when present, then the other labels in the
// order given (the caller sorts them); `{}` left out when there are none.
// Control characters in names and values become spaces.
std::string SeriesName(const std::vector<std::pair<std::string, std::string>>& labels);

// The summary line over `samples` (oldest first). min and max skip NaN
// (NaN only when every value is); the largest change is the largest
// absolute difference between consecutive samples that is a number (the
// first such pair wins), dated by the later one; "none" when there is no
// such pair (one sample, or NaN throughout).
std::string SeriesSummary(const std::vector<std::pair<std::string, std::string>>& labels,
                          const std::vector<Sample>& samples);

}  // namespace diagd::tools::metrics
