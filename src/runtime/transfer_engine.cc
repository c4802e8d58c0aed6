#include "runtime/transfer_engine.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/fiber.h"

namespace diagd::runtime {
namespace {

using SteadyClock = std::chrono::steady_clock;

// One thread, one curl multi handle, one epoll set: curl says which sockets
// to watch and when its next timeout is (curl_multi_socket_action), so a
// wake costs the sockets that are ready, not every transfer in flight.
class TransferEngine {
 public:
  using Done = std::function<void(CURLcode)>;

  // Never destroyed: a transfer may still be parked when the process exits.
  static TransferEngine& Instance() {
    static auto* engine = new TransferEngine;
    return *engine;
  }

  void Start(CURL* easy, std::stop_token cancel, Done done) {
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, &TransferEngine::OnClose);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, this);
    bool first = false;
    {
      std::lock_guard lock(mu_);
      first = incoming_.empty();
      incoming_.emplace_back(easy, Transfer{std::move(done), std::move(cancel)});
    }
    // Only the transfer that found the queue empty wakes the loop: the loop
    // takes the whole queue at once, so the ones after it ride on that wake
    // (one eventfd write for a burst of parked runs, not one each).
    if (first) Wake();
  }

  // A transfer's cancel was requested: the loop looks for the cancelled
  // ones at once. (A transfer not yet added is checked when it is.)
  void WakeForCancel() {
    cancel_pending_ = true;
    Wake();
  }

 private:
  struct Transfer {
    Done done;
    std::stop_token cancel;
  };

  void Wake() {
    std::uint64_t one = 1;
    (void)!write(wakeup_fd_, &one, sizeof(one));
  }

  TransferEngine()
      : multi_(curl_multi_init()),
        epoll_fd_(epoll_create1(EPOLL_CLOEXEC)),
        wakeup_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    epoll_event wakeup{};
    wakeup.events = EPOLLIN;
    wakeup.data.fd = wakeup_fd_;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wakeup_fd_, &wakeup);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &TransferEngine::OnSocket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &TransferEngine::OnTimer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    std::thread([this] { Loop(); }).detach();
  }

  // curl: watch `socket` for `what` (or stop watching it). The epoll set
  // is changed only when what it holds differs: a kept connection's socket
  // stays in it between transfers, as curl last asked, so that a model call
  // on a reused connection (add IN, remove; the next call adds IN again)
  // costs no epoll_ctl at all instead of two or three.
  static int OnSocket(CURL*, curl_socket_t socket, int what, void* self, void*) {
    auto* engine = static_cast<TransferEngine*>(self);
    auto found = engine->sockets_.find(socket);
    if (what == CURL_POLL_REMOVE) {
      if (found != engine->sockets_.end()) found->second.curl_watches = false;
      return 0;
    }
    std::uint32_t events = 0;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) events |= EPOLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) events |= EPOLLOUT;
    epoll_event event{};
    event.events = events;
    event.data.fd = socket;
    if (found == engine->sockets_.end()) {
      epoll_ctl(engine->epoll_fd_, EPOLL_CTL_ADD, socket, &event);
      engine->sockets_.emplace(socket, Watched{events, true});
      return 0;
    }
    if (found->second.events != events) {
      // Not in the set after all (closed behind curl's back and the number
      // given again): added, not left unwatched.
      if (epoll_ctl(engine->epoll_fd_, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT) {
        epoll_ctl(engine->epoll_fd_, EPOLL_CTL_ADD, socket, &event);
      }
      found->second.events = events;
    }
    found->second.curl_watches = true;
    return 0;
  }

  // curl closes a socket (set on every parked transfer, and kept by its
  // connection): the socket leaves the set with the close, and must leave
  // `sockets_` too, or a new socket given the same number would be taken
  // for one already in the set and never watched.
  static int OnClose(void* self, curl_socket_t socket) {
    static_cast<TransferEngine*>(self)->sockets_.erase(socket);
    return close(socket);
  }

  // curl: call back with CURL_SOCKET_TIMEOUT in `timeout_ms` (-1: never).
  static int OnTimer(CURLM*, long timeout_ms, void* self) {
    auto* engine = static_cast<TransferEngine*>(self);
    if (timeout_ms < 0) {
      engine->timer_.reset();
    } else {
      engine->timer_ = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
    }
    return 0;
  }

  void Loop() {
    std::vector<epoll_event> events(256);
    std::vector<std::pair<CURL*, Transfer>> added;
    int running = 0;
    while (true) {
      {
        std::lock_guard lock(mu_);
        added.swap(incoming_);
      }
      for (auto& [easy, transfer] : added) {
        if (transfer.cancel.stop_requested()) {
          transfer.done(CURLE_ABORTED_BY_CALLBACK);
          continue;
        }
        // Adding arms curl's timer at once; the transfer starts below.
        if (curl_multi_add_handle(multi_, easy) != CURLM_OK) {
          transfer.done(CURLE_OUT_OF_MEMORY);  // the only way adding a fresh handle fails
          continue;
        }
        transfers_.emplace(easy, std::move(transfer));
      }
      added.clear();

      int wait_ms = -1;
      if (timer_) {
        auto left = std::chrono::ceil<std::chrono::milliseconds>(*timer_ - SteadyClock::now());
        wait_ms = static_cast<int>(std::max<std::int64_t>(0, left.count()));
      }
      int ready = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), wait_ms);
      for (int i = 0; i < ready; ++i) {
        int fd = events[static_cast<std::size_t>(i)].data.fd;
        if (fd == wakeup_fd_) {
          std::uint64_t count;
          (void)!read(wakeup_fd_, &count, sizeof(count));
          continue;
        }
        std::uint32_t what = events[static_cast<std::size_t>(i)].events;
        if (auto found = sockets_.find(fd); found != sockets_.end() && !found->second.curl_watches) {
          // A kept connection, idle, became readable: its server closed it
          // (or sent what nobody asked for). curl finds that out when it
          // next reuses it; until then it leaves the set.
          epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
          sockets_.erase(found);
          continue;
        }
        int flags = 0;
        if (what & EPOLLIN) flags |= CURL_CSELECT_IN;
        if (what & EPOLLOUT) flags |= CURL_CSELECT_OUT;
        if (what & (EPOLLERR | EPOLLHUP)) flags |= CURL_CSELECT_ERR;
        curl_multi_socket_action(multi_, fd, flags, &running);
      }
      if (timer_ && *timer_ <= SteadyClock::now()) {
        timer_.reset();
        curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
      }
      FinishDone();
      if (cancel_pending_.exchange(false)) AbortCancelled();
    }
  }

  // Removes every transfer whose cancel was requested: its connection is
  // closed and its fiber resumes at once.
  void AbortCancelled() {
    for (auto it = transfers_.begin(); it != transfers_.end();) {
      if (!it->second.cancel.stop_requested()) {
        ++it;
        continue;
      }
      curl_multi_remove_handle(multi_, it->first);
      Done done = std::move(it->second.done);
      it = transfers_.erase(it);
      done(CURLE_ABORTED_BY_CALLBACK);
    }
  }

  void FinishDone() {
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_, &queued)) {
      if (message->msg != CURLMSG_DONE) continue;
      // Copied out first: removing the handle invalidates `message`.
      CURL* easy = message->easy_handle;
      CURLcode result = message->data.result;
      curl_multi_remove_handle(multi_, easy);
      auto it = transfers_.find(easy);
      Done done = std::move(it->second.done);
      transfers_.erase(it);
      done(result);
    }
  }

  CURLM* const multi_;
  const int epoll_fd_;
  const int wakeup_fd_;
  std::mutex mu_;
  std::vector<std::pair<CURL*, Transfer>> incoming_;  // guarded by mu_
  std::atomic<bool> cancel_pending_{false};
  // The loop thread's alone from here on.
  std::unordered_map<CURL*, Transfer> transfers_;
  std::optional<SteadyClock::time_point> timer_;
  // Every socket in the epoll set, with the events it is watched for there
  // and whether curl still wants them (false: a kept connection between
  // transfers, left in the set).
  struct Watched {
    std::uint32_t events = 0;
    bool curl_watches = false;
  };
  std::unordered_map<curl_socket_t, Watched> sockets_;
};

}  // namespace

namespace {

// Making an easy handle and cleaning it up after each model call was a
// tenth of what curl cost per call; curl_easy_reset readies one for another
// transfer for less. Enough for the transfers that end together in a busy
// second, few enough to matter nothing when idle.
constexpr std::size_t kKeptParkedHandles = 64;

struct IdleHandles {
  std::mutex mu;
  std::vector<CURL*> handles;  // guarded by mu
  static IdleHandles& Instance() {
    static auto* idle = new IdleHandles;  // never destroyed: used until exit
    return *idle;
  }
};

}  // namespace

CURL* TakeParkedHandle() {
  IdleHandles& idle = IdleHandles::Instance();
  {
    std::lock_guard lock(idle.mu);
    if (!idle.handles.empty()) {
      CURL* easy = idle.handles.back();
      idle.handles.pop_back();
      return easy;
    }
  }
  return curl_easy_init();
}

void GiveBackParkedHandle(CURL* easy) {
  curl_easy_reset(easy);
  IdleHandles& idle = IdleHandles::Instance();
  {
    std::lock_guard lock(idle.mu);
    if (idle.handles.size() < kKeptParkedHandles) {
      idle.handles.push_back(easy);
      return;
    }
  }
  curl_easy_cleanup(easy);
}

CURLcode PerformParked(CURL* easy, const std::stop_token& cancel) {
  CURLcode result = CURLE_OK;
  // Touches only the engine, never the fiber's objects; it runs at once
  // when the cancel was requested already (Start then finds it so).
  std::stop_callback on_cancel(cancel, [] { TransferEngine::Instance().WakeForCancel(); });
  Park([easy, &cancel, &result](Wake wake) {
    // Nothing here touches the fiber's objects once the transfer is handed
    // over: it may finish, and the fiber resume, before Start returns.
    std::stop_token token = cancel;
    TransferEngine::Instance().Start(easy, std::move(token),
                                     [&result, wake = std::move(wake)](CURLcode code) {
                                       result = code;
                                       wake();
                                     });
  });
  return result;
}

}  // namespace diagd::runtime
