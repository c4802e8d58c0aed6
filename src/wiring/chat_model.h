// The model a diagd process talks to, from the configuration: each component
// goes to its own endpoint's provider, `openai` (the OpenAI-compatible client)
// or `offline` (the built-in rule-based player, which is not an LLM and says
// so in its label).
#pragma once

#include <memory>

#include "config/config.h"
#include "model/chat_model.h"

namespace diagd::wiring {

std::unique_ptr<model::ChatModel> OpenChatModel(const config::Config& config);

}  // namespace diagd::wiring
