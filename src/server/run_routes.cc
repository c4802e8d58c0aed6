// The routes answered from runs (exchange.h): the chat, which admits a run
// and streams or waits for it, and the operator's reads of stored runs.
#include <charconv>
#include <optional>

#include "app/run_record_json.h"
#include "server/chat_request.h"
#include "server/exchange.h"
#include "server/sse.h"

namespace diagd::server {
namespace {

constexpr auto kSseKeepAliveEvery = std::chrono::seconds(15);
constexpr int kDefaultListLimit = 20;
constexpr int kMaxListLimit = 200;

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

asio::awaitable<bool> StoreFailed(Exchange& ex) {
  ApiError error{500, "INTERNAL", "the run store failed"};
  Response response = ErrorResponse(error);
  co_return co_await ex.Reply(std::move(response), true);
}

}  // namespace

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
  if (!run) co_return co_await StoreFailed(ex);
  if (!run->has_value()) co_return co_await ex.Fail(NotFound("no such run"));
  auto events = runs.RunEvents(run_id, after);
  if (!events) co_return co_await StoreFailed(ex);
  std::string frames;
  for (const auto& event : *events) frames += SseFrame(event);
  if (co_await ex.StartStream()) co_await SendRaw(ex.stream, frames);
  co_return false;
}

asio::awaitable<bool> RunRecord(Exchange& ex, const std::string& run_id) {
  auto run = ex.server.service.runs->GetRun(run_id);
  if (!run) co_return co_await StoreFailed(ex);
  if (!run->has_value()) co_return co_await ex.Fail(NotFound("no such run"));
  co_return co_await ex.Reply(JsonResponse(200, app::RunRecordJson(**run)));
}

asio::awaitable<bool> RunList(Exchange& ex, std::string_view query) {
  auto limit = ListLimit(query);
  if (auto* error = std::get_if<ApiError>(&limit)) co_return co_await ex.Fail(*error);
  auto list = ex.server.service.runs->ListRuns(std::get<int>(limit));
  if (!list) co_return co_await StoreFailed(ex);
  co_return co_await ex.Reply(JsonResponse(200, app::RunListJson(*list)));
}

}  // namespace diagd::server
