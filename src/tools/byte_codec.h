// The byte form canonical records are stored in (store/canonical_codec.h):
// strings with LEB128 lengths, fixed 64-bit integers, booleans as one byte.
// Each tool writes and reads its own result with these (its face's
// EncodeResult/DecodeResult), so the stored form of a result lives with
// the result.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace diagd::tools {

class ByteWriter {
 public:
  void Byte(std::uint8_t b) { out_.push_back(static_cast<char>(b)); }
  void Bool(bool b) { Byte(b ? 1 : 0); }
  // LEB128: seven bits a byte, low first.
  void Varint(std::uint64_t n) {
    while (n >= 0x80) {
      Byte(static_cast<std::uint8_t>(n | 0x80));
      n >>= 7;
    }
    Byte(static_cast<std::uint8_t>(n));
  }
  void Fixed64(std::uint64_t n) {
    for (int i = 0; i < 8; ++i) Byte(static_cast<std::uint8_t>(n >> (8 * i)));
  }
  void Int(int n) { Fixed64(static_cast<std::uint64_t>(static_cast<std::int64_t>(n))); }
  void String(std::string_view s) {
    Varint(s.size());
    out_.append(s);
  }
  void OptionalString(const std::optional<std::string>& s) {
    Bool(s.has_value());
    if (s) String(*s);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what ByteWriter wrote. Every read checks the bytes left; the first
// failure sticks (later reads return defaults) and is reported once, at
// the end, so the decoding code reads straight through.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : in_(bytes) {}

  bool ok() const { return ok_; }
  bool AtEnd() const { return in_.empty(); }
  void Fail() { ok_ = false; }

  std::uint8_t Byte() {
    if (!ok_ || in_.empty()) return Failed<std::uint8_t>();
    auto b = static_cast<std::uint8_t>(in_.front());
    in_.remove_prefix(1);
    return b;
  }
  bool Bool() {
    std::uint8_t b = Byte();
    if (b > 1) return Failed<bool>();
    return b == 1;
  }
  std::uint64_t Varint() {
    std::uint64_t n = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      std::uint8_t b = Byte();
      if (!ok_) return 0;
      n |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return n;
    }
    return Failed<std::uint64_t>();
  }
  std::uint64_t Fixed64() {
    if (!ok_ || in_.size() < 8) return Failed<std::uint64_t>();
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i) {
      n |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(in_[i])) << (8 * i);
    }
    in_.remove_prefix(8);
    return n;
  }
  // What Int wrote; a value outside int is damage.
  int Int() {
    auto n = static_cast<std::int64_t>(Fixed64());
    if (n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max()) {
      return Failed<int>();
    }
    return static_cast<int>(n);
  }
  std::size_t Size() {
    std::uint64_t n = Varint();
    if (n > std::numeric_limits<std::size_t>::max()) return Failed<std::size_t>();
    return static_cast<std::size_t>(n);
  }
  std::string String() {
    std::uint64_t size = Varint();
    if (!ok_ || size > in_.size()) return Failed<std::string>();
    std::string s(in_.substr(0, size));
    in_.remove_prefix(size);
    return s;
  }
  std::optional<std::string> OptionalString() {
    if (!Bool()) return std::nullopt;
    return String();
  }
  // A list's length: each item takes at least one byte, so a count beyond
  // the bytes left is damage (and is never reserved).
  std::size_t Count() {
    std::uint64_t count = Varint();
    if (!ok_ || count > in_.size()) return Failed<std::size_t>();
    return static_cast<std::size_t>(count);
  }
  // One of `values`, by the name `name_of` gives it.
  template <typename E, std::size_t N>
  E Named(const E (&values)[N], const char* (*name_of)(E)) {
    std::string name = String();
    for (E value : values) {
      if (ok_ && name == name_of(value)) return value;
    }
    return Failed<E>();
  }

 private:
  template <typename T>
  T Failed() {
    ok_ = false;
    return T{};
  }

  std::string_view in_;
  bool ok_ = true;
};

}  // namespace diagd::tools
