// A small Redis client on hiredis (its synchronous API): the URL of
// storage.canonical, one connection, and a pool of a few. hiredis stays in
// redis_client.cc; this header shows plain types only.
//
// Errors: a URL that cannot be used is INVALID_ARGUMENT saying what is
// wrong; a Redis that cannot be reached, times out, closes the connection or
// answers with an error is UNAVAILABLE. No message ever holds the password
// (nor the user name): they name the endpoint as host:port/db.
//
// Thread safety: a `RedisConnection` has one owner at a time; a `RedisPool`
// is safe for concurrent use.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/fiber.h"
#include "core/result.h"

struct redisContext;  // hiredis

namespace diagd::store {

// Where a Redis is, from `redis://[[user]:password@]host[:port][/db]`.
struct RedisEndpoint {
  std::string host;  // without the brackets of an IPv6 literal
  int port = 6379;
  std::string user;      // empty: AUTH with the password alone (the default user)
  std::string password;  // empty: no AUTH
  int db = 0;            // SELECTed after connect when not 0

  // "host:port/db", for messages: never the user or the password.
  std::string Describe() const;
};

// Parses a redis:// URL. The user and password may be percent-encoded
// ("%40" for '@'); the last '@' ends them, so a password may also hold a
// plain '@'. INVALID_ARGUMENT naming the part that is wrong (the scheme,
// the host, the port, the database number, a password-less user); the
// message never repeats the URL, which may hold a password.
Result<RedisEndpoint> ParseRedisUrl(std::string_view url);

struct RedisTimeouts {
  // Dialling (TCP connect) at most this long.
  std::chrono::milliseconds connect{1000};
  // Each command (write and reply) at most this long.
  std::chrono::milliseconds command{2000};
};

// One reply, copied out of hiredis.
struct RedisReply {
  enum class Type { kNil, kStatus, kError, kInteger, kString, kArray };
  Type type = Type::kNil;
  std::int64_t integer = 0;
  std::string text;  // kStatus, kError, kString
  std::vector<RedisReply> elements;  // kArray

  bool is_error() const { return type == Type::kError; }
};

// One connection to one Redis, dialled on first use and again on the first
// use after any I/O error (a timeout included: the connection is closed,
// since a late reply would be read as the answer to the next command).
// After dialling: AUTH when a password is set, SELECT when db is not 0.
class RedisConnection {
 public:
  RedisConnection(RedisEndpoint endpoint, RedisTimeouts timeouts);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Dials when not connected; nothing when connected.
  Status Connect();
  bool connected() const { return context_ != nullptr; }
  void Close();

  // One command (each argument one binary-safe string). An error reply is
  // UNAVAILABLE naming the command and Redis's message; the connection
  // stays open for the next command.
  Result<RedisReply> Command(const std::vector<std::string_view>& args);
  // Several commands written at once, then their replies read in order
  // (error replies among them are returned as replies, not as errors).
  Result<std::vector<RedisReply>> Pipeline(
      const std::vector<std::vector<std::string_view>>& commands);

  // Low-level use by a subscriber (redis_run_bus.cc): the socket, writing a
  // command without waiting, and reading what has arrived without blocking.
  // REQUIRES: connected()
  int fd() const;
  Status Send(const std::vector<std::string_view>& args);
  // Reads what the socket holds now (it must be readable, or this blocks
  // up to the command timeout) into the reply buffer.
  Status ReadAvailable();
  // The next complete reply already buffered, or nothing.
  Result<std::optional<RedisReply>> BufferedReply();

  const RedisEndpoint& endpoint() const { return endpoint_; }

 private:
  Error IoError(std::string_view what);
  Status Flush();
  Result<RedisReply> ReadReply();

  const RedisEndpoint endpoint_;
  const RedisTimeouts timeouts_;
  redisContext* context_ = nullptr;
};

struct RedisPoolOptions {
  RedisTimeouts timeouts;
  std::size_t max_connections = 4;
  // After a failure to reach Redis, calls fail at once (no dial) for this
  // long, so a run whose Redis is down pays one connect timeout, not one
  // per call. Each failure in a row doubles it, up to `max_backoff`; a
  // success starts again from `backoff`.
  std::chrono::milliseconds backoff{1000};
  std::chrono::milliseconds max_backoff{8000};
};

// A few connections to one Redis, lent to one caller at a time. A caller
// waits while all are lent (parked when it runs on a fiber: runtime::Condition);
// a lender holds one for at most a dial and a command or two, each bounded
// by its timeout. A connection that failed is closed and dialled again by
// the next borrower. The I/O itself blocks the calling thread: a Redis
// command takes well under a millisecond, and a Redis that is away costs
// one dial per back-off.
class RedisPool {
 public:
  RedisPool(RedisEndpoint endpoint, RedisPoolOptions options);
  ~RedisPool();
  RedisPool(const RedisPool&) = delete;
  RedisPool& operator=(const RedisPool&) = delete;

  // A borrowed connection; given back when destroyed.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    RedisConnection& operator*() const { return *connection_; }
    RedisConnection* operator->() const { return connection_.get(); }

   private:
    friend class RedisPool;
    Lease(RedisPool* pool, std::unique_ptr<RedisConnection> connection, bool reused)
        : pool_(pool), connection_(std::move(connection)), reused_(reused) {}
    RedisPool* pool_;
    std::unique_ptr<RedisConnection> connection_;
    bool reused_;  // connected before it was lent: it may be stale
  };

  // A connected connection, or UNAVAILABLE: Redis cannot be reached (or
  // could not a moment ago: the back-off).
  Result<Lease> Borrow();

  // The command or pipeline on a borrowed connection. A connection that had
  // been idle may have been closed by a Redis that restarted since: on an
  // I/O error there the call is tried once more on a fresh connection, so
  // only commands that may safely run twice belong here (all of diagd's do).
  Result<RedisReply> Command(const std::vector<std::string_view>& args);
  Result<std::vector<RedisReply>> Pipeline(
      const std::vector<std::vector<std::string_view>>& commands);

  const RedisEndpoint& endpoint() const { return endpoint_; }

 private:
  void GiveBack(std::unique_ptr<RedisConnection> connection);
  void NoteFailure();
  void NoteSuccess();
  template <typename T, typename F>
  Result<T> WithRetry(F&& call);

  const RedisEndpoint endpoint_;
  const RedisPoolOptions options_;
  std::mutex mu_;
  runtime::Condition returned_;
  std::vector<std::unique_ptr<RedisConnection>> idle_;  // guarded by mu_
  std::size_t lent_ = 0;                                // guarded by mu_
  std::chrono::steady_clock::time_point down_until_{};  // guarded by mu_
  std::chrono::milliseconds next_backoff_;              // guarded by mu_
};

}  // namespace diagd::store
