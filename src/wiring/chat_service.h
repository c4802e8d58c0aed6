// Everything one chat needs, opened from the configuration: the tools, the
// run store, the model and the ChatApplicationUseCase over them. The CLI
// opens one per command; the server opens one and shares it between runs
// (every part is safe for concurrent runs).
#pragma once

#include <memory>

#include "app/chat_application.h"
#include "app/run_store.h"
#include "config/config.h"
#include "core/clock.h"
#include "core/result.h"
#include "model/chat_model.h"
#include "wiring/tool_set.h"

namespace diagd::wiring {

struct ChatService {
  std::unique_ptr<ToolSet> tools;
  std::unique_ptr<app::RunStore> runs;
  std::unique_ptr<model::ChatModel> model;
  std::unique_ptr<app::ChatApplicationUseCase> chat;  // borrows the three above
};

// INVALID_ARGUMENT naming the configuration key when a part cannot be
// opened; `clock` must outlive the service.
Result<std::unique_ptr<ChatService>> OpenChatService(const config::Config& config,
                                                     const Clock& clock);

}  // namespace diagd::wiring
