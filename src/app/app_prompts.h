// System prompts of the router, system chat and knowledge answer components
// (docs/specs/model-components.md), Chinese by default. Like every prompt,
// they name no tool, schema, threshold, counter, projector or budget.
#pragma once

#include <string>

#include "config/config.h"

namespace diagd::app {

const std::string& RouterPrompt(config::Language language);
const std::string& SystemChatPrompt(config::Language language);
const std::string& KnowledgePrompt(config::Language language);

}  // namespace diagd::app
