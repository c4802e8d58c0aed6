#include "testing/loopback_http_server.h"

#include <sys/resource.h>

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_set>
#include <utility>

namespace diagd::testing {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

// Thousands of clients may connect in the same instant (a load benchmark);
// the kernel caps this at net.core.somaxconn.
constexpr int kListenBacklog = 4096;
// Model requests carry whole conversations; they must never be cut.
constexpr std::uint64_t kMaxBodyBytes = 16 * 1024 * 1024;
constexpr std::uint32_t kMaxHeaderBytes = 64 * 1024;
// What one read asks of the socket. Beast reads as much as the buffer has
// room for, and at least 512 bytes: an unreserved buffer read a 200 KiB
// conversation 512 bytes a system call, which made a load driver's scripted
// model server the bottleneck of the load it measured.
constexpr std::size_t kReadBytes = 64 * 1024;
// A failed accept means, in practice, no file descriptor left: wait for some
// exchanges to finish rather than spin.
constexpr std::chrono::milliseconds kAcceptRetry{10};

// Errors come back as values: a client that goes away is no failure of ours.
constexpr auto kAsValues = asio::as_tuple(asio::use_awaitable);

// A handler that throws is a broken test: crash loudly (out of the I/O
// thread, so std::terminate names the exception), as a thread per
// connection did.
void Rethrow(std::exception_ptr error) {
  if (error) std::rethrow_exception(error);
}

// Each exchange holds one socket, and a benchmark's client lives in the same
// process: the usual soft limit of 1024 descriptors would stop it at ~500.
void RaiseOpenFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

LoopbackHttpServer::Request ToRequest(http::request<http::string_body> in) {
  LoopbackHttpServer::Request out;
  out.method = std::string(in.method_string());
  out.target = std::string(in.target());
  for (const auto& field : in) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers[name] = std::string(field.value());
  }
  out.body = std::move(in.body());
  return out;
}

http::response<http::string_body> ToHttp(LoopbackHttpServer::Response in, bool keep_alive) {
  http::response<http::string_body> out;
  out.version(11);
  out.result(static_cast<unsigned>(in.status));
  out.set(http::field::content_type, in.content_type);
  for (const auto& [name, value] : in.headers) out.set(name, value);
  out.keep_alive(keep_alive);  // off: `Connection: close`, one exchange per connection
  out.body() = std::move(in.body);
  out.prepare_payload();
  return out;
}

// Beast holds a header field of less than 64 KiB; an answer with a longer
// one (what a hostile endpoint may send) has its head written by hand.
bool FitsBeast(const LoopbackHttpServer::Response& in) {
  constexpr std::size_t kMaxBeastField = 65535;
  for (const auto& [name, value] : in.headers) {
    if (name.size() > kMaxBeastField || value.size() > kMaxBeastField) return false;
  }
  return true;
}

std::string HandWritten(LoopbackHttpServer::Response in, bool keep_alive) {
  const auto status = static_cast<unsigned>(in.status);
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " +
                    std::string(http::obsolete_reason(http::int_to_status(status))) + "\r\n";
  out += "Content-Type: " + in.content_type + "\r\n";
  for (const auto& [name, value] : in.headers) out += name + ": " + value + "\r\n";
  out += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  out += "Content-Length: " + std::to_string(in.body.size()) + "\r\n\r\n";
  return out + in.body;
}

void Close(tcp::socket& socket) {
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

// One connection and the timer its answer waits on; registered while alive
// so that stopping can cut both short.
struct Exchange {
  tcp::socket socket;
  asio::steady_timer delay;
  boost::beast::flat_buffer buffer;  // what was read past one request stays for the next
};

}  // namespace

struct LoopbackHttpServer::Loop {
  explicit Loop(Handler handler);
  asio::awaitable<void> Accept();
  asio::awaitable<void> Serve(tcp::socket socket);
  asio::awaitable<bool> Converse(Exchange& exchange);
  void Stop();

  Handler handler;
  asio::io_context io{1};  // one thread runs it: handlers never overlap
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io};
  // Touched only on the I/O thread, so unguarded.
  bool stopping = false;
  std::unordered_set<Exchange*> live;

  std::atomic<bool> record{true};
  std::atomic<bool> keep_alive{false};
  mutable std::mutex mu;
  std::vector<Request> requests;  // guarded by mu
  std::thread thread;
};

LoopbackHttpServer::Loop::Loop(Handler handler) : handler(std::move(handler)) {
  RaiseOpenFileLimit();
  tcp::endpoint endpoint(asio::ip::address_v4::loopback(), 0);  // a free port
  acceptor.open(endpoint.protocol());
  acceptor.set_option(tcp::acceptor::reuse_address(true));
  acceptor.bind(endpoint);
  acceptor.listen(kListenBacklog);
  asio::co_spawn(io, Accept(), Rethrow);
  thread = std::thread([this] { io.run(); });
}

asio::awaitable<void> LoopbackHttpServer::Loop::Accept() {
  while (!stopping) {
    auto [error, socket] = co_await acceptor.async_accept(kAsValues);
    if (stopping) break;
    if (error) {
      accept_retry.expires_after(kAcceptRetry);
      co_await accept_retry.async_wait(kAsValues);
      continue;
    }
    asio::co_spawn(io, Serve(std::move(socket)), Rethrow);
  }
}

asio::awaitable<void> LoopbackHttpServer::Loop::Serve(tcp::socket socket) {
  Exchange exchange{std::move(socket), asio::steady_timer(io)};
  exchange.buffer.reserve(kReadBytes);
  if (stopping) co_return;
  live.insert(&exchange);
  struct Unregister {
    std::unordered_set<Exchange*>& live;
    Exchange* exchange;
    ~Unregister() { live.erase(exchange); }
  } unregister{live, &exchange};
  while (!stopping && co_await Converse(exchange)) {
  }
}

// One exchange; true when the connection stays open for the next.
asio::awaitable<bool> LoopbackHttpServer::Loop::Converse(Exchange& exchange) {
  http::request_parser<http::string_body> parser;
  parser.body_limit(kMaxBodyBytes);
  parser.header_limit(kMaxHeaderBytes);
  auto [read_error, read_bytes] =
      co_await http::async_read(exchange.socket, exchange.buffer, parser, kAsValues);
  if (read_error || stopping) co_return false;  // the socket closes with the exchange

  const bool request_keep_alive = parser.get().keep_alive();
  Request request = ToRequest(parser.release());
  if (record) {
    std::lock_guard<std::mutex> lock(mu);
    requests.push_back(request);
  }
  Response response = handler(std::move(request));
  if (response.hang_up) {
    Close(exchange.socket);
    co_return false;
  }
  if (response.delay > std::chrono::milliseconds(0)) {
    exchange.delay.expires_after(response.delay);
    co_await exchange.delay.async_wait(kAsValues);
    if (stopping) co_return false;  // cut short: no answer
  }
  const bool again = keep_alive && request_keep_alive;
  const bool close_after = response.close_after_answer;
  boost::system::error_code write_error;
  if (FitsBeast(response)) {
    http::response<http::string_body> answer = ToHttp(std::move(response), again);
    std::tie(write_error, std::ignore) =
        co_await http::async_write(exchange.socket, answer, kAsValues);
  } else {
    const std::string answer = HandWritten(std::move(response), again);
    std::tie(write_error, std::ignore) =
        co_await asio::async_write(exchange.socket, asio::buffer(answer), kAsValues);
  }
  if (!again || write_error || close_after) {
    Close(exchange.socket);
    co_return false;
  }
  co_return true;
}

// On the I/O thread: every pending accept, read, delay and write completes at
// once with an error, every coroutine ends, and `io.run()` returns.
void LoopbackHttpServer::Loop::Stop() {
  stopping = true;
  boost::system::error_code ignored;
  acceptor.close(ignored);
  accept_retry.cancel();
  for (Exchange* exchange : live) {
    exchange->delay.cancel();
    exchange->socket.close(ignored);
  }
}

LoopbackHttpServer::LoopbackHttpServer(Handler handler)
    : loop_(std::make_unique<Loop>(std::move(handler))) {
  port_ = loop_->acceptor.local_endpoint().port();
}

LoopbackHttpServer::~LoopbackHttpServer() {
  asio::post(loop_->io, [loop = loop_.get()] { loop->Stop(); });
  loop_->thread.join();
}

std::vector<LoopbackHttpServer::Request> LoopbackHttpServer::Requests() const {
  std::lock_guard<std::mutex> lock(loop_->mu);
  return loop_->requests;
}

void LoopbackHttpServer::set_record_requests(bool record) { loop_->record = record; }

void LoopbackHttpServer::set_keep_alive(bool keep_alive) { loop_->keep_alive = keep_alive; }

}  // namespace diagd::testing
