// The server's lifecycle: bind, accept within max_connections, serve, and
// the graceful shutdown of docs/server.md.
#include "server/server.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <thread>
#include <vector>

#include "server/exchange.h"
#include "server/server_impl.h"

namespace diagd::server {
namespace {

constexpr int kListenBacklog = 4096;
constexpr auto kDrainPoll = std::chrono::milliseconds(50);
// After abandoning runs: how long clients still owed an answer (streams,
// JSON chats) get to receive their last events.
constexpr auto kFlushStreams = std::chrono::seconds(2);
constexpr std::size_t kAbandonWriters = 16;
constexpr auto kAcceptRetry = std::chrono::milliseconds(10);

// Lets the server hold max_connections clients plus their runs' own
// sockets: raise the soft open-file limit to the hard one.
void RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

asio::awaitable<void> Accept(Server::Impl& server) {
  // GCC 12: co_await only named locals or plain values (http_session.cc).
  while (true) {
    auto [ec, socket] = co_await server.acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
    if (ec) {
      if (!server.acceptor.is_open()) co_return;  // shutting down
      // E.g. EMFILE: keep serving the others, without spinning on the
      // error until a descriptor is free again.
      co_await Sleep(kAcceptRetry);
      continue;
    }
    beast::error_code ignored;  // a client already gone is found out when served
    socket.set_option(tcp::no_delay(true), ignored);
    // A connection that fails in a way nobody foresaw is logged and closed;
    // it must not take the server (and every other client) down with it.
    auto contain = [&server](std::exception_ptr failure) {
      if (failure) server.log.Error("connection_failed");
    };
    // At max_connections a newcomer takes the place of the connection idle
    // longest (never one reading, answering or streaming); only when none is
    // idle is it refused. Idle sockets cannot lock everyone else out.
    bool full = server.connections.load() >= server.config.max_connections;
    if (full && !CloseIdlestConnection(server)) {
      asio::co_spawn(server.io, RefuseConnection(server, std::move(socket)), contain);
    } else {
      asio::co_spawn(server.io, ServeConnection(server, std::move(socket)), contain);
    }
  }
}

// Ends every run still executing as FAILED with failure_reason
// SERVER_SHUTDOWN: the store gets its stream ending in `error` and `done`,
// and its watchers see those once the store has them. The store writes go
// out from several threads, so its group commit writes a thousand
// abandoned runs in a few transactions rather than one fsync each (seconds
// the orchestrator may not wait).
void AbandonRunning(Server::Impl& server) {
  std::vector<app::AbandonedRun> abandoned;
  std::vector<std::shared_ptr<LiveRun>> sealed;
  WallTime now = std::chrono::system_clock::now();
  for (const auto& live : server.live.All()) {
    auto events = live->Seal(app::kRunAbandoned, "the server shut down before the run finished");
    if (events) {
      abandoned.push_back({live->run_id(), "SERVER_SHUTDOWN", live->route(), now,
                           std::move(*events)});
      sealed.push_back(live);
    }
  }
  server.abandoned = static_cast<int>(abandoned.size());
  std::atomic<std::size_t> next{0};
  auto store = [&] {
    for (std::size_t i = next++; i < abandoned.size(); i = next++) {
      const app::AbandonedRun& run = abandoned[i];
      Status stored = server.service.runs->AbandonRun(run);
      server.log.Warn("run_abandoned", {{"run_id", run.run_id},
                                        {"stored", stored ? LogValue(std::string_view("FAILED"))
                                                          : LogValue(stored.error().message)}});
    }
  };
  std::vector<std::thread> writers;
  for (std::size_t t = 0; t < std::min(kAbandonWriters, abandoned.size()); ++t) {
    writers.emplace_back(store);
  }
  for (auto& writer : writers) writer.join();
  // Stored (or failed to be, which the log says): now their clients see it.
  for (const auto& live : sealed) live->Reveal();
}

asio::awaitable<void> ShutDown(Server::Impl& server) {
  if (server.shutting_down.exchange(true)) co_return;
  server.log.Info("shutdown_started", {{"running", std::int64_t{server.executor.running()}},
                                       {"queued", std::int64_t{server.executor.queued()}}});
  beast::error_code ignored;
  server.acceptor.close(ignored);
  // Kept-alive connections waiting for their next request close now: a
  // balancer's pool would otherwise send them requests this instance can
  // only refuse (503) while it drains; a fresh connection goes elsewhere.
  while (CloseIdlestConnection(server)) {
  }
  server.executor.Close();  // queued runs get SERVER_SHUTTING_DOWN
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(server.config.shutdown_grace_seconds);
  while (server.executor.running() > 0 && std::chrono::steady_clock::now() < deadline &&
         !server.grace_cut) {
    co_await Sleep(kDrainPoll);
  }
  if (server.executor.running() > 0) AbandonRunning(server);
  server.upkeep.Stop();  // a last write of the runs the store refused
  auto flush_until = std::chrono::steady_clock::now() + kFlushStreams;
  while (server.answers_pending.load() > 0 && std::chrono::steady_clock::now() < flush_until) {
    co_await Sleep(kDrainPoll);
  }
  server.log.Info("shutdown_complete", {{"abandoned", std::int64_t{server.abandoned}}});
  server.io.stop();
}

// The first SIGTERM or SIGINT starts the graceful shutdown; a second one
// (an operator who will not wait) ends the grace period at once.
asio::awaitable<void> HandleSignals(Server::Impl& server, asio::signal_set& signals) {
  while (true) {
    auto [ec, signal] = co_await signals.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    if (!server.shutting_down) {
      asio::co_spawn(server.io, ShutDown(server), asio::detached);
    } else if (!server.grace_cut.exchange(true)) {
      server.log.Warn("shutdown_hurried", {{"signal", std::int64_t{signal}}});
    }
  }
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost") return true;
  beast::error_code ec;
  auto address = asio::ip::make_address(std::string(host), ec);
  return !ec && address.is_loopback();
}

Result<std::unique_ptr<Server>> Server::Start(const ServerSetup& setup) {
  if (setup.config.auth_tokens.empty() && !IsLoopbackHost(setup.listen.host)) {
    return Error::FailedPrecondition(
        "server.listen: " + setup.listen.host +
        " is not a loopback address and server.auth_tokens is empty; refusing to serve "
        "without authentication (configure auth_tokens, or listen on 127.0.0.1 or [::1])");
  }
  RaiseOpenFileLimit();
  auto impl = std::make_unique<Impl>(setup);
  beast::error_code ec;
  tcp::resolver resolver(impl->io);
  auto endpoints = resolver.resolve(setup.listen.host, std::to_string(setup.listen.port),
                                    tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty()) {
    return Error::Unavailable("server.listen: cannot resolve " + setup.listen.host);
  }
  tcp::endpoint endpoint = *endpoints.begin();
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(kListenBacklog, ec);
  if (ec) {
    return Error::Unavailable("server.listen: cannot listen on " + setup.listen.host + ":" +
                              std::to_string(setup.listen.port) + ": " + ec.message());
  }
  auto bound = impl->acceptor.local_endpoint(ec);
  if (ec) return Error::Unavailable("server.listen: cannot read the bound address: " + ec.message());
  impl->port = bound.port();
  Impl& server = *impl;
  server.service.records->set_callbacks(
      [&server](const app::RunRecord& run) {
        auto elapsed = run.finished_at ? *run.finished_at - run.created_at : WallTime::duration{};
        RecordStoredRun(server, run, std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed));
      },
      [&server](const app::RunRecord& run) {
        server.log.Error("run_record_dropped", {{"run_id", run.run_id}});
      });
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() = default;

int Server::port() const { return impl_->port; }

int Server::Run(bool handle_signals) {
  Impl& server = *impl_;
  std::optional<asio::signal_set> signals;
  if (handle_signals) {
    signals.emplace(server.io, SIGTERM, SIGINT);
    asio::co_spawn(server.io, HandleSignals(server, *signals), asio::detached);
  }
  // Before the first client: the runs a previous process left RUNNING end
  // as INSTANCE_LOST, and their streams with `error` and `done`.
  server.upkeep.Start();
  ListenToBus(server);
  asio::co_spawn(server.io, Accept(server), asio::detached);
  const config::ServerConfig& config = server.config;
  server.log.Info("listening", {{"port", std::int64_t{server.port}},
                                {"max_concurrent_runs", std::int64_t{config.max_concurrent_runs}},
                                {"max_queued_runs", std::int64_t{config.max_queued_runs}},
                                {"auth", config.auth_tokens.empty() ? "off" : "bearer"}});
  server.io.run();
  return server.abandoned;
}

void Server::Shutdown() {
  asio::co_spawn(impl_->io, ShutDown(*impl_), asio::detached);
}

}  // namespace diagd::server
