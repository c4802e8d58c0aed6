#include "core/ids.h"

#include <cstdint>
#include <cstdio>
#include <random>

namespace diagd {

std::string NewId(const Clock& clock) {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  auto millis = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(clock.Now().time_since_epoch())
          .count());
  std::uint64_t high = (millis << 16) | (engine() & 0x0FFF) | 0x7000;  // version 7 nibble
  std::uint64_t low = (engine() & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // variant
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return buf;
}

}  // namespace diagd
