// The run bus on Redis pub/sub (app/run_bus.h, docs/deploy.md): the
// instances that share storage.canonical = "redis://..." tell each other
// each new event of a run and each request to cancel one.
//
// Channels and messages (one JSON object each, so nothing depends on how
// the fields look):
//   diagd:run-events  {"run_id": "...", "id": 7, "name": "progress", "data": "<the event's JSON text>"}
//   diagd:run-cancel  {"run_id": "..."}
// A message that is not one of these is dropped and counted, never a crash.
//
// Threads and connections, each its own:
// - PublishEvent queues (at most `max_queued` events; past that it drops
//   and counts) and returns at once. One publisher thread takes what is
//   queued and sends it as PUBLISHes in one pipeline. While Redis is
//   unreachable it drops what is queued (counted) instead of holding it, and
//   dials again after `reconnect_backoff`: a message lost this way is found
//   in the run store (a reader sees the gap in the event ids, or the
//   generation change of its own subscription).
// - PublishCancel publishes on a small pooled connection and waits for it.
// - One subscriber thread (from Start) SUBSCRIBEs to both channels and
//   waits on the socket and on a wake-up of Stop, so Stop is prompt. On any
//   error (or a silence longer than two `ping_interval`s: it PINGs when
//   idle) it reports on_state(false) once, waits `reconnect_backoff`, dials
//   and subscribes again, then bumps the generation and reports
//   on_state(true).
//
// Thread safety: Publish*, up, generation and stats from any thread. The
// listener's callbacks come from the subscriber thread, one at a time; they
// must not call Stop (it joins that thread) and should return quickly.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "app/run_bus.h"
#include "core/result.h"
#include "store/redis_client.h"

namespace diagd::store {

inline constexpr std::string_view kRunEventsChannel = "diagd:run-events";
inline constexpr std::string_view kRunCancelChannel = "diagd:run-cancel";

struct RedisRunBusOptions {
  RedisTimeouts timeouts;
  std::size_t max_queued = 10'000;
  std::chrono::milliseconds reconnect_backoff{500};
  std::chrono::milliseconds ping_interval{5000};
};

class RedisRunBus final : public app::RunBus {
 public:
  // Counts since construction.
  struct Stats {
    std::uint64_t published = 0;  // events Redis accepted
    std::uint64_t dropped = 0;    // events lost: queue full, Redis unreachable, stopped
    std::uint64_t malformed = 0;  // messages received that were not the bus's
  };

  // Redis is not contacted here: the publisher dials on the first event, the
  // subscriber on Start.
  RedisRunBus(RedisEndpoint endpoint, RedisRunBusOptions options = {});
  ~RedisRunBus() override;  // Stop()
  RedisRunBus(const RedisRunBus&) = delete;
  RedisRunBus& operator=(const RedisRunBus&) = delete;

  // app::RunBus
  void PublishEvent(const std::string& run_id, const app::RunEvent& event) override;
  Status PublishCancel(const std::string& run_id) override;
  void Start(Listener listener) override;
  // Idempotent; after it, events are dropped and no callback comes.
  void Stop() override;
  bool up() const override { return up_.load(); }
  std::uint64_t generation() const override { return generation_.load(); }

  Stats stats() const;

 private:
  struct Queued {
    std::string run_id;
    app::RunEvent event;
  };
  void PublishLoop();
  bool PublishBatch(RedisConnection& connection, const std::deque<Queued>& batch);
  void SubscribeLoop();
  // Reads and dispatches until the subscription fails or Stop.
  void ServeSubscription(RedisConnection& connection);
  // Subscribes to both channels; messages that come before both are
  // confirmed are kept in `early`.
  Status Subscribe(RedisConnection& connection, std::vector<RedisReply>& early);
  void Dispatch(const RedisReply& reply);
  // Waits until `fd` is readable (true), `timeout` passes or Stop (false).
  bool WaitReadable(int fd, std::chrono::milliseconds timeout);
  void Pause(std::chrono::milliseconds duration);

  const RedisEndpoint endpoint_;
  const RedisRunBusOptions options_;
  RedisPool cancel_pool_;
  int wake_fd_ = -1;  // an eventfd Stop writes to

  std::mutex mu_;
  std::condition_variable queued_cv_;
  std::deque<Queued> queue_;  // guarded by mu_
  bool started_ = false;      // guarded by mu_
  Listener listener_;         // set by Start, then read by the subscriber thread only
  std::atomic<bool> stopping_{false};

  std::atomic<bool> up_{false};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::uint64_t> published_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> malformed_{0};

  std::mutex stop_mu_;  // one Stop joins at a time
  std::thread publisher_;
  std::thread subscriber_;
};

// The bus for storage.canonical = "redis://...". Only a bad URL fails
// (INVALID_ARGUMENT saying what is wrong); a Redis that is down now is
// fine: the threads keep trying.
Result<std::unique_ptr<app::RunBus>> OpenRedisRunBus(const std::string& url);

}  // namespace diagd::store
