// Internal to the query_mysql backend: a data source's error text made fit
// for the model (docs/specs/tool-contracts.md: at most 200 chars, no host,
// credential or stack).
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace diagd::tools::mysql {

inline constexpr std::size_t kMaxServerMessageChars = 200;

// Keeps what helps the model fix its query ("Unknown column 'statu' in 'field
// list'", "no such table: x") and drops what it must not see: only the first
// line is kept; any access-denied error becomes "access denied"; accounts
// ('user'@'host'), "(using password: ...)", IPv4 addresses and file paths are
// removed or masked; the result is valid UTF-8 of at most 200 code points,
// never empty.
std::string SafeServerMessage(std::string_view message);

}  // namespace diagd::tools::mysql
