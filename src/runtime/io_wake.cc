#include "runtime/io_wake.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>

namespace diagd::runtime {
namespace {

namespace asio = boost::asio;

// Shared by the waiting coroutine and the wake, so whichever side is later
// finds it alive.
struct Wakeup {
  explicit Wakeup(asio::any_io_executor executor) : timer(std::move(executor)) {}
  asio::steady_timer timer;
  bool woken = false;  // touched on the io thread only
};

}  // namespace

asio::awaitable<bool> WaitForWake(std::function<void(Wake)> watch,
                                  std::chrono::steady_clock::duration timeout) {
  auto wakeup = std::make_shared<Wakeup>(co_await asio::this_coro::executor);
  wakeup->timer.expires_after(timeout);
  watch([wakeup] {
    asio::post(wakeup->timer.get_executor(), [wakeup] {
      wakeup->woken = true;
      wakeup->timer.cancel();
    });
  });
  // Cancelled by the wake or expired: either way the wait is over.
  co_await wakeup->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  co_return wakeup->woken;
}

}  // namespace diagd::runtime
