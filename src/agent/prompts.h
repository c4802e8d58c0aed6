// The diagnosis agent's system prompt, in Chinese (default) or English. It
// describes the model's duties and the final draft's JSON shape; the tools'
// schemas travel with the API request, not here. A prompt names no tool,
// schema, threshold, counter, projector or budget (tests check the words).
#pragma once

#include <string>

#include "config/config.h"

namespace diagd::agent {

const std::string& DiagnosisSystemPrompt(config::Language language);

// The draft's JSON shape as written in prompts (src/agent/draft.h).
const char* DraftShapeExample();

}  // namespace diagd::agent
