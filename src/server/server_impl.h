// The server's shared state and its parts, internal to server/: the
// lifecycle (server.cc), one client connection (http_session.cc) and the
// runs (chat_runs.cc). Beast and Asio stay inside server/.
//
// Threading: one io thread runs every connection coroutine, so the state
// they share needs no lock; runs execute on runtime::RunExecutor fibers and reach
// the io side only through LiveRun (locked) and the atomics below. No run
// store call runs on the io thread: the routes' reads go to `store_calls`
// (a store waiting on a lock must not stall every connection), and the
// store's upkeep has a thread of its own.
#pragma once

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <boost/intrusive/list.hpp>
#include <chrono>
#include <memory>
#include <optional>

#include "server/live_run.h"
#include "server/metrics.h"
#include "server/remote_run_feed.h"
#include "runtime/run_executor.h"
#include "server/server.h"
#include "server/store_upkeep.h"

namespace diagd::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Request = http::request<http::string_body>;

struct Server::Impl {
  Impl(const ServerSetup& setup)
      : config(setup.config),
        service(setup.service),
        log(setup.log),
        executor(setup.config.max_concurrent_runs, setup.config.max_queued_runs),
        upkeep(setup.service, setup.log, setup.bus),
        acceptor(io),
        heap_quiet(setup.heap_quiet),
        return_free_heap(setup.return_free_heap),
        bus(setup.bus) {}
  // The bus calls into this state from its thread: it is stopped first.
  ~Impl() {
    if (bus != nullptr) bus->Stop();
  }

  const config::ServerConfig config;
  wiring::ChatService& service;
  ServerLog& log;
  ServerMetrics metrics;
  LiveRunRegistry live;
  RemoteRunFeeds feeds;  // runs executing on other instances, as the bus tells
  runtime::RunExecutor executor;
  StoreUpkeep upkeep;
  // The routes' run store reads (run_routes.cc). Two threads: the store
  // serializes its calls anyway; a second lets a read start while another
  // waits out a lock.
  asio::thread_pool store_calls{2};

  asio::io_context io{1};
  tcp::acceptor acceptor;
  int port = 0;

  // Waits out `heap_quiet` after the last large answer (NoteLargeAnswer,
  // exchange.cc), then gives the heap's free pages back on a store thread.
  const std::chrono::milliseconds heap_quiet;
  const std::function<void()> return_free_heap;
  asio::steady_timer heap_quiet_timer{io};

  std::atomic<bool> shutting_down{false};
  std::atomic<bool> grace_cut{false};  // a second signal: abandon without waiting
  std::atomic<int> connections{0};
  std::atomic<int> sse_streams{0};
  std::atomic<int> answers_pending{0};  // SSE streams and JSON chats still owed an answer
  int abandoned = 0;

  // Idle connections (http_session.cc): those waiting for a request of
  // which no byte has arrived yet (fresh, or kept alive between requests),
  // longest idle first. Past max_connections a newcomer closes the front one
  // (CloseIdlestConnection) rather than being refused; a connection reading
  // a request, answering one or streaming is never listed. O(1) each way.
  struct IdleConnection : boost::intrusive::list_base_hook<
                              boost::intrusive::link_mode<boost::intrusive::auto_unlink>> {
    explicit IdleConnection(beast::tcp_stream& stream) : stream(stream) {}
    beast::tcp_stream& stream;
  };
  boost::intrusive::list<IdleConnection, boost::intrusive::constant_time_size<false>> idle;

  app::RunBus* bus;  // optional (ServerSetup::bus)

  ServerMetrics::Gauges Gauges() const {
    app::StoreHealth store = service.runs->health();
    return {executor.running(),
            executor.queued(),
            connections.load(),
            sse_streams.load(),
            store.state == app::StoreHealth::State::kFailing ? 1 : 0,
            store.errors_total,
            static_cast<std::int64_t>(service.records->backlog()),
            upkeep.lost_total()};
  }
};

// One client connection: requests in turn (keep-alive) until it closes.
asio::awaitable<void> ServeConnection(Server::Impl& server, tcp::socket socket);
// Closes the connection idle longest, for a newcomer past max_connections;
// false when none is idle.
bool CloseIdlestConnection(Server::Impl& server);
// Answers a connection past server.max_connections with 503 and closes it.
asio::awaitable<void> RefuseConnection(Server::Impl& server, tcp::socket socket);

// Counts and logs a run the store has taken (once per run).
void RecordStoredRun(Server::Impl& server, const app::RunRecord& run,
                     std::chrono::steady_clock::duration elapsed);

// Subscribes to the bus (when there is one): other instances' events go to
// `feeds`, cancels to the runs executing here.
void ListenToBus(Server::Impl& server);

// Submits the chat to the executor; the returned LiveRun carries its events.
// Empty when the run was refused (overloaded or shutting down).
std::shared_ptr<LiveRun> SubmitChat(Server::Impl& server, app::ChatRequest request);

}  // namespace diagd::server
