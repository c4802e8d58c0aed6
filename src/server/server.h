// diagd serve: the HTTP API of docs/server.md on Boost.Beast and
// Asio coroutines. docs/server.md describes its routes, limits, execution
// model and shutdown.
//
// Thread safety: Run() on one thread; Shutdown() and port() from any.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "app/run_bus.h"
#include "config/config.h"
#include "core/heap.h"
#include "core/result.h"
#include "runtime/run_executor.h"
#include "server/server_log.h"
#include "wiring/chat_service.h"

namespace diagd::server {

struct ServerSetup {
  const config::ServerConfig& config;
  config::ListenAddress listen;  // port 0 picks a free port (tests)
  wiring::ChatService& service;
  ServerLog& log;
  // With several instances (docs/deploy.md): how they tell each other
  // about runs; the server starts and stops its subscription. Borrowed, and
  // null for one instance alone.
  app::RunBus* bus = nullptr;
  // A large answer (a page of long questions, a long record) leaves its
  // memory among the heap's free pages; once the server has sent none for
  // `heap_quiet`, those go back to the system (`return_free_heap`), as
  // they do after runs (runtime::RunExecutor::kTrimHeapAfterIdle). Tests shorten
  // the wait and count the calls.
  std::chrono::milliseconds heap_quiet = runtime::RunExecutor::kTrimHeapAfterIdle;
  std::function<void()> return_free_heap = core::ReturnFreeHeap;
};

class Server {
 public:
  // Binds the listening socket. FAILED_PRECONDITION when no auth token is
  // configured and the address is not loopback; UNAVAILABLE when the
  // address cannot be bound.
  static Result<std::unique_ptr<Server>> Start(const ServerSetup& setup);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const;
  // Serves until SIGTERM or SIGINT (with `handle_signals`) or Shutdown(),
  // then shuts down gracefully: stops accepting, refuses queued runs, lets
  // running runs finish within server.shutdown_grace_seconds and abandons
  // the rest as FAILED. Returns how many runs were abandoned: their
  // workers are still blocked, so the caller must end the process without
  // destroying the service they use.
  int Run(bool handle_signals);
  // Begins the graceful shutdown, as SIGTERM does.
  void Shutdown();

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Whether `host` is a loopback address ("127.x.x.x", "::1", "localhost").
bool IsLoopbackHost(std::string_view host);

}  // namespace diagd::server
