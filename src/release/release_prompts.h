// The system prompts of release's two model components, in Chinese (default)
// or English. They describe the request the component gets and the exact
// answer it must give (docs/specs/model-components.md); like every prompt of
// diagd they name no tool, schema, threshold, counter, projector or budget
// (tests check the words).
#pragma once

#include <string>

#include "config/config.h"

namespace diagd::release {

const std::string& EvidenceRepairSystemPrompt(config::Language language);
const std::string& SemanticGuardSystemPrompt(config::Language language);

}  // namespace diagd::release
