#include "wiring/chat_service.h"

#include "wiring/chat_model.h"
#include "wiring/run_store.h"

namespace diagd::wiring {

Result<std::unique_ptr<ChatService>> OpenChatService(const config::Config& config,
                                                     const Clock& clock) {
  auto service = std::make_unique<ChatService>();
  auto tools = OpenToolSet(config, clock);
  if (!tools) return tools.error();
  service->tools = std::move(*tools);
  auto runs = OpenRunStore(config, clock);
  if (!runs) return runs.error();
  service->runs = std::move(*runs);
  service->model = OpenChatModel(config);
  const ToolSet& set = *service->tools;
  service->chat = std::make_unique<app::ChatApplicationUseCase>(app::ChatDeps{
      *service->model, *set.catalog, *set.boundary, *set.canonical_store, *service->runs, clock,
      config.language, app::RunLimitsFrom(config.harness), {}});
  return service;
}

}  // namespace diagd::wiring
