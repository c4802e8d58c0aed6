// A clock for testing a run's cancel arriving while a backend works: its
// monotonic time stands still, and its `nth` read requests `cancel`. The
// backends read the clock where they check their deadline, so the cancel
// lands between two of those checks, mid-work, with no thread and no sleep.
#pragma once

#include <atomic>
#include <stop_token>
#include <utility>

#include "core/clock.h"

namespace diagd::testing {

class CancellingClock final : public Clock {
 public:
  CancellingClock(std::stop_source cancel, int nth, WallTime now = {})
      : cancel_(std::move(cancel)), nth_(nth), now_(now) {}
  WallTime Now() const override { return now_; }
  MonoTime Monotonic() const override {
    if (++reads_ == nth_) cancel_.request_stop();
    return MonoTime{};
  }

 private:
  mutable std::stop_source cancel_;
  const int nth_;
  const WallTime now_;
  mutable std::atomic<int> reads_{0};
};

}  // namespace diagd::testing
