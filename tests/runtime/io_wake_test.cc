// A coroutine on the io thread woken from a fiber or another thread, or by
// its timeout; a wake that comes after the timeout changes nothing.
#include "runtime/io_wake.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <optional>
#include <thread>

namespace diagd::runtime {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

// Runs one WaitForWake on a fresh io context until it returns; `watch`
// receives the wake. Then `after` runs, and the io context once more, for
// what `after` posted to it.
std::optional<bool> WaitOnIo(std::function<void(Wake)> watch, milliseconds timeout,
                             const std::function<void()>& after = [] {}) {
  asio::io_context io;
  std::optional<bool> woken;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> { woken = co_await WaitForWake(std::move(watch), timeout); },
      asio::detached);
  io.run();
  after();
  io.restart();
  io.run();
  return woken;
}

TEST(WaitForWake, AWakeFromAFiberResumesTheCoroutine) {
  FiberPool pool(1, 256 * 1024);
  auto woken = WaitOnIo(
      [&](Wake wake) {
        pool.Spawn([wake = std::move(wake)] {
          SleepFor(milliseconds(20));  // parked first, then woken from the fiber
          wake();
        });
      },
      std::chrono::hours(1));
  EXPECT_EQ(woken, std::optional<bool>(true));
}

TEST(WaitForWake, AWakeCalledAtOnceOnTheIoThreadIsNotLost) {
  EXPECT_EQ(WaitOnIo([](Wake wake) { wake(); }, std::chrono::hours(1)), std::optional<bool>(true));
}

TEST(WaitForWake, WithoutAWakeTheTimeoutEndsTheWaitAndALateWakeDoesNothing) {
  Wake kept;
  EXPECT_EQ(WaitOnIo([&](Wake wake) { kept = std::move(wake); }, milliseconds(20),
                     [&] {
                       std::thread([&] { kept(); }).join();
                       kept = nullptr;  // a wake must not outlive its io context
                     }),
            std::optional<bool>(false));
}

}  // namespace
}  // namespace diagd::runtime
