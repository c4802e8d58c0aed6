// One request and its answer, shared by the connection loop
// (http_session.cc) and the routes that answer from runs (run_routes.cc).
// Internal to server/; Beast and Asio stay inside server/.
#pragma once

#include <string>
#include <string_view>

#include "server/api_error.h"
#include "server/server_impl.h"

namespace diagd::server {

using Response = http::response<http::string_body>;

inline const auto kNoThrow = asio::as_tuple(asio::use_awaitable);
inline constexpr const char* kRetryAfterSeconds = "2";

Response JsonResponse(unsigned status, std::string body);
Response ErrorResponse(const ApiError& error);

// Writes `response`; true when the connection may carry another request.
// With `head_only`, the answer to a HEAD request: the status and headers
// (Content-Length that of the body) and no body (RFC 9110 9.3.2): a body
// would be read as the start of the next answer on a kept connection.
asio::awaitable<bool> Send(beast::tcp_stream& stream, Response response, bool keep_alive,
                           bool head_only = false);
// Waits on the io thread without holding it.
asio::awaitable<void> Sleep(std::chrono::steady_clock::duration duration);
// Writes bytes as they are (SSE frames); false when the client is gone.
asio::awaitable<bool> SendRaw(beast::tcp_stream& stream, std::string_view bytes);

// One request and its answer. Every answer goes through Reply or
// StartStream, which count it in /metrics with its real status.
struct Exchange {
  Server::Impl& server;
  beast::tcp_stream& stream;
  const Request& request;
  std::string_view route;  // the route pattern (never a raw path)

  // Sends `response`; false when the connection must close after it.
  asio::awaitable<bool> Reply(Response response, bool close = false);
  asio::awaitable<bool> Fail(ApiError error);
  // The SSE response head; the stream closes after the run's `done`.
  asio::awaitable<bool> StartStream();
};

// The routes answered from runs (run_routes.cc): POST /api/v1/chat, GET
// /api/v1/runs, /api/v1/runs/{id} and /api/v1/runs/{id}/events; and those
// of docs/console.md (run_console_routes.cc): a page of a conversation's runs, a
// tool call's observation, and POST /api/v1/runs/{id}/cancel. Each returns
// false when the connection must close.
asio::awaitable<bool> Chat(Exchange& ex);
asio::awaitable<bool> RunList(Exchange& ex, std::string_view query);
asio::awaitable<bool> RunRecord(Exchange& ex, const std::string& run_id);
asio::awaitable<bool> RunEvents(Exchange& ex, const std::string& run_id);
asio::awaitable<bool> Conversation(Exchange& ex, const std::string& conversation_id,
                                   std::string_view query);
asio::awaitable<bool> Observation(Exchange& ex, const std::string& run_id,
                                  const std::string& tool_call_id);
asio::awaitable<bool> CancelRun(Exchange& ex, const std::string& run_id);
// GET / and /ui/{file} (console_routes.cc): the web console's file at
// `asset_path` ("index.html" for /), or 404.
asio::awaitable<bool> Console(Exchange& ex, std::string_view asset_path);

// Runs `call` (a run store call) on the store threads, never on the io
// thread, and resumes there with its result.
template <typename Call>
asio::awaitable<std::invoke_result_t<Call>> OffIoThread(Server::Impl& server, Call call) {
  std::optional<std::invoke_result_t<Call>> result;
  auto on_store_thread = [&]() -> asio::awaitable<void> {
    result.emplace(call());
    co_return;
  };
  co_await asio::co_spawn(server.store_calls, on_store_thread, asio::use_awaitable);
  co_return std::move(*result);
}
// Answers 503 STORE_UNAVAILABLE (with Retry-After) and closes: the run
// store could not be read.
asio::awaitable<bool> StoreFailed(Exchange& ex);
// GET /healthz: up or shutting down, and the run store's state, read
// without touching the store.
asio::awaitable<bool> Health(Exchange& ex);

}  // namespace diagd::server
