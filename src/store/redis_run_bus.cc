#include "store/redis_run_bus.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <vector>

#include "core/json.h"
#include "core/json_writer.h"

namespace diagd::store {
namespace {

using Clock = std::chrono::steady_clock;

// Events sent in one pipeline at most: a burst after a pause goes out in a
// few round trips, and none holds the queue's lock while it is sent.
constexpr std::size_t kMaxBatch = 256;

std::string EncodeEvent(const std::string& run_id, const app::RunEvent& event) {
  json::JsonWriter w(event.data.size() + run_id.size() + 64);
  w.BeginObject()
      .Key("run_id").String(run_id)
      .Key("id").Int(event.id)
      .Key("name").String(event.name)
      .Key("data").String(event.data)
      .EndObject();
  return w.Take();
}

std::string EncodeCancel(const std::string& run_id) {
  json::JsonWriter w(run_id.size() + 16);
  w.BeginObject().Key("run_id").String(run_id).EndObject();
  return w.Take();
}

// The object's members, when `payload` is a JSON object holding exactly
// `keys`.
std::optional<boost::json::object> ObjectWith(std::string_view payload,
                                              std::initializer_list<std::string_view> keys) {
  auto parsed = json::Parse(payload);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  boost::json::object& object = parsed->as_object();
  if (object.size() != keys.size()) return std::nullopt;
  for (std::string_view key : keys) {
    if (!object.contains(key)) return std::nullopt;
  }
  return std::move(object);
}

struct DecodedEvent {
  std::string run_id;
  app::RunEvent event;
};

std::optional<DecodedEvent> DecodeEvent(std::string_view payload) {
  auto object = ObjectWith(payload, {"run_id", "id", "name", "data"});
  if (!object) return std::nullopt;
  auto run_id = json::GetString(*object, "run_id");
  auto name = json::GetString(*object, "name");
  auto data = json::GetString(*object, "data");
  const boost::json::value& id = object->at("id");
  if (!run_id || run_id->empty() || !name || name->empty() || !data) return std::nullopt;
  std::int64_t number = 0;
  if (id.is_int64()) {
    number = id.as_int64();
  } else if (id.is_uint64() &&
             id.as_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    number = static_cast<std::int64_t>(id.as_uint64());
  } else {
    return std::nullopt;
  }
  if (number < 1) return std::nullopt;
  return DecodedEvent{std::string(*run_id), {number, std::string(*name), std::string(*data)}};
}

std::optional<std::string> DecodeCancel(std::string_view payload) {
  auto object = ObjectWith(payload, {"run_id"});
  if (!object) return std::nullopt;
  auto run_id = json::GetString(*object, "run_id");
  if (!run_id || run_id->empty()) return std::nullopt;
  return std::string(*run_id);
}

RedisRunBusOptions Sane(RedisRunBusOptions options) {
  options.ping_interval = std::max(options.ping_interval, std::chrono::milliseconds(10));
  options.reconnect_backoff = std::max(options.reconnect_backoff, std::chrono::milliseconds(0));
  return options;
}

bool IsText(const RedisReply& reply) {
  return reply.type == RedisReply::Type::kString || reply.type == RedisReply::Type::kStatus;
}

}  // namespace

RedisRunBus::RedisRunBus(RedisEndpoint endpoint, RedisRunBusOptions options)
    : endpoint_(std::move(endpoint)),
      options_(Sane(options)),
      cancel_pool_(endpoint_, {.timeouts = options.timeouts,
                               .max_connections = 2,
                               .backoff = options.reconnect_backoff,
                               .max_backoff = options.reconnect_backoff}) {
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  publisher_ = std::thread([this] { PublishLoop(); });
}

RedisRunBus::~RedisRunBus() {
  Stop();
  if (wake_fd_ >= 0) close(wake_fd_);
}

void RedisRunBus::PublishEvent(const std::string& run_id, const app::RunEvent& event) {
  {
    std::lock_guard lock(mu_);
    if (stopping_.load() || queue_.size() >= options_.max_queued) {
      ++dropped_;
      return;
    }
    queue_.push_back({run_id, event});
  }
  queued_cv_.notify_one();
}

Status RedisRunBus::PublishCancel(const std::string& run_id) {
  auto reply = cancel_pool_.Command({"PUBLISH", kRunCancelChannel, EncodeCancel(run_id)});
  if (!reply) return reply.error();
  return OkStatus();
}

void RedisRunBus::Start(Listener listener) {
  std::lock_guard lock(mu_);
  if (started_ || stopping_.load()) return;
  started_ = true;
  listener_ = std::move(listener);
  subscriber_ = std::thread([this] { SubscribeLoop(); });
}

void RedisRunBus::Stop() {
  std::lock_guard stop_lock(stop_mu_);
  {
    std::lock_guard lock(mu_);
    stopping_.store(true);
  }
  queued_cv_.notify_all();
  if (wake_fd_ >= 0) {
    std::uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof one);
  }
  if (publisher_.joinable()) publisher_.join();
  if (subscriber_.joinable()) subscriber_.join();
  up_.store(false);
}

RedisRunBus::Stats RedisRunBus::stats() const {
  return {published_.load(), dropped_.load(), malformed_.load()};
}

void RedisRunBus::PublishLoop() {
  RedisConnection connection(endpoint_, options_.timeouts);
  Clock::time_point retry_at{};
  while (true) {
    std::deque<Queued> batch;
    {
      std::unique_lock lock(mu_);
      queued_cv_.wait(lock, [&] { return stopping_.load() || !queue_.empty(); });
      if (stopping_.load()) {
        // What is queued goes out only on a connection that is up now: a
        // stopping instance does not wait for a Redis that is away.
        if (!connection.connected()) {
          dropped_ += queue_.size();
          queue_.clear();
          return;
        }
        batch.swap(queue_);
      } else {
        std::size_t n = std::min(queue_.size(), kMaxBatch);
        batch.insert(batch.end(), std::make_move_iterator(queue_.begin()),
                     std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(n)));
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
      }
    }
    bool stopping = stopping_.load();
    if (!connection.connected() && Clock::now() < retry_at) {
      dropped_ += batch.size();  // Redis was unreachable a moment ago
      continue;
    }
    bool reused = connection.connected();
    bool sent = PublishBatch(connection, batch);
    if (!sent && reused && !stopping) {
      // A connection that had worked may be one to a Redis that restarted
      // since: one fresh dial tells (a repeated event is harmless: readers
      // go by event ids).
      sent = PublishBatch(connection, batch);
    }
    if (sent) {
      published_ += batch.size();
    } else {
      dropped_ += batch.size();
      retry_at = Clock::now() + options_.reconnect_backoff;
    }
    if (stopping) return;
  }
}

bool RedisRunBus::PublishBatch(RedisConnection& connection, const std::deque<Queued>& batch) {
  std::vector<std::string> payloads;
  payloads.reserve(batch.size());
  for (const Queued& queued : batch) payloads.push_back(EncodeEvent(queued.run_id, queued.event));
  std::vector<std::vector<std::string_view>> commands;
  commands.reserve(payloads.size());
  for (const std::string& payload : payloads) {
    commands.push_back({"PUBLISH", kRunEventsChannel, payload});
  }
  auto replies = connection.Pipeline(commands);
  return replies.has_value();
}

void RedisRunBus::SubscribeLoop() {
  bool was_up = false;
  while (!stopping_.load()) {
    RedisConnection connection(endpoint_, options_.timeouts);
    std::vector<RedisReply> early;
    if (Status subscribed = Subscribe(connection, early); subscribed) {
      ++generation_;
      up_.store(true);
      was_up = true;
      if (listener_.on_state) listener_.on_state(true);
      for (const RedisReply& reply : early) Dispatch(reply);
      ServeSubscription(connection);
    }
    if (stopping_.load()) break;
    if (was_up) {
      up_.store(false);
      was_up = false;
      if (listener_.on_state) listener_.on_state(false);
    }
    Pause(options_.reconnect_backoff);
  }
  up_.store(false);
}

Status RedisRunBus::Subscribe(RedisConnection& connection, std::vector<RedisReply>& early) {
  if (Status connected = connection.Connect(); !connected) return connected;
  if (Status sent = connection.Send({"SUBSCRIBE", kRunEventsChannel, kRunCancelChannel});
      !sent) {
    return sent;
  }
  // Both confirmations, within the command timeout.
  int confirmed = 0;
  Clock::time_point deadline = Clock::now() + options_.timeouts.command;
  while (confirmed < 2) {
    auto reply = connection.BufferedReply();
    if (!reply) return reply.error();
    if (reply->has_value()) {
      const RedisReply& r = **reply;
      if (r.is_error()) return Error::Unavailable("redis: SUBSCRIBE: " + r.text);
      if (r.type == RedisReply::Type::kArray && !r.elements.empty() &&
          r.elements[0].text == "subscribe") {
        ++confirmed;
      } else {
        // A message on the first channel, come before the second's
        // confirmation: delivered once the subscription is up.
        early.push_back(std::move(**reply));
      }
      continue;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return Error::Unavailable("redis: SUBSCRIBE: no confirmation");
    if (!WaitReadable(connection.fd(), left)) {
      return Error::Unavailable(stopping_.load() ? "stopped" : "redis: SUBSCRIBE: no answer");
    }
    if (Status read = connection.ReadAvailable(); !read) return read;
  }
  return OkStatus();
}

void RedisRunBus::ServeSubscription(RedisConnection& connection) {
  Clock::time_point last_heard = Clock::now();
  bool pinged = false;
  while (!stopping_.load()) {
    // Everything already buffered first: one read may hold many messages.
    while (true) {
      auto reply = connection.BufferedReply();
      if (!reply) return;
      if (!reply->has_value()) break;
      Dispatch(**reply);
    }
    auto since = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - last_heard);
    if (since >= 2 * options_.ping_interval) return;  // not even the PING was answered
    if (since >= options_.ping_interval && !pinged) {
      if (!connection.Send({"PING"})) return;
      pinged = true;
    }
    auto wait = options_.ping_interval - (since % options_.ping_interval);
    if (!WaitReadable(connection.fd(), wait)) continue;
    if (!connection.ReadAvailable()) return;
    last_heard = Clock::now();
    pinged = false;
  }
}

void RedisRunBus::Dispatch(const RedisReply& reply) {
  // ["message", channel, payload]; the rest (a PING's ["pong", ""], late
  // confirmations) says only that the connection lives.
  if (reply.type != RedisReply::Type::kArray || reply.elements.empty() ||
      !IsText(reply.elements[0]) || reply.elements[0].text != "message") {
    return;
  }
  if (reply.elements.size() != 3 || !IsText(reply.elements[1]) || !IsText(reply.elements[2])) {
    ++malformed_;
    return;
  }
  const std::string& channel = reply.elements[1].text;
  const std::string& payload = reply.elements[2].text;
  if (channel == kRunEventsChannel) {
    auto decoded = DecodeEvent(payload);
    if (!decoded) {
      ++malformed_;
      return;
    }
    if (listener_.on_event) listener_.on_event(decoded->run_id, decoded->event);
  } else if (channel == kRunCancelChannel) {
    auto run_id = DecodeCancel(payload);
    if (!run_id) {
      ++malformed_;
      return;
    }
    if (listener_.on_cancel) listener_.on_cancel(*run_id);
  } else {
    ++malformed_;
  }
}

bool RedisRunBus::WaitReadable(int fd, std::chrono::milliseconds timeout) {
  pollfd fds[2] = {{fd, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  int ready = 0;
  do {
    ready = poll(fds, 2, static_cast<int>(std::max<std::int64_t>(timeout.count(), 0)));
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0 || stopping_.load()) return false;
  // Readable, or hung up / in error: ReadAvailable then reports which.
  return (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

void RedisRunBus::Pause(std::chrono::milliseconds duration) {
  pollfd wake = {wake_fd_, POLLIN, 0};
  Clock::time_point until = Clock::now() + duration;
  while (!stopping_.load()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return;
    poll(&wake, 1, static_cast<int>(left.count()));
  }
}

Result<std::unique_ptr<app::RunBus>> OpenRedisRunBus(const std::string& url) {
  auto endpoint = ParseRedisUrl(url);
  if (!endpoint) return endpoint.error();
  return std::unique_ptr<app::RunBus>(std::make_unique<RedisRunBus>(std::move(*endpoint)));
}

}  // namespace diagd::store
