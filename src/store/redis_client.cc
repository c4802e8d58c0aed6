#include "store/redis_client.h"

#include <hiredis/hiredis.h>
#include <signal.h>
#include <sys/time.h>

#include <cerrno>
#include <algorithm>
#include <charconv>
#include <ctime>

#include "core/percent_decode.h"

namespace diagd::store {
namespace {

constexpr std::string_view kScheme = "redis://";
constexpr int kMaxDb = 9999;  // config_rules.cc's CheckCanonicalUrl allows four digits

Error UrlError(std::string_view what) {
  return Error::InvalidArgument("redis URL: " + std::string(what) +
                                " (expected redis://[[user]:password@]host[:port][/db])");
}

bool AllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool HasControlOrSpace(std::string_view text) {
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return true;
  }
  return false;
}

timeval ToTimeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

// hiredis writes with write(2): a peer that went away would raise SIGPIPE,
// which kills a process that has not ignored it. As libpq does, block it in
// this thread around the write and take back a SIGPIPE the write raised,
// leaving the process's signal dispositions alone.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe, &old_);
  }
  ~SigpipeGuard() {
    if (!was_pending_) {
      sigset_t pending;
      sigemptyset(&pending);
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        timespec zero{};
        while (sigtimedwait(&pipe, nullptr, &zero) < 0 && errno == EINTR) {
        }
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_;
  bool was_pending_ = false;
};

RedisReply CopyReply(const redisReply& reply) {
  RedisReply out;
  switch (reply.type) {
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::kString;
      out.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::kStatus;
      out.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::kError;
      out.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = reply.integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      out.elements.reserve(reply.elements);
      for (std::size_t i = 0; i < reply.elements; ++i) {
        out.elements.push_back(CopyReply(*reply.element[i]));
      }
      break;
    default:
      out.type = RedisReply::Type::kNil;
  }
  return out;
}

struct ReplyFree {
  void operator()(void* reply) const { freeReplyObject(reply); }
};

struct Argv {
  explicit Argv(const std::vector<std::string_view>& args) {
    pointers.reserve(args.size());
    lengths.reserve(args.size());
    for (std::string_view arg : args) {
      pointers.push_back(arg.data());
      lengths.push_back(arg.size());
    }
  }
  int count() const { return static_cast<int>(pointers.size()); }
  std::vector<const char*> pointers;
  std::vector<std::size_t> lengths;
};

RedisPoolOptions AtLeastOneConnection(RedisPoolOptions options) {
  if (options.max_connections == 0) options.max_connections = 1;
  options.max_backoff = std::max(options.max_backoff, options.backoff);
  return options;
}

}  // namespace

std::string RedisEndpoint::Describe() const {
  std::string host_text = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return host_text + ":" + std::to_string(port) + "/" + std::to_string(db);
}

Result<RedisEndpoint> ParseRedisUrl(std::string_view url) {
  if (url.substr(0, 9) == "rediss://") {
    return UrlError("TLS (rediss://) is not supported");
  }
  if (url.substr(0, kScheme.size()) != kScheme) return UrlError("the scheme must be redis://");
  std::string_view rest = url.substr(kScheme.size());
  if (HasControlOrSpace(rest)) return UrlError("spaces and control characters are not allowed");
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return UrlError("query parameters and fragments are not supported");
  }
  RedisEndpoint endpoint;
  // The last '@' ends the user info: a password may hold '@' (and '/').
  if (std::size_t at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    std::size_t colon = userinfo.find(':');
    if (colon == std::string_view::npos) {
      return UrlError("a user needs a password (user:password@ or :password@)");
    }
    auto user = PercentDecode(userinfo.substr(0, colon));
    auto password = PercentDecode(userinfo.substr(colon + 1));
    if (!user || !password) return UrlError("a '%' in the user or password must start %XX");
    if (password->empty()) return UrlError("the password after ':' is empty");
    endpoint.user = std::move(*user);
    endpoint.password = std::move(*password);
  }
  std::string_view authority = rest;
  if (std::size_t slash = rest.find('/'); slash != std::string_view::npos) {
    authority = rest.substr(0, slash);
    std::string_view db = rest.substr(slash + 1);
    int value = 0;
    if (!AllDigits(db) || db.size() > 4 ||
        std::from_chars(db.data(), db.data() + db.size(), value).ec != std::errc() ||
        value > kMaxDb) {
      return UrlError("the database after '/' must be a number from 0 to 9999");
    }
    endpoint.db = value;
  }
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return UrlError("an IPv6 host needs its closing ']'");
    endpoint.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return UrlError("only :port may follow an IPv6 host");
      port = after.substr(1);
      if (port.empty()) return UrlError("the port after ':' is empty");
    }
  } else {
    std::size_t colon = authority.find(':');
    endpoint.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) return UrlError("the port after ':' is empty");
    }
  }
  if (endpoint.host.empty()) return UrlError("the host is missing");
  if (endpoint.host.find_first_of("[]/@") != std::string::npos) {
    return UrlError("the host holds a character a host cannot");
  }
  if (!port.empty()) {
    int value = 0;
    if (!AllDigits(port) || port.size() > 5 ||
        std::from_chars(port.data(), port.data() + port.size(), value).ec != std::errc() ||
        value < 1 || value > 65535) {
      return UrlError("the port must be a number from 1 to 65535");
    }
    endpoint.port = value;
  }
  return endpoint;
}

RedisConnection::RedisConnection(RedisEndpoint endpoint, RedisTimeouts timeouts)
    : endpoint_(std::move(endpoint)), timeouts_(timeouts) {}

RedisConnection::~RedisConnection() { Close(); }

void RedisConnection::Close() {
  if (context_ != nullptr) {
    redisFree(context_);
    context_ = nullptr;
  }
}

Error RedisConnection::IoError(std::string_view what) {
  std::string cause = "connection lost";
  if (context_ != nullptr) {
    bool timed_out = context_->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK);
    if (timed_out) {
      cause = "no answer within " + std::to_string(timeouts_.command.count()) + " ms";
    } else if (context_->errstr[0] != '\0') {
      cause = context_->errstr;
    }
  }
  // The connection's state is unknown now (a reply may still come): never
  // use it again.
  Close();
  return Error::Unavailable("redis " + endpoint_.Describe() + ": " + std::string(what) + ": " +
                            cause);
}

Status RedisConnection::Connect() {
  if (context_ != nullptr) return OkStatus();
  timeval connect_timeout = ToTimeval(timeouts_.connect);
  redisContext* context = redisConnectWithTimeout(endpoint_.host.c_str(), endpoint_.port,
                                                  connect_timeout);
  if (context == nullptr) {
    return Error::Unavailable("redis " + endpoint_.Describe() + ": connect: out of memory");
  }
  if (context->err != 0) {
    bool timed_out = context->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EINPROGRESS ||
                                                      errno == ETIMEDOUT);
    std::string cause = timed_out ? "no connection within " +
                                        std::to_string(timeouts_.connect.count()) + " ms"
                                  : std::string(context->errstr);
    redisFree(context);
    return Error::Unavailable("redis " + endpoint_.Describe() + ": connect: " + cause);
  }
  timeval command_timeout = ToTimeval(timeouts_.command);
  if (redisSetTimeout(context, command_timeout) != REDIS_OK) {
    redisFree(context);
    return Error::Unavailable("redis " + endpoint_.Describe() + ": cannot set the socket timeout");
  }
  redisEnableKeepAlive(context);
  context_ = context;
  if (!endpoint_.password.empty()) {
    std::vector<std::string_view> auth = {"AUTH"};
    if (!endpoint_.user.empty()) auth.push_back(endpoint_.user);
    auth.push_back(endpoint_.password);
    if (auto reply = Command(auth); !reply) {
      Close();
      return reply.error();
    }
  }
  if (endpoint_.db != 0) {
    std::string db = std::to_string(endpoint_.db);
    if (auto reply = Command({"SELECT", db}); !reply) {
      Close();
      return reply.error();
    }
  }
  return OkStatus();
}

Result<RedisReply> RedisConnection::Command(const std::vector<std::string_view>& args) {
  if (Status connected = Connect(); !connected) return connected.error();
  Argv argv(args);
  void* raw = nullptr;
  {
    SigpipeGuard guard;
    raw = redisCommandArgv(context_, argv.count(), argv.pointers.data(), argv.lengths.data());
  }
  std::string name = args.empty() ? std::string("command") : std::string(args.front());
  if (raw == nullptr) return IoError(name);
  std::unique_ptr<void, ReplyFree> owned(raw);
  RedisReply reply = CopyReply(*static_cast<redisReply*>(raw));
  if (reply.is_error()) {
    return Error::Unavailable("redis " + endpoint_.Describe() + ": " + name + ": " + reply.text);
  }
  return reply;
}

Result<std::vector<RedisReply>> RedisConnection::Pipeline(
    const std::vector<std::vector<std::string_view>>& commands) {
  if (Status connected = Connect(); !connected) return connected.error();
  for (const auto& args : commands) {
    Argv argv(args);
    if (redisAppendCommandArgv(context_, argv.count(), argv.pointers.data(),
                               argv.lengths.data()) != REDIS_OK) {
      return IoError("pipeline");
    }
  }
  std::vector<RedisReply> replies;
  replies.reserve(commands.size());
  for (std::size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    int status = REDIS_OK;
    {
      SigpipeGuard guard;  // the first read flushes the pipeline's writes
      status = redisGetReply(context_, &raw);
    }
    if (status != REDIS_OK || raw == nullptr) return IoError("pipeline");
    std::unique_ptr<void, ReplyFree> owned(raw);
    replies.push_back(CopyReply(*static_cast<redisReply*>(raw)));
  }
  return replies;
}

int RedisConnection::fd() const { return context_->fd; }

Status RedisConnection::Flush() {
  SigpipeGuard guard;
  int done = 0;
  while (done == 0) {
    if (redisBufferWrite(context_, &done) != REDIS_OK) return IoError("write");
  }
  return OkStatus();
}

Status RedisConnection::Send(const std::vector<std::string_view>& args) {
  if (Status connected = Connect(); !connected) return connected.error();
  Argv argv(args);
  if (redisAppendCommandArgv(context_, argv.count(), argv.pointers.data(), argv.lengths.data()) !=
      REDIS_OK) {
    return IoError("write");
  }
  return Flush();
}

Status RedisConnection::ReadAvailable() {
  if (context_ == nullptr) return Error::Unavailable("redis " + endpoint_.Describe() + ": closed");
  if (redisBufferRead(context_) != REDIS_OK) return IoError("read");
  return OkStatus();
}

Result<std::optional<RedisReply>> RedisConnection::BufferedReply() {
  if (context_ == nullptr) return Error::Unavailable("redis " + endpoint_.Describe() + ": closed");
  void* raw = nullptr;
  if (redisGetReplyFromReader(context_, &raw) != REDIS_OK) return IoError("protocol");
  if (raw == nullptr) return std::optional<RedisReply>();
  std::unique_ptr<void, ReplyFree> owned(raw);
  return std::optional<RedisReply>(CopyReply(*static_cast<redisReply*>(raw)));
}

RedisPool::RedisPool(RedisEndpoint endpoint, RedisPoolOptions options)
    : endpoint_(std::move(endpoint)),
      options_(AtLeastOneConnection(options)),
      next_backoff_(options_.backoff) {}

RedisPool::~RedisPool() = default;

RedisPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), connection_(std::move(other.connection_)), reused_(other.reused_) {
  other.pool_ = nullptr;
}

RedisPool::Lease::~Lease() {
  if (pool_ != nullptr && connection_ != nullptr) pool_->GiveBack(std::move(connection_));
}

void RedisPool::GiveBack(std::unique_ptr<RedisConnection> connection) {
  std::lock_guard lock(mu_);
  --lent_;
  idle_.push_back(std::move(connection));
  returned_.NotifyAll();
}

void RedisPool::NoteFailure() {
  std::lock_guard lock(mu_);
  down_until_ = std::chrono::steady_clock::now() + next_backoff_;
  next_backoff_ = std::min(next_backoff_ * 2, options_.max_backoff);
}

void RedisPool::NoteSuccess() {
  std::lock_guard lock(mu_);
  next_backoff_ = options_.backoff;
}

Result<RedisPool::Lease> RedisPool::Borrow() {
  std::unique_ptr<RedisConnection> connection;
  {
    std::unique_lock lock(mu_);
    auto unavailable = [&] {
      return Error::Unavailable("redis " + endpoint_.Describe() +
                                ": unreachable a moment ago; not tried again yet");
    };
    while (idle_.empty() && lent_ >= options_.max_connections) returned_.Wait(lock);
    // Checked after the wait too: the lender may have just found Redis away.
    if (std::chrono::steady_clock::now() < down_until_) return unavailable();
    if (!idle_.empty()) {
      connection = std::move(idle_.back());
      idle_.pop_back();
    } else {
      connection = std::make_unique<RedisConnection>(endpoint_, options_.timeouts);
    }
    ++lent_;
  }
  bool reused = connection->connected();
  Lease lease(this, std::move(connection), reused);
  if (Status connected = lease->Connect(); !connected) {
    NoteFailure();
    return connected.error();
  }
  return lease;
}

template <typename T, typename F>
Result<T> RedisPool::WithRetry(F&& call) {
  auto lease = Borrow();
  if (!lease) return lease.error();
  Result<T> result = call(**lease);
  if (!result && !(*lease)->connected() && lease->reused_) {
    // An I/O error on a connection that had been idle: it may have been a
    // stale one of a Redis that restarted. One more try on a fresh dial
    // tells.
    if (Status connected = (*lease)->Connect(); !connected) {
      NoteFailure();
      return result;
    }
    result = call(**lease);
  }
  if (!result && !(*lease)->connected()) {
    NoteFailure();
  } else if (result) {
    NoteSuccess();
  }
  return result;
}

Result<RedisReply> RedisPool::Command(const std::vector<std::string_view>& args) {
  return WithRetry<RedisReply>([&](RedisConnection& c) { return c.Command(args); });
}

Result<std::vector<RedisReply>> RedisPool::Pipeline(
    const std::vector<std::vector<std::string_view>>& commands) {
  return WithRetry<std::vector<RedisReply>>(
      [&](RedisConnection& c) { return c.Pipeline(commands); });
}

}  // namespace diagd::store
