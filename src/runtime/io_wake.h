// The bridge from a fiber (or any other thread) to a coroutine on the io
// thread: the coroutine hands out a wake and waits for it, with a timeout;
// the wake, called from anywhere, posts the coroutine's resumption to its
// own executor, so the coroutine never runs off the io thread and the
// caller of the wake never blocks. Include from `.cc` files only (Asio).
//
// Thread safety: `WaitForWake` runs on a single-threaded executor (the one
// io thread); the wake may be called from any thread, at most once, and
// neither called nor destroyed once that executor's io context is gone.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>

#include "runtime/fiber.h"

namespace diagd::runtime {

// Calls `watch` with a wake and waits until it is called (true) or
// `timeout` passes (false). The wake may outlive the wait: a late call
// does nothing.
boost::asio::awaitable<bool> WaitForWake(std::function<void(Wake)> watch,
                                         std::chrono::steady_clock::duration timeout);

}  // namespace diagd::runtime
