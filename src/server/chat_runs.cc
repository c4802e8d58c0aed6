// The runs of POST /api/v1/chat: admitted to the executor, executed on one
// of its fibers by the ChatApplicationUseCase, their events fed to a LiveRun,
// and counted and logged once stored.
#include <chrono>
#include <optional>

#include "server/server_impl.h"
#include "server/shared_run_events.h"

namespace diagd::server {
namespace {

// Watches one run, on whichever worker runs its fiber.
class LiveRunWatcher final : public app::ChatObserver {
 public:
  LiveRunWatcher(Server::Impl& server, std::shared_ptr<LiveRun> live)
      : server_(server), live_(std::move(live)), started_(std::chrono::steady_clock::now()) {
    if (server_.bus != nullptr) shared_.emplace(*server_.service.runs, *server_.bus);
  }

  void OnRunStarted(const std::string& run_id, const std::string&) override {
    live_->set_run_id(run_id);
    server_.live.Add(run_id, live_);
    if (shared_) shared_->set_run_id(run_id);
  }
  void OnRouted(app::Route route) override { live_->set_route(app::RouteString(route)); }
  void OnRunEvent(const app::RunEvent& event) override {
    if (shared_) shared_->Share(event);
    live_->Append(event);
  }
  void OnRunRecorded(const app::RunRecord& run) override {
    if (shared_) shared_->RecordGiven();
    RecordStoredRun(server_, run, std::chrono::steady_clock::now() - started_);
  }
  void OnRunNotStored(const app::RunRecord& run, const Error& why) override {
    if (shared_) shared_->RecordGiven();
    auto backlog = static_cast<std::int64_t>(server_.service.records->backlog());
    server_.log.Error("run_not_stored", {{"run_id", run.run_id},
                                         {"status", run.status},
                                         {"error", why.message},
                                         {"backlog", backlog}});
  }

 private:
  Server::Impl& server_;
  std::shared_ptr<LiveRun> live_;
  std::chrono::steady_clock::time_point started_;
  std::optional<SharedRunEvents> shared_;  // with other instances, when there are any
};

// Errors are values throughout, so an exception out of a run is a bug (or
// no memory left): it must end that run, FAILED and stored as such, and not
// the process with the other runs in it. Its text is not logged: it may
// hold data.
void ContainFailedRun(Server::Impl& server, LiveRun& live) {
  auto events = live.Seal(app::kRunFailed, "the run failed inside diagd");
  std::string run_id = live.run_id();
  server.log.Error("run_failed", {{"run_id", run_id}});
  if (events && !run_id.empty()) {
    server.service.tools->canonical_store->ForgetRun(run_id);
    app::AbandonedRun abandoned{run_id, "INTERNAL", live.route(), std::chrono::system_clock::now(),
                                std::move(*events)};
    (void)server.service.runs->AbandonRun(abandoned);
  }
  live.Reveal();  // stored first: a client that sees `done` finds the run FAILED
}

void ExecuteChat(Server::Impl& server, const std::shared_ptr<LiveRun>& live,
                 const app::ChatRequest& request) {
  LiveRunWatcher watcher(server, live);
  std::optional<Result<app::ChatResult>> handled;
  bool threw = false;
  try {
    handled = server.service.chat->Handle(request, &watcher);
  } catch (...) {
    threw = true;
  }
  // Outside the handler: storing the failed run may park this fiber, and a
  // fiber must not resume on another thread inside a catch (runtime/fiber.h).
  if (threw) ContainFailedRun(server, *live);
  // The run store refused the run: nothing was executed, nothing stored.
  // (A run whose finished record it refused has closed its stream itself.)
  if (handled && !*handled &&
      live->CloseWithError(app::kRunNotExecuted,
                           "the run could not be recorded, so it was not run")) {
    server.log.Error("run_not_executed", {{"run_id", live->run_id()}});
  }
  // Stored by now (result and done are shown only after that), so a
  // client that misses it here finds it in the store.
  if (std::string run_id = live->run_id(); !run_id.empty()) server.live.Remove(run_id);
}

}  // namespace

void RecordStoredRun(Server::Impl& server, const app::RunRecord& run,
                     std::chrono::steady_clock::duration elapsed) {
  server.metrics.RecordFinishedRun(run, std::chrono::duration<double>(elapsed).count());
  server.log.Info(
      "run_finished",
      {{"run_id", run.run_id},
       {"route", run.route},
       {"status", run.status},
       {"internal_status", run.internal_status},
       {"release_outcome", run.release_outcome ? LogValue(*run.release_outcome) : nullptr},
       {"fallback_code", run.fallback_code ? LogValue(*run.fallback_code) : nullptr},
       {"stop_reason", run.stop_reason ? LogValue(*run.stop_reason) : nullptr},
       {"failure_reason", run.failure_reason ? LogValue(*run.failure_reason) : nullptr},
       {"failure_detail", run.failure_detail ? LogValue(*run.failure_detail) : nullptr},
       {"total_tokens", run.total_token_count},
       {"duration_ms", std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()}});
}

void ListenToBus(Server::Impl& server) {
  if (server.bus == nullptr) return;
  app::RunBus::Listener listener;
  listener.on_event = [&server](const std::string& run_id, const app::RunEvent& event) {
    server.feeds.Deliver(run_id, event);
  };
  listener.on_cancel = [&server](const std::string& run_id) {
    // Every instance hears it; the one executing the run acts.
    if (auto live = server.live.Find(run_id); live != nullptr && live->Cancel()) {
      server.log.Info("run_cancel_requested", {{"run_id", run_id}, {"from", "another instance"}});
    }
  };
  // Only the bus's thread calls back, so the last state needs no lock.
  listener.on_state = [&server, last = std::optional<bool>()](bool up) mutable {
    server.feeds.NudgeAll();
    if (last == up) return;  // logged once per change, not per attempt
    last = up;
    if (up) {
      server.log.Info("run_bus_up");
    } else {
      server.log.Warn("run_bus_down", {{"streams", "read from the run store until it is back"}});
    }
  };
  server.bus->Start(std::move(listener));
}

std::shared_ptr<LiveRun> SubmitChat(Server::Impl& server, app::ChatRequest request) {
  if (server.shutting_down) return nullptr;
  auto live = std::make_shared<LiveRun>();
  request.cancel = live->cancel_token();
  runtime::RunExecutor::Job job;
  job.run = [&server, live, request = std::move(request)] { ExecuteChat(server, live, request); };
  job.cancel = [live] {
    live->CloseWithError(app::kServerShuttingDown,
                         "the server is shutting down; the question was not run, ask again");
  };
  switch (server.executor.Submit(std::move(job))) {
    case runtime::RunExecutor::Admission::kRunning:
    case runtime::RunExecutor::Admission::kQueued:
      return live;
    case runtime::RunExecutor::Admission::kOverloaded:
    case runtime::RunExecutor::Admission::kClosed:
      break;
  }
  return nullptr;
}

}  // namespace diagd::server
