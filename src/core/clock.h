// Time, behind an interface so tests and recorded data control it.
//
// `Clock::Now()` is wall time (UTC). Durations that must not jump use
// `Clock::Monotonic()`. `ManualClock` is for tests and for a configured fixed
// `now`; its monotonic time moves only when told to.
//
// Thread safety: every implementation here is safe for concurrent use.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace diagd {

using WallTime = std::chrono::system_clock::time_point;
using MonoTime = std::chrono::steady_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual WallTime Now() const = 0;
  virtual MonoTime Monotonic() const = 0;
};

class SystemClock final : public Clock {
 public:
  WallTime Now() const override { return std::chrono::system_clock::now(); }
  MonoTime Monotonic() const override { return std::chrono::steady_clock::now(); }
  // A process-wide instance; it has no state.
  static const SystemClock& Instance();
};

// A clock that stands still until advanced. Wall and monotonic time advance
// together.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(WallTime start = WallTime{}) : offset_(0), start_(start) {}
  WallTime Now() const override { return start_ + std::chrono::nanoseconds(offset_.load()); }
  MonoTime Monotonic() const override {
    return MonoTime{} + std::chrono::nanoseconds(offset_.load());
  }
  void Advance(std::chrono::nanoseconds by) { offset_.fetch_add(by.count()); }

 private:
  std::atomic<std::int64_t> offset_;
  WallTime start_;
};

// "2015-10-18T18:06:01.840Z": RFC 3339, UTC, milliseconds.
std::string FormatRfc3339Millis(WallTime time);

// Parses "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" (a space may stand
// for the T). Returns nothing when the text is not such a timestamp.
std::optional<WallTime> ParseRfc3339(std::string_view text);

}  // namespace diagd
