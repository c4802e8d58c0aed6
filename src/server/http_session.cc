// One client connection: reads requests within the configured limits and
// timeouts, refuses any whose framing is in doubt (request_framing.h),
// authenticates, routes (docs/server.md) and answers,
// with SSE for the run streams.
//
// GCC 12 rule for every coroutine here: co_await only named locals or plain
// values. A temporary with a destructor inside a co_await expression (say
// `co_await Reply(ErrorResponse({500, "X", "y"}))`) may be destroyed twice.
#include <algorithm>
#include <array>
#include <optional>

#include "server/exchange.h"
#include "server/request_framing.h"
#include "server/request_text.h"

namespace diagd::server {
namespace {

// How long a client may take (docs/server.md, "Limits"): a fresh connection
// to send its first byte, any to send a whole head once its first byte came,
// an idle kept-alive one to begin its next request, and a request body.
constexpr auto kFirstByteTimeout = std::chrono::seconds(5);
constexpr auto kHeadTimeout = std::chrono::seconds(10);
constexpr auto kKeepAliveTimeout = std::chrono::seconds(60);
constexpr auto kBodyTimeout = std::chrono::seconds(60);
// After a refusal: how long, and how much, the client's further bytes are
// read and dropped before the close (see CloseLingering).
constexpr auto kLingerTimeout = std::chrono::seconds(2);
constexpr std::size_t kLingerBytes = 1 << 20;
constexpr std::size_t kReadChunk = 8192;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

using IdleConnection = Server::Impl::IdleConnection;
using RequestParser = http::request_parser<http::string_body>;

// Constant time in the token's content and length: no early exit on the
// first difference, and a wrong length costs what a wrong byte does.
bool SameToken(std::string_view given, std::string_view allowed) {
  unsigned char diff = given.size() == allowed.size() ? 0 : 1;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    unsigned char c = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff |= static_cast<unsigned char>(c ^ static_cast<unsigned char>(allowed[i]));
  }
  return diff == 0;
}

// The token of `Authorization: Bearer <token>`: RFC 9110 11.4 takes the
// scheme case-insensitively, then one or more spaces; the token is exact.
std::optional<std::string_view> BearerToken(std::string_view header) {
  constexpr std::string_view kScheme = "bearer";
  if (header.size() <= kScheme.size() || header[kScheme.size()] != ' ' ||
      !beast::iequals(header.substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  std::string_view token = header.substr(kScheme.size());
  token.remove_prefix(std::min(token.find_first_not_of(' '), token.size()));
  if (token.empty()) return std::nullopt;
  return token;
}

bool Authorized(const Server::Impl& server, const Request& request) {
  if (server.config.auth_tokens.empty()) return true;
  std::optional<std::string_view> token = BearerToken(request[http::field::authorization]);
  if (!token) return false;
  bool match = false;
  for (const auto& allowed : server.config.auth_tokens) match |= SameToken(*token, allowed);
  return match;
}

// A route pattern for the metrics (never a raw path: ids would make a
// series per run), and the ids in it.
struct Route {
  std::string_view pattern;
  http::verb method = http::verb::get;
  std::string id;      // the run or conversation id
  std::string second;  // the tool call id, or the console file's path
  bool open = false;   // answered without a token (/healthz, the console)
};

// An id in the path: one segment, percent-decoded (a client encodes an id
// with `/ ? # %` in it), or nothing when it is empty or names nothing a
// store can hold (request_text.h): no route, so 404.
std::optional<std::string> PathId(std::string_view segment) {
  if (segment.empty() || segment.find('/') != std::string_view::npos) return std::nullopt;
  std::optional<std::string> id = DecodePathSegment(segment);
  if (!id || id->empty()) return std::nullopt;
  return id;
}

// "/api/v1/runs/{id}" and its sub-routes.
std::optional<Route> MatchRunRoute(std::string_view rest) {
  std::optional<std::string> id = PathId(rest.substr(0, rest.find('/')));
  if (!id) return std::nullopt;
  std::string_view tail = rest.substr(std::min(rest.find('/'), rest.size()));
  if (tail.empty()) return Route{"/api/v1/runs/{id}", http::verb::get, std::move(*id)};
  if (tail == "/events") {
    return Route{"/api/v1/runs/{id}/events", http::verb::get, std::move(*id)};
  }
  if (tail == "/cancel") {
    return Route{"/api/v1/runs/{id}/cancel", http::verb::post, std::move(*id)};
  }
  constexpr std::string_view kObservations = "/observations/";
  if (!tail.starts_with(kObservations)) return std::nullopt;
  std::optional<std::string> call = PathId(tail.substr(kObservations.size()));
  if (!call) return std::nullopt;
  return Route{"/api/v1/runs/{id}/observations/{tool_call_id}", http::verb::get,
               std::move(*id), std::move(*call)};
}

std::optional<Route> MatchRoute(std::string_view path) {
  if (path == "/healthz") return Route{"/healthz", http::verb::get, {}, {}, true};
  if (path == "/") return Route{"/", http::verb::get, {}, "index.html", true};
  constexpr std::string_view kUi = "/ui/";
  if (path.starts_with(kUi)) {
    return Route{"/ui/{file}", http::verb::get, {}, std::string(path.substr(kUi.size())), true};
  }
  if (path == "/metrics") return Route{"/metrics", http::verb::get};
  if (path == "/api/v1/chat") return Route{"/api/v1/chat", http::verb::post};
  if (path == "/api/v1/runs") return Route{"/api/v1/runs", http::verb::get};
  constexpr std::string_view kConversations = "/api/v1/conversations/";
  if (path.starts_with(kConversations)) {
    std::optional<std::string> id = PathId(path.substr(kConversations.size()));
    if (!id) return std::nullopt;
    return Route{"/api/v1/conversations/{id}", http::verb::get, std::move(*id)};
  }
  constexpr std::string_view kRuns = "/api/v1/runs/";
  if (!path.starts_with(kRuns)) return std::nullopt;
  return MatchRunRoute(path.substr(kRuns.size()));
}

// Answers one request; false when the connection must close.
asio::awaitable<bool> Dispatch(Server::Impl& server, beast::tcp_stream& stream,
                               const Request& request) {
  std::string_view target = request.target();
  std::string_view path = target.substr(0, target.find('?'));
  std::string_view query = path.size() < target.size() ? target.substr(path.size() + 1) : "";
  std::optional<Route> route = MatchRoute(path);
  Exchange ex{server, stream, request, route ? route->pattern : "unmatched"};

  // /healthz answers load balancers, and the console's files the browser,
  // without a token (the page asks for one and sends it to the API);
  // everything else, unknown paths included, needs one.
  if ((!route || !route->open) && !Authorized(server, request)) {
    Response response = ErrorResponse(Unauthorized());
    response.set(http::field::www_authenticate, "Bearer");
    co_return co_await ex.Reply(std::move(response));
  }
  if (!route) {
    ApiError error = NotFound("no such route");
    co_return co_await ex.Fail(std::move(error));
  }
  // HEAD is GET without the body (Reply sends none), except on the event
  // stream, which has no end to measure.
  bool head_of_get = request.method() == http::verb::head && route->method == http::verb::get &&
                     route->pattern != "/api/v1/runs/{id}/events";
  if (request.method() != route->method && !head_of_get) {
    Response response = ErrorResponse(MethodNotAllowed());
    response.set(http::field::allow, http::to_string(route->method));
    co_return co_await ex.Reply(std::move(response));
  }
  const std::string_view pattern = route->pattern;
  if (pattern == "/healthz") co_return co_await Health(ex);
  if (pattern == "/" || pattern == "/ui/{file}") co_return co_await Console(ex, route->second);
  if (pattern == "/metrics") {
    Response response{http::status::ok, 11};
    response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
    response.body() = server.metrics.Render(server.Gauges());
    co_return co_await ex.Reply(std::move(response));
  }
  if (pattern == "/api/v1/chat") co_return co_await Chat(ex);
  if (pattern == "/api/v1/runs") co_return co_await RunList(ex, query);
  if (pattern == "/api/v1/conversations/{id}") {
    co_return co_await Conversation(ex, route->id, query);
  }
  if (pattern == "/api/v1/runs/{id}") co_return co_await RunRecord(ex, route->id);
  if (pattern == "/api/v1/runs/{id}/cancel") co_return co_await CancelRun(ex, route->id);
  if (pattern == "/api/v1/runs/{id}/observations/{tool_call_id}") {
    co_return co_await Observation(ex, route->id, route->second);
  }
  co_return co_await RunEvents(ex, route->id);
}

// Answers a request that was not (fully) read, so it has no route. The
// caller closes: the rest of it cannot be told from a next request.
asio::awaitable<void> RefuseUnread(Server::Impl& server, beast::tcp_stream& stream,
                                   const ApiError& error) {
  server.metrics.RecordHttpRequest("unread", static_cast<int>(error.status));
  Response response = ErrorResponse(error);
  co_await Send(stream, std::move(response), false);
}

// Ends the connection after a refusal: stops sending, then reads and drops
// what the client still sends (the rest of its request) for a short while.
// Closing with unread bytes makes the kernel send a reset, which can wipe
// the answer out of the client's receive buffer before it was read.
asio::awaitable<void> CloseLingering(beast::tcp_stream& stream) {
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  stream.expires_after(kLingerTimeout);
  std::array<char, 4096> sink;
  for (std::size_t dropped = 0; dropped < kLingerBytes;) {
    auto [error, n] = co_await stream.async_read_some(asio::buffer(sink), kNoThrow);
    if (error) break;
    dropped += n;
  }
}

std::string_view Bytes(const beast::flat_buffer& buffer) {
  return {static_cast<const char*>(buffer.data().data()), buffer.size()};
}

enum class HeadRead {
  kComplete,  // the buffer begins with a whole head
  kTooLarge,  // max_header_bytes arrived without the head's end
  kGone,      // closed, timed out, or closed for a newcomer (CloseIdlestConnection)
};

// Reads until `buffer` begins with a whole request head. Until its first
// byte is in, the connection is idle: listed in server.idle, with the
// first-byte (`fresh`) or keep-alive deadline. From that byte on, the whole
// head has kHeadTimeout, however slowly it trickles in.
asio::awaitable<HeadRead> ReadHead(Server::Impl& server, beast::tcp_stream& stream,
                                   beast::flat_buffer& buffer, IdleConnection& idle, bool fresh) {
  const auto limit = static_cast<std::size_t>(server.config.max_header_bytes);
  if (buffer.size() == 0) {
    stream.expires_after(fresh ? kFirstByteTimeout : kKeepAliveTimeout);
    server.idle.push_back(idle);
  } else {
    stream.expires_after(kHeadTimeout);  // the next request is already arriving
  }
  std::size_t searched = 0;
  while (RequestHeadLength(Bytes(buffer), searched) == std::string_view::npos) {
    if (buffer.size() >= limit) co_return HeadRead::kTooLarge;
    searched = buffer.size();
    auto [error, n] = co_await stream.async_read_some(buffer.prepare(kReadChunk), kNoThrow);
    buffer.commit(n);
    if (error) {
      idle.unlink();
      co_return HeadRead::kGone;
    }
    if (idle.is_linked() && buffer.size() > 0) {
      idle.unlink();
      stream.expires_after(kHeadTimeout);
    }
  }
  co_return HeadRead::kComplete;
}

// Parses the whole head at the front of `buffer` into `parser` and checks
// its framing; what to refuse the request with, or nothing.
std::optional<ApiError> ParseHead(const Server::Impl& server, RequestParser& parser,
                                  beast::flat_buffer& buffer) {
  std::string_view raw_head = Bytes(buffer).substr(0, RequestHeadLength(Bytes(buffer)));
  beast::error_code error;
  std::size_t used = parser.put(buffer.data(), error);
  if (error == http::error::header_limit) {
    return InvalidRequest("the request headers are too large");
  }
  if (error == http::error::body_limit) return BodyTooLarge(server.config.max_body_bytes);
  if (error || !parser.is_header_done()) return InvalidRequest("malformed HTTP request");
  std::optional<ApiError> refusal = FramingError(raw_head, parser.get());
  buffer.consume(used);
  return refusal;
}

// What became of one request.
enum class Outcome {
  kKeepAlive,  // answered; the connection may carry another
  kClose,      // answered, or the client went away
  kRefused,    // refused unread: close, lingering (CloseLingering)
};

asio::awaitable<Outcome> ServeRequest(Server::Impl& server, beast::tcp_stream& stream,
                                      beast::flat_buffer& buffer, IdleConnection& idle,
                                      bool fresh) {
  HeadRead head = co_await ReadHead(server, stream, buffer, idle, fresh);
  if (head == HeadRead::kGone) co_return Outcome::kClose;
  RequestParser parser;
  parser.header_limit(static_cast<std::uint32_t>(server.config.max_header_bytes));
  parser.body_limit(static_cast<std::uint64_t>(server.config.max_body_bytes));
  std::optional<ApiError> refusal = head == HeadRead::kTooLarge
                                        ? InvalidRequest("the request headers are too large")
                                        : ParseHead(server, parser, buffer);
  if (refusal) {
    co_await RefuseUnread(server, stream, *refusal);
    co_return Outcome::kRefused;
  }
  if (beast::iequals(parser.get()[http::field::expect], "100-continue")) {
    if (!co_await SendRaw(stream, kContinue)) co_return Outcome::kClose;
  }
  stream.expires_after(kBodyTimeout);
  auto [body_error, body_bytes] = co_await http::async_read(stream, buffer, parser, kNoThrow);
  if (body_error == http::error::body_limit || IsMalformed(body_error)) {
    ApiError error = body_error == http::error::body_limit
                         ? BodyTooLarge(server.config.max_body_bytes)
                         : InvalidRequest("malformed request body (chunked framing)");
    co_await RefuseUnread(server, stream, error);
    co_return Outcome::kRefused;
  }
  if (body_error) co_return Outcome::kClose;
  // A chat waits here for its whole run: the read buffer (8 KiB, now empty
  // unless the client pipelined) would be held all that time.
  buffer.shrink_to_fit();
  bool keep_alive = co_await Dispatch(server, stream, parser.get());
  co_return keep_alive ? Outcome::kKeepAlive : Outcome::kClose;
}

// Counts an open connection for max_connections and /metrics.
struct ConnectionCount {
  explicit ConnectionCount(Server::Impl& server) : server(server) { ++server.connections; }
  ~ConnectionCount() { --server.connections; }
  Server::Impl& server;
};

}  // namespace

asio::awaitable<void> ServeConnection(Server::Impl& server, tcp::socket socket) {
  ConnectionCount counted(server);
  beast::tcp_stream stream(std::move(socket));
  IdleConnection idle(stream);  // unlinks itself when the connection ends
  beast::flat_buffer buffer;
  Outcome outcome = Outcome::kKeepAlive;
  for (bool fresh = true; outcome == Outcome::kKeepAlive && !server.shutting_down; fresh = false) {
    outcome = co_await ServeRequest(server, stream, buffer, idle, fresh);
  }
  if (outcome == Outcome::kRefused) {
    co_await CloseLingering(stream);
  } else {
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }
}

bool CloseIdlestConnection(Server::Impl& server) {
  if (server.idle.empty()) return false;
  IdleConnection& idlest = server.idle.front();
  server.idle.pop_front();
  // Its pending read ends (operation_aborted), and its coroutine with it;
  // the descriptor is free at once.
  idlest.stream.close();
  return true;
}

asio::awaitable<void> RefuseConnection(Server::Impl& server, tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  ApiError error = Overloaded("too many open connections; try again");
  co_await RefuseUnread(server, stream, error);
  co_await CloseLingering(stream);
}

}  // namespace diagd::server
