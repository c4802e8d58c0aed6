// Waits, by a bounded poll, until a condition holds: for tests whose
// condition is met by another thread or process at a time they cannot know.
// The bound is generous (a minute) because it is not a timed assertion: a
// busy CI machine only makes the wait longer, and only a condition that never
// holds reaches it.
#pragma once

#include <chrono>
#include <thread>

namespace diagd::testing {

template <typename Condition>
bool Eventually(Condition condition,
                std::chrono::milliseconds within = std::chrono::minutes(1)) {
  auto deadline = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

}  // namespace diagd::testing
