// One client connection: reads requests within the configured limits,
// authenticates, routes (CONTRACT.md section 11) and answers, with SSE for
// the run streams.
#include <optional>

#include "server/exchange.h"

namespace diagd::server {
namespace {

constexpr auto kReadTimeout = std::chrono::seconds(60);   // idle keep-alive, slow clients

bool SameToken(std::string_view a, std::string_view b) {
  // Constant time for equal lengths: no early exit on the first difference.
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool Authorized(const Server::Impl& server, const Request& request) {
  if (server.config.auth_tokens.empty()) return true;
  std::string_view header = request[http::field::authorization];
  constexpr std::string_view kBearer = "Bearer ";
  if (!header.starts_with(kBearer)) return false;
  std::string_view token = header.substr(kBearer.size());
  bool match = false;
  for (const auto& allowed : server.config.auth_tokens) match |= SameToken(token, allowed);
  return match;
}

// A route pattern for the metrics (never a raw path: ids would make a
// series per run), and the run id in it.
struct Route {
  std::string_view pattern;
  http::verb method = http::verb::get;
  std::string run_id;
};

std::optional<Route> MatchRoute(std::string_view path) {
  if (path == "/healthz") return Route{"/healthz", http::verb::get, {}};
  if (path == "/metrics") return Route{"/metrics", http::verb::get, {}};
  if (path == "/api/v1/chat") return Route{"/api/v1/chat", http::verb::post, {}};
  if (path == "/api/v1/runs") return Route{"/api/v1/runs", http::verb::get, {}};
  constexpr std::string_view kRuns = "/api/v1/runs/";
  if (!path.starts_with(kRuns)) return std::nullopt;
  std::string_view rest = path.substr(kRuns.size());
  constexpr std::string_view kEvents = "/events";
  bool events = rest.ends_with(kEvents);
  if (events) rest.remove_suffix(kEvents.size());
  if (rest.empty() || rest.find('/') != std::string_view::npos) return std::nullopt;
  return Route{events ? "/api/v1/runs/{id}/events" : "/api/v1/runs/{id}", http::verb::get,
               std::string(rest)};
}

// Answers one request; false when the connection must close.
asio::awaitable<bool> Dispatch(Server::Impl& server, beast::tcp_stream& stream,
                               const Request& request) {
  std::string_view target = request.target();
  std::string_view path = target.substr(0, target.find('?'));
  std::string_view query = path.size() < target.size() ? target.substr(path.size() + 1) : "";
  std::optional<Route> route = MatchRoute(path);
  Exchange ex{server, stream, request, route ? route->pattern : "unmatched"};

  // /healthz answers load balancers without a token; everything else,
  // unknown paths included, needs one.
  if ((!route || route->pattern != "/healthz") && !Authorized(server, request)) {
    Response response = ErrorResponse(Unauthorized());
    response.set(http::field::www_authenticate, "Bearer");
    co_return co_await ex.Reply(std::move(response));
  }
  if (!route) co_return co_await ex.Fail(NotFound("no such route"));
  if (request.method() != route->method) {
    Response response = ErrorResponse(MethodNotAllowed());
    response.set(http::field::allow, http::to_string(route->method));
    co_return co_await ex.Reply(std::move(response));
  }
  if (route->pattern == "/healthz") {
    bool up = !server.shutting_down;
    co_return co_await ex.Reply(
        JsonResponse(up ? 200 : 503, up ? R"({"status":"ok"})" : R"({"status":"shutting_down"})"));
  }
  if (route->pattern == "/metrics") {
    Response response{http::status::ok, 11};
    response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
    response.body() = server.metrics.Render(server.Gauges());
    co_return co_await ex.Reply(std::move(response));
  }
  if (route->pattern == "/api/v1/chat") co_return co_await Chat(ex);
  if (route->pattern == "/api/v1/runs") co_return co_await RunList(ex, query);
  if (route->pattern == "/api/v1/runs/{id}") co_return co_await RunRecord(ex, route->run_id);
  co_return co_await RunEvents(ex, route->run_id);
}

// Answers a request that was not (fully) read, so it has no route, and
// closes: the rest of it cannot be told from a next request.
asio::awaitable<void> RefuseUnread(Server::Impl& server, beast::tcp_stream& stream,
                                   const ApiError& error) {
  server.metrics.RecordHttpRequest("unread", static_cast<int>(error.status));
  co_await Send(stream, ErrorResponse(error), false);
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
  beast::flat_buffer buffer;
  bool open = true;
  while (open && !server.shutting_down) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(server.config.max_header_bytes));
    parser.body_limit(static_cast<std::uint64_t>(server.config.max_body_bytes));
    stream.expires_after(kReadTimeout);
    auto [header_error, header_bytes] =
        co_await http::async_read_header(stream, buffer, parser, kNoThrow);
    if (header_error == http::error::header_limit) {
      co_await RefuseUnread(server, stream, InvalidRequest("the request headers are too large"));
      break;
    }
    if (header_error == http::error::body_limit) {
      co_await RefuseUnread(server, stream, BodyTooLarge(server.config.max_body_bytes));
      break;
    }
    if (header_error) {
      // A malformed request gets an answer; a closed or idle one does not.
      bool malformed = header_error.category() ==
                           beast::error_code(http::error::bad_method).category() &&
                       header_error != http::error::end_of_stream &&
                       header_error != http::error::partial_message;
      if (malformed) {
        co_await RefuseUnread(server, stream, InvalidRequest("malformed HTTP request"));
      }
      break;
    }
    if (beast::iequals(parser.get()[http::field::expect], "100-continue")) {
      if (!co_await SendRaw(stream, "HTTP/1.1 100 Continue\r\n\r\n")) break;
    }
    auto [body_error, body_bytes] = co_await http::async_read(stream, buffer, parser, kNoThrow);
    if (body_error == http::error::body_limit) {
      co_await RefuseUnread(server, stream, BodyTooLarge(server.config.max_body_bytes));
      break;
    }
    if (body_error) break;
    open = co_await Dispatch(server, stream, parser.get());
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

asio::awaitable<void> RefuseConnection(Server::Impl& server, tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  co_await RefuseUnread(server, stream, Overloaded("too many open connections; try again"));
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

}  // namespace diagd::server
