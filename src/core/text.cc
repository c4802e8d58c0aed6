#include "core/text.h"

#include <utf8proc.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace diagd::text {
namespace {

// The first index at or after `i` that starts an 8-byte word holding a
// byte above ASCII, or the start of the last partial word: what a scan of
// mostly ASCII text (log lines, JSON) can skip to. Byte by byte, checking
// UTF-8 was a few percent of a 30-event run's CPU.
inline std::size_t SkipAsciiWords(std::string_view s, std::size_t i) {
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  while (i + 8 <= s.size()) {
    std::uint64_t word;
    std::memcpy(&word, s.data() + i, sizeof word);
    if ((word & kHigh) != 0) break;
    i += 8;
  }
  return i;
}

// True when `s` is well-formed with at most `max_code_points` code points:
// one pass, stopping as soon as either fails.
bool FitsCodePoints(std::string_view s, std::size_t max_code_points) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t ascii = SkipAsciiWords(s, i);
    count += ascii - i;
    i = ascii;
    if (count > max_code_points) return false;
    if (i == s.size()) break;
    CodePoint cp = DecodeCodePoint(s, i);
    i += cp.length;
    if (!cp.well_formed || ++count > max_code_points) return false;
  }
  return true;
}

bool IsSpace(utf8proc_int32_t cp) {
  if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D)) return true;
  if (cp < 0x80) return false;
  auto category = utf8proc_category(cp);
  return category == UTF8PROC_CATEGORY_ZS || category == UTF8PROC_CATEGORY_ZL ||
         category == UTF8PROC_CATEGORY_ZP || cp == 0x85;
}

std::string MapWithOptions(std::string_view s, int options) {
  std::string clean = SanitizeUtf8(s);
  utf8proc_uint8_t* out = nullptr;
  auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(clean.data()),
                        static_cast<utf8proc_ssize_t>(clean.size()), &out,
                        static_cast<utf8proc_option_t>(options));
  if (n < 0) return clean;  // cannot happen on sanitized input; keep the text
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owner(out, &std::free);
  return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    i = SkipAsciiWords(s, i);
    if (i == s.size()) break;
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    CodePoint cp = DecodeCodePoint(s, i);
    i += cp.length;
    if (!cp.well_formed) return false;
  }
  return true;
}

std::size_t PreviousCodePoint(std::string_view s, std::size_t i) {
  // The nearest start before `i` whose well-formed sequence ends at `i`;
  // without one, the byte before `i` is a code point of its own.
  for (std::size_t back = 2; back <= 4 && back <= i; ++back) {
    CodePoint cp = DecodeCodePoint(s, i - back);
    if (cp.well_formed && cp.length == back) return i - back;
  }
  return i - 1;
}

void AppendCodePoint(std::string& out, char32_t cp) {
  bool scalar = cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
  utf8proc_uint8_t buf[4];
  auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(scalar ? cp : kReplacementCharacter),
                                buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n));
}

std::string SanitizeUtf8(std::string_view s) {
  if (IsValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    CodePoint cp = DecodeCodePoint(s, i);
    if (cp.well_formed) {
      out.append(s.substr(i, cp.length));
    } else {
      AppendCodePoint(out, kReplacementCharacter);
    }
    i += cp.length;
  }
  return out;
}

std::string Nfc(std::string_view s) { return MapWithOptions(s, UTF8PROC_STABLE | UTF8PROC_COMPOSE); }

std::string CaseFold(std::string_view s) {
  return MapWithOptions(s, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD);
}

std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsBlank(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    CodePoint cp = DecodeCodePoint(s, i);
    i += cp.length;
    if (!cp.well_formed || !IsSpace(static_cast<utf8proc_int32_t>(cp.value))) return false;
  }
  return true;
}

std::string CollapseWhitespace(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool pending_space = false;
  for (std::size_t i = 0; i < s.size();) {
    CodePoint cp = DecodeCodePoint(s, i);
    if (cp.well_formed && IsSpace(static_cast<utf8proc_int32_t>(cp.value))) {
      pending_space = !out.empty();
    } else {
      if (pending_space) out.push_back(' ');
      pending_space = false;
      if (cp.well_formed) {
        out.append(s.substr(i, cp.length));
      } else {
        AppendCodePoint(out, kReplacementCharacter);
      }
    }
    i += cp.length;
  }
  return out;
}

std::size_t CodePointCount(std::string_view s) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t ascii = SkipAsciiWords(s, i);
    count += ascii - i;
    i = ascii;
    if (i == s.size()) break;
    i = NextCodePoint(s, i);
    ++count;
  }
  return count;
}

std::string TruncateCodePoints(std::string_view s, std::size_t max_code_points, bool* truncated) {
  // Common case: well formed and short enough (a message in Chinese is
  // longer in bytes than in code points).
  if (FitsCodePoints(s, max_code_points)) {
    if (truncated != nullptr) *truncated = false;
    return std::string(s);
  }
  std::string clean = SanitizeUtf8(s);
  std::size_t i = 0;
  std::size_t count = 0;
  while (i < clean.size() && count < max_code_points) {
    i = NextCodePoint(clean, i);
    ++count;
  }
  if (truncated != nullptr) *truncated = i < clean.size();
  clean.resize(i);
  return clean;
}

bool BoundCodePoints(std::string& s, std::size_t max_code_points) {
  if (FitsCodePoints(s, max_code_points)) return false;
  bool truncated = false;
  s = TruncateCodePoints(s, max_code_points, &truncated);
  return truncated;
}

std::string TruncateBytes(std::string_view s, std::size_t max_bytes, bool* truncated) {
  // Sanitize first: a replacement character is longer than the byte it
  // replaces, and the bound must hold for what is returned.
  std::string clean = SanitizeUtf8(s);
  std::size_t i = 0;
  while (i < clean.size()) {
    std::size_t next = NextCodePoint(clean, i);
    if (next > max_bytes) break;
    i = next;
  }
  if (truncated != nullptr) *truncated = i < clean.size();
  clean.resize(i);
  return clean;
}

}  // namespace diagd::text
