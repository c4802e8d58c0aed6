// The model calls of the application layer besides diagnosis: the router,
// the system chat and the knowledge answer (docs/specs/model-components.md).
// Each is one call through the run's model interceptor; each answer is read
// strictly, and a bad one has a fixed, safe consequence.
#pragma once

#include <optional>
#include <string>

#include "app/chat_result.h"
#include "config/config.h"
#include "harness/model_interceptor.h"
#include "harness/run_context.h"
#include "tools/canonical_store.h"
#include "tools/tool_boundary.h"

namespace diagd::app {

// One ROUTER call answered exactly {"route": "..."}; anything else, a failed
// call or a refused budget routes to DIAGNOSIS.
Route RouteQuestion(harness::ModelInterceptor& models, const std::string& question,
                    config::Language language);

// One SYSTEM_CHAT call; its text bounded, a blank answer replaced by a fixed
// reply. The call's error when it failed (the run then fails and says why).
Result<Answer> SystemChat(harness::ModelInterceptor& models, const std::string& question,
                          config::Language language);

struct KnowledgeOutcome {
  std::optional<Answer> answer;  // empty: the documents or the call failed, or garbage came back
  std::optional<Error> failure;  // the KNOWLEDGE_ANSWER call's error, when it failed
  std::vector<release::ProcessEntry> process;
};

// Retrieves with the business request (no envelope) through the boundary,
// then one KNOWLEDGE_ANSWER call; citations are kept only if they are among
// the retrieved documents. With nothing retrieved, a fixed answer and no
// model call; when the documents backend failed, no answer.
KnowledgeOutcome AnswerFromDocuments(harness::RunContext& run, harness::ModelInterceptor& models,
                                     const tools::ToolBoundary& boundary,
                                     const std::string& question, config::Language language);

}  // namespace diagd::app
