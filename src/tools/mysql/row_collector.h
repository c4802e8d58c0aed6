// Internal to the query_mysql backend: the bounds every backend applies while
// it fetches (rows, cell size, total bytes), and the conversions of SQL values
// that both backends share.
//
// Thread safety: a collector belongs to one query; the functions are pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/mysql/datasource.h"

namespace diagd::tools::mysql {

// Collects one query's rows within `QueryLimits`. The backend asks for one
// row more than `max_rows` so that a cut result is known to be cut.
class RowCollector {
 public:
  explicit RowCollector(const QueryLimits& limits) : limits_(limits) {}

  // Column names, each bounded like a text cell.
  void SetColumns(std::vector<std::string> names);

  // The bytes a backend needs to fetch of a text cell: enough for
  // `max_cell_chars` code points of UTF-8, never less than a date's text.
  std::size_t CellFetchBytes() const;

  // A text cell, sanitized to UTF-8 and cut to `max_cell_chars` code points.
  // `already_cut`: the backend fetched only a prefix of the value.
  SqlValue Text(std::string text, bool already_cut = false);

  // Adds a row unless a bound is reached; false when no more rows are wanted
  // (the row was past `max_rows` or would pass `max_bytes`: truncated).
  bool Add(std::vector<SqlValue> row);

  std::size_t row_count() const { return output_.rows.size(); }
  QueryOutput Finish() && { return std::move(output_); }

 private:
  QueryLimits limits_;
  QueryOutput output_;
  std::size_t bytes_ = 0;
};

// "<binary N bytes>": what a model sees of a binary value.
SqlValue BinaryCell(std::size_t bytes);

// A finite double as is; infinities and NaN as the strings "Infinity",
// "-Infinity" and "NaN" (JSON numbers cannot hold them).
SqlValue DoubleCell(double value);

// An unsigned integer: int64 when it fits, else its decimal text (exact).
SqlValue UnsignedCell(std::uint64_t value);

// A DECIMAL's text ("12.30"): a double when that loses nothing a reader would
// see (at most 15 significant digits), else the exact text as a string.
SqlValue DecimalCell(std::string_view text);

// A BIT(n) value's big-endian bytes as an integer (n <= 64).
SqlValue BitCell(std::string_view bytes);

}  // namespace diagd::tools::mysql
