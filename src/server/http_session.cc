// One client connection: reads requests within the configured limits,
// authenticates, routes (CONTRACT.md section 11) and answers, with SSE for
// the run streams.
#include <charconv>
#include <optional>

#include "app/run_record_json.h"
#include "server/api_error.h"
#include "server/chat_request.h"
#include "server/server_impl.h"
#include "server/sse.h"

namespace diagd::server {
namespace {

constexpr auto kReadTimeout = std::chrono::seconds(60);   // idle keep-alive, slow clients
constexpr auto kWriteTimeout = std::chrono::seconds(30);  // a client that stops reading
constexpr auto kSseKeepAliveEvery = std::chrono::seconds(15);
constexpr const char* kRetryAfterSeconds = "2";
constexpr int kDefaultListLimit = 20;
constexpr int kMaxListLimit = 200;

constexpr std::string_view kSseHeader =
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: text/event-stream; charset=utf-8\r\n"
    "Cache-Control: no-cache\r\n"
    "X-Accel-Buffering: no\r\n"
    "Connection: close\r\n\r\n";

const auto kNoThrow = asio::as_tuple(asio::use_awaitable);
using Response = http::response<http::string_body>;

Response JsonResponse(unsigned status, std::string body) {
  Response response{static_cast<http::status>(status), 11};
  response.set(http::field::server, "diagd");
  response.set(http::field::content_type, "application/json; charset=utf-8");
  response.set(http::field::cache_control, "no-store");
  response.body() = std::move(body);
  return response;
}

Response ErrorResponse(const ApiError& error) {
  Response response = JsonResponse(error.status, ApiErrorJson(error));
  if (error.status == 503) response.set(http::field::retry_after, kRetryAfterSeconds);
  return response;
}

asio::awaitable<bool> Send(beast::tcp_stream& stream, Response response, bool keep_alive) {
  response.keep_alive(keep_alive);
  response.prepare_payload();
  stream.expires_after(kWriteTimeout);
  auto [ec, n] = co_await http::async_write(stream, response, kNoThrow);
  co_return !ec && keep_alive;
}

asio::awaitable<bool> SendRaw(beast::tcp_stream& stream, std::string_view bytes) {
  stream.expires_after(kWriteTimeout);
  auto [ec, n] = co_await asio::async_write(stream, asio::buffer(bytes.data(), bytes.size()),
                                            kNoThrow);
  co_return !ec;
}

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

std::optional<std::int64_t> ParseNonNegative(std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// The `limit` of GET /api/v1/runs, or why it is no good.
std::variant<int, ApiError> ListLimit(std::string_view query) {
  int limit = kDefaultListLimit;
  while (!query.empty()) {
    std::string_view pair = query.substr(0, query.find('&'));
    query.remove_prefix(std::min(query.size(), pair.size() + 1));
    std::string_view key = pair.substr(0, pair.find('='));
    if (key != "limit") return InvalidRequest("unknown query parameter");
    auto value = pair.size() > key.size() ? ParseNonNegative(pair.substr(key.size() + 1))
                                          : std::nullopt;
    if (!value || *value < 1 || *value > kMaxListLimit) {
      return InvalidRequest("limit must be an integer from 1 to 200");
    }
    limit = static_cast<int>(*value);
  }
  return limit;
}

struct Wakeup {
  explicit Wakeup(asio::any_io_executor executor) : timer(executor) {}
  asio::steady_timer timer;
  bool woken = false;
};

// Waits until `live` has an event after `last` (true) or `timeout` passes
// (false). The run wakes the wait by posting a cancel to this
// (single) io thread; the shared Wakeup outlives whichever side is later.
asio::awaitable<bool> WaitForEventAfter(LiveRun& live, std::int64_t last,
                                        std::chrono::steady_clock::duration timeout) {
  auto wakeup = std::make_shared<Wakeup>(co_await asio::this_coro::executor);
  wakeup->timer.expires_after(timeout);
  live.WhenEventAfter(last, [wakeup] {
    asio::post(wakeup->timer.get_executor(), [wakeup] {
      wakeup->woken = true;
      wakeup->timer.cancel();
    });
  });
  co_await wakeup->timer.async_wait(kNoThrow);
  co_return wakeup->woken;
}

// Streams `live` from after `after_id` until its `done`, waking on each
// new event, with a keep-alive comment when the run is quiet. Returns when
// the stream is done or the client is gone; the run goes on either way.
asio::awaitable<void> StreamLive(beast::tcp_stream& stream,
                                 std::shared_ptr<LiveRun> live, std::int64_t after_id) {
  std::int64_t last = after_id;
  while (true) {
    LiveRun::Slice slice = live->EventsAfter(last);
    if (!slice.events.empty()) {
      std::string frames;
      for (const auto& event : slice.events) frames += SseFrame(event);
      if (!co_await SendRaw(stream, frames)) co_return;
      last = slice.events.back().id;
    }
    if (slice.closed) co_return;
    bool woken = co_await WaitForEventAfter(*live, last, kSseKeepAliveEvery);
    if (!woken && !co_await SendRaw(stream, kSseKeepAlive)) co_return;
  }
}

// One request and its answer. Every answer goes through Reply or
// StartStream, which count it in /metrics with its real status.
struct Exchange {
  Server::Impl& server;
  beast::tcp_stream& stream;
  const Request& request;
  std::string_view route;  // the route pattern (never a raw path)

  // Sends `response`; false when the connection must close after it.
  asio::awaitable<bool> Reply(Response response, bool close = false) {
    server.metrics.RecordHttpRequest(route, static_cast<int>(response.result_int()));
    co_return co_await Send(stream, std::move(response), request.keep_alive() && !close);
  }
  asio::awaitable<bool> Fail(const ApiError& error) {
    co_return co_await Reply(ErrorResponse(error));
  }
  asio::awaitable<bool> StoreFailed() {
    co_return co_await Reply(ErrorResponse({500, "INTERNAL", "the run store failed"}), true);
  }
  // The SSE response head; the stream closes after the run's `done`.
  asio::awaitable<bool> StartStream() {
    server.metrics.RecordHttpRequest(route, 200);
    co_return co_await SendRaw(stream, kSseHeader);
  }
};

// Counts an answer the server still owes a client (an SSE stream, or a
// JSON chat waiting for its run) while it lasts: shutdown waits for them.
struct PendingAnswer {
  PendingAnswer(Server::Impl& server, bool stream) : server(server), stream(stream) {
    ++server.answers_pending;
    if (stream) ++server.sse_streams;
  }
  ~PendingAnswer() {
    --server.answers_pending;
    if (stream) --server.sse_streams;
  }
  Server::Impl& server;
  bool stream;
};

// Waits for the run's stream to close (JSON mode: the answer is its end).
asio::awaitable<void> WaitClosed(LiveRun& live) {
  std::int64_t last = 0;
  while (true) {
    LiveRun::Slice slice = live.EventsAfter(last);
    if (slice.closed) co_return;
    if (!slice.events.empty()) last = slice.events.back().id;
    co_await WaitForEventAfter(live, last, std::chrono::hours(1));
  }
}

// The JSON answer of a finished run: its result, else its error. A run
// refused at shutdown never ran and may be asked again (503); one that
// could not be stored or was abandoned failed (500).
Response FinalResponse(const LiveRun& live) {
  auto events = live.EventsAfter(0).events;
  for (const auto& event : events) {
    if (event.name == "result") return JsonResponse(200, event.data);
  }
  for (const auto& event : events) {
    if (event.name != "error") continue;
    bool never_ran = event.data.find(app::kServerShuttingDown) != std::string::npos;
    Response response = JsonResponse(never_ran ? 503 : 500, R"({"error":)" + event.data + "}");
    if (never_ran) response.set(http::field::retry_after, kRetryAfterSeconds);
    return response;
  }
  return ErrorResponse({500, "INTERNAL", "the run ended without a result"});
}

asio::awaitable<bool> Chat(Exchange& ex) {
  auto parsed = ParseChatRequest(ex.request.body());
  if (auto* error = std::get_if<ApiError>(&parsed)) co_return co_await ex.Fail(*error);
  auto live = SubmitChat(ex.server, std::move(std::get<app::ChatRequest>(parsed)));
  if (live == nullptr) {
    bool closing = ex.server.shutting_down;
    ex.server.metrics.RecordRejectedChat(closing ? "SHUTTING_DOWN" : "OVERLOADED");
    co_return co_await ex.Fail(
        Overloaded(closing ? "the server is shutting down; ask again"
                           : "too many runs are running and waiting; ask again"));
  }
  bool stream = ex.request[http::field::accept].find("text/event-stream") != std::string_view::npos;
  PendingAnswer pending(ex.server, stream);
  if (stream) {
    if (co_await ex.StartStream()) co_await StreamLive(ex.stream, live, 0);
    co_return false;
  }
  co_await WaitClosed(*live);
  co_return co_await ex.Reply(FinalResponse(*live));
}

asio::awaitable<bool> RunEvents(Exchange& ex, const std::string& run_id) {
  std::int64_t after = 0;
  if (auto header = ex.request["Last-Event-ID"]; !header.empty()) {
    auto parsed = ParseNonNegative(header);
    if (!parsed) co_return co_await ex.Fail(InvalidRequest("Last-Event-ID must be an event id"));
    after = *parsed;
  }
  if (auto live = ex.server.live.Find(run_id)) {
    PendingAnswer pending(ex.server, true);
    if (co_await ex.StartStream()) co_await StreamLive(ex.stream, live, after);
    co_return false;
  }
  app::RunStore& runs = *ex.server.service.runs;
  auto run = runs.GetRun(run_id);
  if (!run) co_return co_await ex.StoreFailed();
  if (!run->has_value()) co_return co_await ex.Fail(NotFound("no such run"));
  auto events = runs.RunEvents(run_id, after);
  if (!events) co_return co_await ex.StoreFailed();
  std::string frames;
  for (const auto& event : *events) frames += SseFrame(event);
  if (co_await ex.StartStream()) co_await SendRaw(ex.stream, frames);
  co_return false;
}

asio::awaitable<bool> RunRecord(Exchange& ex, const std::string& run_id) {
  auto run = ex.server.service.runs->GetRun(run_id);
  if (!run) co_return co_await ex.StoreFailed();
  if (!run->has_value()) co_return co_await ex.Fail(NotFound("no such run"));
  co_return co_await ex.Reply(JsonResponse(200, app::RunRecordJson(**run)));
}

asio::awaitable<bool> RunList(Exchange& ex, std::string_view query) {
  auto limit = ListLimit(query);
  if (auto* error = std::get_if<ApiError>(&limit)) co_return co_await ex.Fail(*error);
  auto list = ex.server.service.runs->ListRuns(std::get<int>(limit));
  if (!list) co_return co_await ex.StoreFailed();
  co_return co_await ex.Reply(JsonResponse(200, app::RunListJson(*list)));
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
