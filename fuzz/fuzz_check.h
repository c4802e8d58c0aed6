// What the targets share. A target calls the real parser on the fuzzer's
// bytes and then checks what the parser promises; a broken promise must stop
// the run like a crash does, so that libFuzzer keeps the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

// abort(), not an exception or a gtest assertion: libFuzzer reports it as a
// crash with the input that caused it, and the message says which promise.
#define FUZZ_CHECK(condition)                                                                \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

namespace diagd::fuzz {

inline std::string_view Bytes(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Whether `part` is a view into `whole` (an empty view counts as inside).
inline bool ViewsInto(std::string_view part, std::string_view whole) {
  if (part.empty()) return true;
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

}  // namespace diagd::fuzz
