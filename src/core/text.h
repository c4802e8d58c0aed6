// UTF-8 text utilities: the one code-point decoder, validation, NFC,
// whitespace collapse, case folding and code-point-safe truncation. Every
// function takes and returns UTF-8; invalid input bytes are replaced by
// U+FFFD rather than passed on, so nothing built from these functions can
// emit broken UTF-8 into a model, a trace or a user result.
//
// The one rule for ill-formed UTF-8, everywhere in diagd: a byte that does
// not start a well-formed sequence (a stray continuation byte, C0, C1 or
// F5-FF, an overlong form, a surrogate, a value above U+10FFFF, a sequence
// cut short) is a code point of its own, one byte long, read as U+FFFD.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace diagd::text {

inline constexpr char32_t kReplacementCharacter = 0xFFFD;

// One code point read from UTF-8 text.
struct CodePoint {
  char32_t value = 0;       // kReplacementCharacter where the byte is ill-formed
  std::size_t length = 1;   // the bytes it took: 1 to 4 (1 when ill-formed)
  bool well_formed = true;
};

// The code point that starts at `s[i]` (`i < s.size()`), by the rule above.
// Inline and allocation-free: scanners of every log line call it.
inline CodePoint DecodeCodePoint(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return {b0, 1, true};
  const std::size_t left = s.size() - i;
  auto continuation = [&](std::size_t k) { return k < left && (byte(k) & 0xC0) == 0x80; };
  if (b0 >= 0xC2 && b0 <= 0xDF && continuation(1)) {
    return {static_cast<char32_t>(((b0 & 0x1F) << 6) | (byte(1) & 0x3F)), 2, true};
  }
  if (b0 >= 0xE0 && b0 <= 0xEF && continuation(1) && continuation(2)) {
    char32_t v = ((b0 & 0x0Fu) << 12) | ((byte(1) & 0x3Fu) << 6) | (byte(2) & 0x3Fu);
    if (v >= 0x800 && (v < 0xD800 || v > 0xDFFF)) return {v, 3, true};
  }
  if (b0 >= 0xF0 && b0 <= 0xF4 && continuation(1) && continuation(2) && continuation(3)) {
    char32_t v = ((b0 & 0x07u) << 18) | ((byte(1) & 0x3Fu) << 12) | ((byte(2) & 0x3Fu) << 6) |
                 (byte(3) & 0x3Fu);
    if (v >= 0x10000 && v <= 0x10FFFF) return {v, 4, true};
  }
  return {kReplacementCharacter, 1, false};
}

// The offset just after the code point at `i` (`i < s.size()`).
inline std::size_t NextCodePoint(std::string_view s, std::size_t i) {
  return i + DecodeCodePoint(s, i).length;
}

// The offset of the code point that ends at `i` (`0 < i <= s.size()`).
std::size_t PreviousCodePoint(std::string_view s, std::size_t i);

// Appends `cp` in UTF-8 (U+FFFD for a value that is no Unicode scalar).
void AppendCodePoint(std::string& out, char32_t cp);

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
