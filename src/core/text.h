// UTF-8 text utilities: validation, NFC, whitespace collapse, case folding and
// code-point-safe truncation. Every function takes and returns UTF-8; invalid
// input bytes are replaced by U+FFFD rather than passed on, so nothing built
// from these functions can emit broken UTF-8 into a model, a trace or a user
// result.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace diagd::text {

// True when `s` is well-formed UTF-8.
bool IsValidUtf8(std::string_view s);

// `s` with every ill-formed sequence replaced by U+FFFD.
std::string SanitizeUtf8(std::string_view s);

// Unicode NFC of `s` (after sanitizing).
std::string Nfc(std::string_view s);

// Unicode case folding plus NFC: the form two strings are compared in when
// case must not matter.
std::string CaseFold(std::string_view s);

// ASCII-only upper case, for keywords and enum names.
std::string AsciiUpper(std::string_view s);
std::string AsciiLower(std::string_view s);

// Trims and collapses every run of Unicode white space (ASCII space, tabs,
// newlines, U+3000 ideographic space, NBSP, ...) into one ASCII space.
std::string CollapseWhitespace(std::string_view s);

// True when `s` holds nothing but white space (or nothing).
bool IsBlank(std::string_view s);

// Number of code points in `s` (ill-formed bytes count one each).
std::size_t CodePointCount(std::string_view s);

// The longest prefix of `s` with at most `max_code_points` code points.
// Sets `*truncated` (when given) to whether anything was cut.
std::string TruncateCodePoints(std::string_view s, std::size_t max_code_points,
                               bool* truncated = nullptr);

// In place: sanitizes `s` and cuts it to `max_code_points`; returns whether
// anything was cut. Allocation-free when `s` is already within bounds.
bool BoundCodePoints(std::string& s, std::size_t max_code_points);

// The longest prefix of `s` of at most `max_bytes` bytes that does not split
// a code point.
std::string TruncateBytes(std::string_view s, std::size_t max_bytes, bool* truncated = nullptr);

// The value of a hex digit (either case), or -1 for any other byte.
int HexValue(char c);

}  // namespace diagd::text
