// Everything one chat needs, opened from the configuration: the tools, the
// run store, the model and the ChatApplicationUseCase over them. The CLI
// opens one per command; the server opens one and shares it between runs
// (every part is safe for concurrent runs).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "app/chat_application.h"
#include "app/observed_run_store.h"
#include "app/run_store.h"
#include "config/config.h"
#include "core/clock.h"
#include "core/result.h"
#include "model/chat_model.h"
#include "wiring/tool_set.h"

namespace diagd::wiring {

// Who executes the runs a service starts, stored with each run
// (app::ChatDeps::instance_id and lease).
struct RunOwner {
  std::string instance_id;
  std::chrono::seconds lease{30};
};
// `diagd ask`: "cli:HOST:PID", with a lease that outlasts the longest run
// (max_run_seconds and then some), since nothing renews it.
RunOwner CliRunOwner(const config::Config& config);
// `diagd serve`: server.instance_id, else "HOST:PORT" of server.listen;
// server.lease_seconds, renewed while the run goes on.
RunOwner ServerRunOwner(const config::Config& config);

struct ChatService {
  std::unique_ptr<ToolSet> tools;
  std::unique_ptr<app::ObservedRunStore> runs;    // the configured store, watched
  std::unique_ptr<app::RunRecordWriter> records;  // writes finished runs to `runs`
  std::unique_ptr<model::ChatModel> model;
  std::unique_ptr<app::ChatApplicationUseCase> chat;  // borrows the parts above
  RunOwner owner;
  // storage.observation_retention_days: the server's store upkeep purges
  // older tool call observations.
  std::chrono::hours observation_retention{30 * 24};
  // `language`: the runs' language, and the web console's default one.
  config::Language language = config::Language::kZh;
};

// INVALID_ARGUMENT naming the configuration key when a part cannot be
// opened; `clock` must outlive the service.
Result<std::unique_ptr<ChatService>> OpenChatService(const config::Config& config,
                                                     const Clock& clock, RunOwner owner);
// The CLI's service (CliRunOwner).
Result<std::unique_ptr<ChatService>> OpenChatService(const config::Config& config,
                                                     const Clock& clock);

// The ChatDeps of `service`'s use case, with `model` for its model (tests
// substitute theirs).
app::ChatDeps ChatDepsFor(ChatService& service, model::ChatModel& model,
                          const config::Config& config, const Clock& clock);

}  // namespace diagd::wiring
