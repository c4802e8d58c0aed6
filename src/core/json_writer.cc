#include "core/json_writer.h"

#include <charconv>
#include <cstring>
#include <cmath>

#include "core/text.h"

namespace diagd::json {

namespace {

// Whether any of the 8 bytes of `word` needs escaping (< 0x20, '"' or '\\'):
// the usual SWAR zero-byte tests, so clean text is scanned 8 bytes a step.
bool NeedsEscape(std::uint64_t word) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  auto has_zero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  std::uint64_t below_space = (word - kOnes * 0x20) & ~word & kHigh;
  return (below_space | has_zero(word ^ (kOnes * '"')) | has_zero(word ^ (kOnes * '\\'))) != 0;
}

// The index of the first byte at or after `i` that needs escaping, or
// s.size().
std::size_t NextEscape(std::string_view s, std::size_t i) {
  for (; i < s.size(); ++i) {
    while (i + 8 <= s.size()) {
      std::uint64_t word;
      std::memcpy(&word, s.data() + i, sizeof word);
      if (NeedsEscape(word)) break;
      i += 8;
    }
    if (i >= s.size()) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == '"' || c == '\\') return i;
  }
  return s.size();
}

// Writes the escape of `c`, a byte that needs one, to `out` (room for 6
// bytes); returns its length.
std::size_t EscapeOf(unsigned char c, char* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  char short_form = 0;
  switch (c) {
    case '"':
      short_form = '"';
      break;
    case '\\':
      short_form = '\\';
      break;
    case '\n':
      short_form = 'n';
      break;
    case '\r':
      short_form = 'r';
      break;
    case '\t':
      short_form = 't';
      break;
    case '\b':
      short_form = 'b';
      break;
    case '\f':
      short_form = 'f';
      break;
    default:
      break;
  }
  out[0] = '\\';
  if (short_form != 0) {
    out[1] = short_form;
    return 2;
  }
  std::memcpy(out + 1, "u00", 3);
  out[4] = kHex[c >> 4];
  out[5] = kHex[c & 0xF];
  return 6;
}

// Appends `s` escaped, without quotes.
void AppendEscapedBody(std::string_view s, std::string& out) {
  std::size_t run = 0;  // start of the current unescaped run
  // NextEscape called from one place only, where the compiler inlines it:
  // a tool result has an escape every ten bytes or so.
  for (std::size_t i; (i = NextEscape(s, run)) < s.size(); run = i + 1) {
    out.append(s.data() + run, i - run);
    char escape[6];
    std::size_t length = EscapeOf(static_cast<unsigned char>(s[i]), escape);
    out.append(escape, length);
  }
  out.append(s.data() + run, s.size() - run);
}

}  // namespace

void AppendEscaped(std::string_view s, std::string& out) {
  out.push_back('"');
  AppendEscapedBody(s, out);
  out.push_back('"');
}

bool ReadEscaped(std::string_view literal, std::string& out) {
  if (literal.size() < 2 || literal.front() != '"' || literal.back() != '"') return false;
  const std::string_view s = literal.substr(1, literal.size() - 2);
  out.reserve(out.size() + s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t slash = s.find('\\', i);
    if (slash == std::string_view::npos) slash = s.size();
    out.append(s.data() + i, slash - i);
    if (slash == s.size()) break;
    if (slash + 1 == s.size()) return false;
    i = slash + 2;
    switch (s[slash + 1]) {
      case '"':
      case '\\':
      case '/':
        out.push_back(s[slash + 1]);
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'u': {
        if (slash + 6 > s.size() || s[slash + 2] != '0' || s[slash + 3] != '0') return false;
        const int high = text::HexValue(s[slash + 4]);
        const int low = text::HexValue(s[slash + 5]);
        if (high < 0 || high > 7 || low < 0) return false;
        out.push_back(static_cast<char>(high * 16 + low));
        i = slash + 6;
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

// Doubles in their shortest round-trip form rather than Boost's "5E-1":
// models and people read these, and quotes of numbers must match what they
// read. Non-finite values have no JSON form: null.
void AppendDouble(double d, std::string& out) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  out.append(buf, ec == std::errc() ? end : buf);
}

void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!needs_comma_.empty()) {
    if (needs_comma_.back()) out_.push_back(',');
    needs_comma_.back() = true;
  }
}

JsonWriter& JsonWriter::BeginObject() {
  Separate();
  out_.push_back('{');
  needs_comma_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  out_.push_back('}');
  needs_comma_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  Separate();
  out_.push_back('[');
  needs_comma_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  out_.push_back(']');
  needs_comma_.pop_back();
  return *this;
}

JsonWriter::JsonWriter(std::size_t reserve) { out_.reserve(reserve); }

JsonWriter& JsonWriter::Key(std::string_view key) {
  Separate();
  AppendEscaped(key, out_);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  Separate();
  AppendEscaped(value, out_);
  return *this;
}

std::string JsonWriter::Take() { return std::move(out_); }

JsonWriter& JsonWriter::Int(std::int64_t value) {
  Separate();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out_.append(buf, end);
  return *this;
}

JsonWriter& JsonWriter::Double(double value) {
  Separate();
  AppendDouble(value, out_);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  Separate();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
  Separate();
  out_ += json;
  return *this;
}

JsonWriter& JsonWriter::Null() {
  Separate();
  out_ += "null";
  return *this;
}

}  // namespace diagd::json
