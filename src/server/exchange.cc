// The answers every route builds on: JSON and error responses, raw writes
// for SSE, and the metrics count of each answer (exchange.h).
#include "server/exchange.h"

namespace diagd::server {
namespace {

constexpr auto kWriteTimeout = std::chrono::seconds(30);  // a client that stops reading
// An answer at least this large counts for the heap's return (ServerSetup::
// heap_quiet): a page of a conversation, a long run record, a big list.
// Small answers (health checks, refusals) would only keep pushing it back.
constexpr std::size_t kLargeAnswerBytes = 64 * 1024;

// (Re)starts the wait after which the heap's free pages go back: reads
// run on the store threads, not on run fibers, so the executor's own
// return after runs never sees them.
void NoteLargeAnswer(Server::Impl& server) {
  server.heap_quiet_timer.expires_after(server.heap_quiet);
  server.heap_quiet_timer.async_wait([&server](beast::error_code ec) {
    if (ec) return;  // pushed back by a later answer, or shutting down
    asio::post(server.store_calls, [&server] { server.return_free_heap(); });
  });
}

constexpr std::string_view kSseHeader =
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: text/event-stream; charset=utf-8\r\n"
    "Cache-Control: no-cache\r\n"
    "X-Accel-Buffering: no\r\n"
    "Connection: close\r\n\r\n";

}  // namespace

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

asio::awaitable<bool> Send(beast::tcp_stream& stream, Response response, bool keep_alive,
                           bool head_only) {
  response.keep_alive(keep_alive);
  response.prepare_payload();
  stream.expires_after(kWriteTimeout);
  if (head_only) {
    http::response_serializer<http::string_body> serializer(response);
    auto [ec, n] = co_await http::async_write_header(stream, serializer, kNoThrow);
    co_return !ec && keep_alive;
  }
  auto [ec, n] = co_await http::async_write(stream, response, kNoThrow);
  co_return !ec && keep_alive;
}

asio::awaitable<void> Sleep(std::chrono::steady_clock::duration duration) {
  asio::steady_timer timer(co_await asio::this_coro::executor, duration);
  co_await timer.async_wait(kNoThrow);
}

asio::awaitable<bool> SendRaw(beast::tcp_stream& stream, std::string_view bytes) {
  stream.expires_after(kWriteTimeout);
  auto [ec, n] = co_await asio::async_write(stream, asio::buffer(bytes.data(), bytes.size()),
                                            kNoThrow);
  co_return !ec;
}

asio::awaitable<bool> Exchange::Reply(Response response, bool close) {
  server.metrics.RecordHttpRequest(route, static_cast<int>(response.result_int()));
  bool keep_alive = request.keep_alive() && !close;
  bool head_only = request.method() == http::verb::head;
  bool large = response.body().size() >= kLargeAnswerBytes;
  bool sent = co_await Send(stream, std::move(response), keep_alive, head_only);
  // After the send: the answer's memory is free by the time the wait ends.
  if (large) NoteLargeAnswer(server);
  co_return sent;
}

asio::awaitable<bool> Exchange::Fail(ApiError error) {
  Response response = ErrorResponse(error);
  co_return co_await Reply(std::move(response));
}

asio::awaitable<bool> Exchange::StartStream() {
  server.metrics.RecordHttpRequest(route, 200);
  co_return co_await SendRaw(stream, kSseHeader);
}

}  // namespace diagd::server
