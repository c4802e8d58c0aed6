#include "tools/mysql/row_collector.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/overloaded.h"
#include "core/text.h"

namespace diagd::tools::mysql {
namespace {

// A double keeps every decimal of at most 15 significant digits exactly
// through a round trip (DBL_DIG).
constexpr std::size_t kExactDoubleDigits = 15;
// The longest temporal text ("2026-11-29 10:30:00.123456") fits in this.
constexpr std::size_t kMinCellFetchBytes = 64;

std::size_t DecimalDigits(std::int64_t value) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return static_cast<std::size_t>(result.ptr - buffer);
}

// Roughly what a cell costs in the JSON the model reads: quotes around text,
// the number's digits, a separator.
std::size_t CellBytes(const SqlValue& cell) {
  return 1 + std::visit(Overloaded{[](std::monostate) -> std::size_t { return 4; },
                                   [](bool) -> std::size_t { return 5; },
                                   [](std::int64_t i) { return DecimalDigits(i); },
                                   [](double) -> std::size_t { return 24; },
                                   [](const std::string& s) { return s.size() + 2; }},
                        cell);
}

}  // namespace

void RowCollector::SetColumns(std::vector<std::string> names) {
  for (std::string& name : names) {
    if (text::BoundCodePoints(name, limits_.max_cell_chars)) output_.truncated = true;
    bytes_ += name.size() + 3;
  }
  output_.columns = std::move(names);
}

std::size_t RowCollector::CellFetchBytes() const {
  // UTF-8 needs at most 4 bytes a code point; one more byte tells a value
  // that fills the buffer exactly from one that was cut.
  return std::max(kMinCellFetchBytes, limits_.max_cell_chars * 4 + 1);
}

SqlValue RowCollector::Text(std::string text, bool already_cut) {
  if (text::BoundCodePoints(text, limits_.max_cell_chars) || already_cut) {
    output_.truncated = true;
  }
  return text;
}

bool RowCollector::Add(std::vector<SqlValue> row) {
  if (output_.rows.size() >= limits_.max_rows) {
    output_.truncated = true;
    return false;
  }
  std::size_t row_bytes = 2;
  for (const SqlValue& cell : row) row_bytes += CellBytes(cell);
  if (bytes_ + row_bytes > limits_.max_bytes) {
    output_.truncated = true;
    return false;
  }
  bytes_ += row_bytes;
  output_.rows.push_back(std::move(row));
  return true;
}

SqlValue BinaryCell(std::size_t bytes) { return "<binary " + std::to_string(bytes) + " bytes>"; }

SqlValue DoubleCell(double value) {
  if (std::isfinite(value)) return value;
  if (std::isnan(value)) return std::string("NaN");
  return std::string(value > 0 ? "Infinity" : "-Infinity");
}

SqlValue UnsignedCell(std::uint64_t value) {
  if (value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<std::int64_t>(value);
  }
  return std::to_string(value);
}

SqlValue DecimalCell(std::string_view text) {
  // Count the significant digits: leading zeros and trailing fraction zeros
  // change nothing in the value.
  std::string_view digits = text;
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  std::size_t point = digits.find('.');
  std::string significant;
  for (char c : digits) {
    if (c == '.') continue;
    if (c < '0' || c > '9') return std::string(text);  // not a plain decimal: keep it exact
    significant.push_back(c);
  }
  if (significant.empty()) return std::string(text);
  std::size_t first = significant.find_first_not_of('0');
  if (first == std::string::npos) return 0.0;
  std::size_t last = significant.size();
  if (point != std::string_view::npos) {
    std::size_t integer_digits = point;
    while (last > integer_digits && significant[last - 1] == '0') --last;
  }
  if (last - first > kExactDoubleDigits) return std::string(text);
  double value = 0;
  const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
  auto parsed = std::from_chars(begin, text.data() + text.size(), value);
  if (parsed.ec != std::errc() || parsed.ptr != text.data() + text.size()) {
    return std::string(text);
  }
  return value;
}

SqlValue BitCell(std::string_view bytes) {
  std::uint64_t value = 0;
  for (unsigned char byte : bytes.substr(bytes.size() > 8 ? bytes.size() - 8 : 0)) {
    value = (value << 8) | byte;
  }
  return UnsignedCell(value);
}

}  // namespace diagd::tools::mysql
