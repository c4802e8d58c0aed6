// The routes answered from runs (exchange.h): the chat, which admits a run
// and streams or waits for it, and the operator's reads of stored runs.
#include <algorithm>
#include <charconv>
#include <vector>
#include <optional>

#include "app/run_record_json.h"
#include "core/json_writer.h"
#include "runtime/io_wake.h"
#include "server/chat_request.h"
#include "server/exchange.h"
#include "server/page_query.h"
#include "server/sse.h"

namespace diagd::server {
namespace {

// How often a stream of a run executing elsewhere (another instance, or a
// finished run whose record is still waiting for the store) reads the store
// again: every second with no bus (or while it is down), and with a bus
// that is up only as a backstop for what it might not tell (a run another
// instance ended as lost, a message lost).
constexpr auto kStoredRunPoll = std::chrono::seconds(1);
constexpr auto kStoredRunBackstop = std::chrono::seconds(5);

std::optional<std::int64_t> ParseNonNegative(std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// Waits until `live` has an event after `last` (true) or `timeout` passes.
asio::awaitable<bool> WaitForEventAfter(LiveRun& live, std::int64_t last,
                                        std::chrono::steady_clock::duration timeout) {
  co_return co_await runtime::WaitForWake(
      [&live, last](LiveRun::Wake wake) { live.WhenEventAfter(last, std::move(wake)); }, timeout);
}

// Streams `live` from after `after_id` until its `done`, waking on each
// new event, with a keep-alive comment when the run is quiet. Returns when
// the stream is done or the client is gone; the run goes on either way.
asio::awaitable<void> StreamLive(beast::tcp_stream& stream, std::shared_ptr<LiveRun> live,
                                 std::int64_t after_id,
                                 std::chrono::steady_clock::duration keepalive) {
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
    bool woken = co_await WaitForEventAfter(*live, last, keepalive);
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
// Woken by the close alone: the run's other events would each cost the io
// thread a wake for nothing.
asio::awaitable<void> WaitClosed(LiveRun& live) {
  while (!live.closed()) {
    co_await runtime::WaitForWake([&live](LiveRun::Wake wake) { live.WhenClosed(std::move(wake)); },
                         std::chrono::hours(1));
  }
}

// The JSON answer of a finished run: its result, else its error with the
// run id, so the client can find the record. A run refused at shutdown
// never ran and may be asked again (503); one that could not be stored or
// was abandoned failed (500).
Response FinalResponse(const LiveRun& live) {
  auto events = live.EventsAfter(0).events;
  for (const auto& event : events) {
    if (event.name == "result") return JsonResponse(200, event.data);
  }
  for (const auto& event : events) {
    if (event.name != "error") continue;
    bool never_ran = event.data.find(app::kServerShuttingDown) != std::string::npos;
    std::string error = event.data;  // {"code","message"}: add the run id, when it has one
    if (std::string run_id = live.run_id(); !run_id.empty() && error.ends_with('}')) {
      error.pop_back();
      error += R"(,"run_id":)";
      json::AppendEscaped(run_id, error);
      error += "}";
    }
    Response response = JsonResponse(never_ran ? 503 : 500, R"({"error":)" + error + "}");
    if (never_ran) response.set(http::field::retry_after, kRetryAfterSeconds);
    return response;
  }
  return ErrorResponse({500, "INTERNAL", "the run ended without a result"});
}

// The stored run, or nothing once the client has been answered why (the
// store failed, or there is no such run) and whether its connection stays.
struct StoredRun {
  std::optional<app::RunRecord> run;
  bool keep_open = false;
};

asio::awaitable<StoredRun> FindStoredRun(Exchange& ex, const std::string& run_id) {
  app::RunStore& runs = *ex.server.service.runs;
  auto run = co_await OffIoThread(ex.server, [&] { return runs.GetRun(run_id); });
  StoredRun found;
  if (!run) {
    found.keep_open = co_await StoreFailed(ex);
  } else if (!run->has_value()) {
    ApiError error = NotFound("no such run");
    found.keep_open = co_await ex.Fail(error);
  } else {
    found.run = std::move(**run);
  }
  co_return found;
}

// Sends the events after `last` of `events` (ids in order), moving `last`
// on; false when the client is gone. `done` is whether the stream's `done`
// was among them.
struct Sent {
  bool ok = true;
  bool done = false;
};
asio::awaitable<Sent> SendAfter(beast::tcp_stream& stream, const std::vector<app::RunEvent>& events,
                                std::int64_t& last) {
  std::string frames;
  Sent sent;
  for (const auto& event : events) {
    if (event.id <= last) continue;
    frames += SseFrame(event);
    last = event.id;
    if (event.name == "done") {
      sent.done = true;
      break;
    }
  }
  if (!frames.empty()) sent.ok = co_await SendRaw(stream, frames);
  co_return sent;
}

// The stream of a run not executing here, from the store and the bus: the
// events stored after `after`, then what the bus brings (remote_run_feed.h),
// each event once and in order, until `done`. The store is read again when
// the bus skipped an id, when it went down or came back, and every poll
// interval; a run that has ended (a lost run ends too: INSTANCE_LOST) is
// sent to its end. A keep-alive goes out when the stream is quiet.
asio::awaitable<void> StreamStored(Exchange& ex, const std::string& run_id, std::int64_t after) {
  Server::Impl& server = ex.server;
  app::RunStore& runs = *server.service.runs;
  app::RunBus* bus = server.bus;
  std::optional<RemoteRunFeed> feed;
  if (bus != nullptr) feed.emplace(server.feeds, run_id);  // before the first read
  std::int64_t last = after;
  auto now = [] { return std::chrono::steady_clock::now(); };
  auto quiet_since = now();
  auto next_read = now();  // at once
  auto last_read = now();
  std::uint64_t read_generation = 0;
  while (!server.shutting_down) {
    bool bus_up = bus != nullptr && bus->up();
    if (bus_up && bus->generation() != read_generation) next_read = now();  // it was down
    if (!bus_up) next_read = std::min(next_read, last_read + kStoredRunPoll);
    if (now() >= next_read) {
      read_generation = bus_up ? bus->generation() : 0;
      last_read = now();
      next_read = last_read + (bus_up ? kStoredRunBackstop : kStoredRunPoll);
      auto events = co_await OffIoThread(server, [&] { return runs.RunEvents(run_id, last); });
      if (!events) co_return;  // the client reconnects with its Last-Event-ID
      if (events->empty()) {
        // Nothing new: has it ended? Its end is stored with its events, so
        // one more read finds them.
        auto run = co_await OffIoThread(server, [&] { return runs.GetRun(run_id); });
        if (run && (!run->has_value() || (*run)->status != "RUNNING")) {
          events = co_await OffIoThread(server, [&] { return runs.RunEvents(run_id, last); });
          if (events) co_await SendAfter(ex.stream, *events, last);
          co_return;
        }
      }
      Sent sent = co_await SendAfter(ex.stream, *events, last);
      if (!sent.ok || sent.done) co_return;
      if (!events->empty()) quiet_since = now();
    }
    if (feed) {
      std::vector<app::RunEvent> heard = feed->Take();
      // The bus skipped an event (lost while this stream was reading the
      // store, or dropped): what follows waits for the store, which has it.
      std::int64_t expected = last + 1;
      for (auto event = heard.begin(); event != heard.end(); ++event) {
        if (event->id > expected) {
          heard.erase(event, heard.end());
          next_read = now();
          break;
        }
        expected = std::max(expected, event->id + 1);
      }
      Sent sent = co_await SendAfter(ex.stream, heard, last);
      if (!sent.ok || sent.done) co_return;
      if (!heard.empty()) quiet_since = now();
      if (now() >= next_read) continue;
    }
    if (now() - quiet_since >= server.config.sse_keepalive) {
      if (!co_await SendRaw(ex.stream, kSseKeepAlive)) co_return;
      quiet_since = now();
    }
    auto wait = std::min<std::chrono::steady_clock::duration>(
        next_read - now(), quiet_since + server.config.sse_keepalive - now());
    if (feed) {
      co_await runtime::WaitForWake([&feed](RemoteRunFeed::Wake wake) { feed->WhenWoken(std::move(wake)); },
                           wait);
    } else {
      co_await Sleep(wait);
    }
  }
}

}  // namespace

asio::awaitable<bool> StoreFailed(Exchange& ex) {
  // 503, as OVERLOADED: the store is away, locked or failing for now, and
  // the client may ask again (after Retry-After) rather than wait on it.
  ApiError error{503, "STORE_UNAVAILABLE", "the run store cannot be read now; try again"};
  Response response = ErrorResponse(error);
  co_return co_await ex.Reply(std::move(response), true);
}

asio::awaitable<bool> Chat(Exchange& ex) {
  auto parsed = ParseChatRequest(ex.request.body());
  if (auto* error = std::get_if<ApiError>(&parsed)) co_return co_await ex.Fail(*error);
  auto live = SubmitChat(ex.server, std::move(std::get<app::ChatRequest>(parsed)));
  if (live == nullptr) {
    bool closing = ex.server.shutting_down;
    ex.server.metrics.RecordRejectedChat(closing ? "SHUTTING_DOWN" : "OVERLOADED");
    ApiError error = Overloaded(closing ? "the server is shutting down; ask again"
                                        : "too many runs are running and waiting; ask again");
    co_return co_await ex.Fail(error);
  }
  bool stream = ex.request[http::field::accept].find("text/event-stream") != std::string_view::npos;
  PendingAnswer pending(ex.server, stream);
  if (stream) {
    auto keepalive = ex.server.config.sse_keepalive;
    if (co_await ex.StartStream()) co_await StreamLive(ex.stream, live, 0, keepalive);
    co_return false;
  }
  co_await WaitClosed(*live);
  Response response = FinalResponse(*live);
  co_return co_await ex.Reply(std::move(response));
}

asio::awaitable<bool> RunEvents(Exchange& ex, const std::string& run_id) {
  std::int64_t after = 0;
  if (auto header = ex.request["Last-Event-ID"]; !header.empty()) {
    auto parsed = ParseNonNegative(header);
    if (!parsed) {
      ApiError error = InvalidRequest("Last-Event-ID must be an event id");
      co_return co_await ex.Fail(error);
    }
    after = *parsed;
  }
  if (auto live = ex.server.live.Find(run_id)) {
    PendingAnswer pending(ex.server, true);
    auto keepalive = ex.server.config.sse_keepalive;
    if (co_await ex.StartStream()) co_await StreamLive(ex.stream, live, after, keepalive);
    co_return false;
  }
  StoredRun stored = co_await FindStoredRun(ex, run_id);
  if (!stored.run) co_return stored.keep_open;
  PendingAnswer pending(ex.server, true);
  if (co_await ex.StartStream()) co_await StreamStored(ex, run_id, after);
  co_return false;
}

asio::awaitable<bool> RunRecord(Exchange& ex, const std::string& run_id) {
  StoredRun stored = co_await FindStoredRun(ex, run_id);
  if (!stored.run) co_return stored.keep_open;
  Response response = JsonResponse(200, app::RunRecordJson(*stored.run));
  co_return co_await ex.Reply(std::move(response));
}

asio::awaitable<bool> RunList(Exchange& ex, std::string_view query) {
  auto parsed = ParseRunListQuery(query);
  if (auto* error = std::get_if<ApiError>(&parsed)) co_return co_await ex.Fail(*error);
  const app::RunQuery& run_query = std::get<app::RunQuery>(parsed);
  app::RunStore& runs = *ex.server.service.runs;
  auto page = co_await OffIoThread(ex.server, [&] { return runs.ListRunPage(run_query); });
  if (!page) co_return co_await StoreFailed(ex);
  std::optional<std::string> next;
  if (page->next) next = EncodeRunCursor(*page->next);
  Response response = JsonResponse(200, app::RunListJson(page->runs, next));
  co_return co_await ex.Reply(std::move(response));
}

asio::awaitable<bool> Health(Exchange& ex) {
  // Never touches the store: a store that waits must not make the
  // instance look dead (docs/reliability.md).
  app::StoreHealth store = ex.server.service.runs->health();
  bool up = !ex.server.shutting_down;
  json::JsonWriter body(160);
  body.BeginObject().Key("status").String(up ? "ok" : "shutting_down");
  body.Key("store").BeginObject().Key("state").String(app::StoreStateString(store.state));
  if (store.failing_since) {
    body.Key("failing_since").String(FormatRfc3339Millis(*store.failing_since));
  }
  body.Key("calls_waiting").Int(store.calls_in_flight).EndObject().EndObject();
  Response response = JsonResponse(up ? 200 : 503, body.Take());
  co_return co_await ex.Reply(std::move(response));
}

}  // namespace diagd::server
