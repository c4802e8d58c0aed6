#include "server/server_fixture.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>

#include "core/clock.h"
#include "wiring/run_store.h"

namespace diagd::server::testing {
namespace {

std::filesystem::path FreshDir() {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path() /
             ("diagd-server-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

class ThrowingModel final : public model::ChatModel {
 public:
  Result<model::ChatResponse, model::CallError> Complete(const model::ChatRequest&) override {
    throw std::runtime_error("a bug deep inside diagd");
  }
  std::string Label(model::Component) const override { return "throwing (test double)"; }
};

}  // namespace

ServerFixture::ServerFixture(FixtureOptions options) : dir_(FreshDir()) {
  auto loaded =
      config::LoadConfigFile(std::string(DIAGD_SOURCE_DIR) + "/examples/demo/diagd.toml", {});
  if (!loaded) {
    ADD_FAILURE() << loaded.error().message;
    std::abort();
  }
  config_ = std::move(*loaded);
  config_.tools.documents.cache_path = dir_ / "cache";
  config_.storage.runs =
      options.runs_url.empty() ? "sqlite:" + (dir_ / "runs.db").string() : options.runs_url;
  config_.server.instance_id = options.instance_id;
  if (!options.model_base_url.empty()) {
    config::ModelEndpoint scripted{config::ModelProvider::kOpenAi, options.model_base_url, "",
                                   "scripted", options.model_timeout_seconds};
    config_.model.defaults = scripted;
    for (auto& [component, endpoint] : config_.model.per_component) endpoint = scripted;
  }
  if (options.language) config_.language = *options.language;
  if (options.datasource_timeout_ms) {
    for (auto& source : config_.tools.datasources) {
      source.timeout_ms = *options.datasource_timeout_ms;
    }
  }
  config_.server.auth_tokens = options.auth_tokens;
  if (!options.auth_tokens.empty()) {
    operator_auth_ = {{"Authorization", "Bearer " + options.auth_tokens.front()}};
  }
  config_.server.max_concurrent_runs = options.max_concurrent_runs;
  config_.server.max_queued_runs = options.max_queued_runs;
  config_.server.max_body_bytes = options.max_body_bytes;
  config_.server.max_header_bytes = options.max_header_bytes;
  config_.server.max_connections = options.max_connections;
  config_.server.shutdown_grace_seconds = options.shutdown_grace_seconds;
  config_.server.lease_seconds = options.lease_seconds;
  config_.server.sse_keepalive = options.sse_keepalive;
  if (!options.documents_url.empty()) {
    config_.tools.documents.backend = tools::documents::DocumentsToolConfig::Backend::kHttp;
    config_.tools.documents.url = options.documents_url;
    config_.tools.documents.timeout_ms = options.documents_timeout_ms;
  }

  auto service =
      wiring::OpenChatService(config_, SystemClock::Instance(), wiring::ServerRunOwner(config_));
  if (!service) {
    ADD_FAILURE() << service.error().message;
    std::abort();
  }
  service_ = std::move(*service);
  if (options.observation_retention) service_->observation_retention = *options.observation_retention;
  if (options.store_faults) UseFaultyStore(options.store_faults);
  if (options.model_throws) {
    throwing_model_ = std::make_unique<ThrowingModel>();
    service_->chat = std::make_unique<app::ChatApplicationUseCase>(
        wiring::ChatDepsFor(*service_, *throwing_model_, config_, SystemClock::Instance()));
  }
  log_ = std::make_unique<ServerLog>(log_stream_.stream());
  ServerSetup setup{config_.server, {"127.0.0.1", 0}, *service_, *log_, options.bus};
  if (options.heap_quiet) setup.heap_quiet = *options.heap_quiet;
  if (options.return_free_heap) setup.return_free_heap = options.return_free_heap;
  auto server = Server::Start(setup);
  if (!server) {
    ADD_FAILURE() << server.error().message;
    std::abort();
  }
  server_ = std::move(*server);
  thread_ = std::thread([this] { server_->Run(/*handle_signals=*/false); });
}

void ServerFixture::UseFaultyStore(std::shared_ptr<StoreFaults> faults) {
  const Clock& clock = SystemClock::Instance();
  service_->chat.reset();
  service_->records.reset();
  service_->runs.reset();  // the file stays; the faulty store opens it again
  auto real = wiring::OpenRunStore(config_, clock);
  if (!real) {
    ADD_FAILURE() << real.error().message;
    std::abort();
  }
  service_->runs = std::make_unique<app::ObservedRunStore>(
      std::make_unique<FaultyRunStore>(std::move(*real), std::move(faults)), clock);
  service_->records = std::make_unique<app::RunRecordWriter>(
      *service_->runs, app::RunRecordWriter::Options{2, std::chrono::milliseconds(10), 1000});
  service_->chat = std::make_unique<app::ChatApplicationUseCase>(
      wiring::ChatDepsFor(*service_, *service_->model, config_, clock));
}

ServerFixture::~ServerFixture() {
  WaitIdle();
  server_->Shutdown();
  thread_.join();
  server_.reset();
  service_.reset();
  std::filesystem::remove_all(dir_);
}

std::string ServerFixture::Log() const { return log_stream_.Text(); }

bool ServerFixture::WaitIdle(std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto metrics = Get("/metrics", operator_auth_);
    bool idle = metrics.body.find("diagd_runs_running 0\n") != std::string::npos &&
                metrics.body.find("diagd_run_queue_depth 0\n") != std::string::npos;
    if (idle) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace diagd::server::testing
