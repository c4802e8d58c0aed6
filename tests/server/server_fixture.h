// A diagd server in this process on a free loopback port, over the bundled
// demo workspace's real tools, a run store in a temporary folder, and
// either the scripted model server (over real HTTP; it plays a script, it
// is no model) or the offline provider. The server runs on its own thread;
// the destructor shuts it down gracefully and waits for it.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "config/config.h"
#include "server/faulty_run_store.h"
#include "server/locked_log_sink.h"
#include "server/server.h"
#include "server/test_client.h"
#include "wiring/chat_service.h"

namespace diagd::server::testing {

struct FixtureOptions {
  std::string model_base_url;  // empty: the offline provider
  std::vector<std::string> auth_tokens;
  int max_concurrent_runs = 16;
  int max_queued_runs = 16;
  std::int64_t max_body_bytes = 65536;
  int max_header_bytes = 16384;
  int max_connections = 4096;
  int shutdown_grace_seconds = 10;
  // A model whose every call throws (a bug's stand-in), instead of either.
  bool model_throws = false;
  // When set, the run store fails or blocks as these faults say
  // (faulty_run_store.h), and a refused finished record is retried twice,
  // 10 ms apart, before it waits for the store's upkeep.
  std::shared_ptr<StoreFaults> store_faults;
  int lease_seconds = 30;  // the store's upkeep runs every third of it
  // Not empty: search_documents uses the http backend at this URL, with
  // this timeout.
  std::string documents_url;
  int documents_timeout_ms = 10000;
  int model_timeout_seconds = 30;  // the scripted model's endpoint timeout
  std::optional<int> datasource_timeout_ms;  // every SQL datasource's, when set
  // When set, replaces storage.observation_retention_days (hours: tests
  // need less than a day; zero purges each finished run's observations at
  // the upkeep's next round).
  std::optional<std::chrono::hours> observation_retention;
  // The SSE keepalive's 15 s, shortened by tests.
  std::chrono::milliseconds sse_keepalive{15000};
  // Not set: the demo's (zh).
  std::optional<config::Language> language;
  // Several instances of one service (docs/deploy.md): a run store URL
  // they share (empty: a file of this server's own), server.instance_id,
  // and a bus (borrowed; memory_run_bus.h).
  std::string runs_url;
  std::string instance_id;
  app::RunBus* bus = nullptr;
  // When set, replace ServerSetup's wait before the heap goes back after
  // large answers, and what gives it back.
  std::optional<std::chrono::milliseconds> heap_quiet;
  std::function<void()> return_free_heap;
};

class ServerFixture {
 public:
  explicit ServerFixture(FixtureOptions options);
  ~ServerFixture();

  int port() const { return server_->port(); }
  const config::Config& config() const { return config_; }
  app::RunStore& runs() { return *service_->runs; }
  // The server's structured log so far, one JSON object per line.
  std::string Log() const;
  // Waits (up to `timeout`) until no run is executing or queued.
  bool WaitIdle(std::chrono::milliseconds timeout = std::chrono::seconds(60)) const;

  HttpReply Get(const std::string& target, const Headers& headers = {}) const {
    return Request(port(), "GET", target, headers);
  }
  HttpReply Post(const std::string& target, const Headers& headers = {}) const {
    return Request(port(), "POST", target, headers, "");
  }
  HttpReply PostChat(const std::string& body, const Headers& headers = {}) const {
    Headers with = headers;
    with.emplace_back("Content-Type", "application/json");
    return Request(port(), "POST", "/api/v1/chat", with, body);
  }

 private:
  void UseFaultyStore(std::shared_ptr<StoreFaults> faults);

  std::filesystem::path dir_;
  Headers operator_auth_;  // the first configured token, for WaitIdle
  config::Config config_;
  std::unique_ptr<model::ChatModel> throwing_model_;  // outlives service_
  std::unique_ptr<wiring::ChatService> service_;
  LockedLogSink log_stream_;
  std::unique_ptr<ServerLog> log_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
};

}  // namespace diagd::server::testing
