// The server's shared state and its parts, internal to server/: the
// lifecycle (server.cc), one client connection (http_session.cc) and the
// runs (chat_runs.cc). Beast and Asio stay inside server/.
//
// Threading: one io thread runs every connection coroutine, so the state
// they share needs no lock; runs execute on RunExecutor fibers and reach
// the io side only through LiveRun (locked) and the atomics below. Run
// store reads (operator routes) run on the io thread: they take
// milliseconds, and moving them to a pool cost more code than it saved.
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
#include "server/run_executor.h"
#include "server/server.h"

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
        acceptor(io) {}

  const config::ServerConfig config;
  wiring::ChatService& service;
  ServerLog& log;
  ServerMetrics metrics;
  LiveRunRegistry live;
  RunExecutor executor;

  asio::io_context io{1};
  tcp::acceptor acceptor;
  int port = 0;

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

  ServerMetrics::Gauges Gauges() const {
    return {executor.running(), executor.queued(), connections.load(), sse_streams.load()};
  }
};

// One client connection: requests in turn (keep-alive) until it closes.
asio::awaitable<void> ServeConnection(Server::Impl& server, tcp::socket socket);
// Closes the connection idle longest, for a newcomer past max_connections;
// false when none is idle.
bool CloseIdlestConnection(Server::Impl& server);
// Answers a connection past server.max_connections with 503 and closes it.
asio::awaitable<void> RefuseConnection(Server::Impl& server, tcp::socket socket);

// Submits the chat to the executor; the returned LiveRun carries its events.
// Empty when the run was refused (overloaded or shutting down).
std::shared_ptr<LiveRun> SubmitChat(Server::Impl& server, app::ChatRequest request);

}  // namespace diagd::server
