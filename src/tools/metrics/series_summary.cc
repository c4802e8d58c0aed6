#include "tools/metrics/series_summary.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <string_view>

namespace diagd::tools::metrics {
namespace {

// The six significant digits of `x` (|x| in [1e-4, 1e15)) written out in
// positional notation, trailing zeros of the fraction dropped.
std::string Positional(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.5e", std::fabs(x));  // "d.ddddde±XX"
  std::string_view scientific(buffer);
  std::string digits{scientific[0]};
  digits += scientific.substr(2, 5);
  int exponent = std::atoi(buffer + 8);
  std::string out;
  if (exponent < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  } else if (exponent >= 5) {
    out = digits + std::string(static_cast<std::size_t>(exponent - 5), '0');
  } else {
    out = digits.substr(0, exponent + 1) + "." + digits.substr(exponent + 1);
  }
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return (x < 0 ? "-" : "") + out;
}

void AppendClean(std::string& out, std::string_view text) {
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    out += (byte < 0x20 || byte == 0x7F) ? ' ' : c;
  }
}

}  // namespace

std::string FormatNumber(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "+Inf" : "-Inf";
  if (x == 0) return "0";
  double magnitude = std::fabs(x);
  // Rounded to six digits first, so 999999.7 is written as the 1e+06 it becomes.
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.5e", magnitude);
  double rounded = std::strtod(buffer, nullptr);
  if (rounded >= 1e-4 && rounded < 1e15) return Positional(x);
  std::snprintf(buffer, sizeof(buffer), "%.6g", x);
  return buffer;
}

std::string FormatSignedNumber(double x) {
  std::string text = FormatNumber(x);
  if (text.front() == '-' || text.front() == '+' || text == "NaN") return text;
  return "+" + text;
}

std::string FormatUnixSeconds(std::int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string SeriesName(const std::vector<std::pair<std::string, std::string>>& labels) {
  std::string name;
  std::string matchers;
  for (const auto& [key, value] : labels) {
    if (key == "__name__") {
      AppendClean(name, value);
      continue;
    }
    if (!matchers.empty()) matchers += ", ";
    AppendClean(matchers, key);
    matchers += "=\"";
    AppendClean(matchers, value);
    matchers += '"';
  }
  return matchers.empty() ? name : name + "{" + matchers + "}";
}

std::string SeriesSummary(const std::vector<std::pair<std::string, std::string>>& labels,
                          const std::vector<Sample>& samples) {
  std::string line = SeriesName(labels) + ": ";
  if (samples.empty()) return line + "no points";
  const Sample& first = samples.front();
  const Sample& last = samples.back();
  double min = NAN;
  double max = NAN;
  for (const Sample& s : samples) {
    if (std::isnan(s.value)) continue;
    if (std::isnan(min) || s.value < min) min = s.value;
    if (std::isnan(max) || s.value > max) max = s.value;
  }
  const Sample* change_at = nullptr;
  double change = 0;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    double d = samples[i].value - samples[i - 1].value;
    if (std::isnan(d)) continue;  // NaN on either side, or +Inf after +Inf
    if (change_at == nullptr || std::fabs(d) > std::fabs(change)) {
      change = d;
      change_at = &samples[i];
    }
  }
  line += "first " + FormatNumber(first.value) + " at " + FormatUnixSeconds(first.unix_seconds) +
          ", last " + FormatNumber(last.value) + " at " + FormatUnixSeconds(last.unix_seconds) +
          ", min " + FormatNumber(min) + ", max " + FormatNumber(max) + ", largest change ";
  if (change_at == nullptr) return line + "none";
  return line + FormatSignedNumber(change) + " at " + FormatUnixSeconds(change_at->unix_seconds);
}

}  // namespace diagd::tools::metrics
