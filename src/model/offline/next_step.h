// The investigation policy: given what was asked and what the tools have
// said so far, the one next tool call (with the grade of the last result
// that returned evidence) or the decision to write the final draft.
//
// The order an engineer would follow, recomputed on every call:
//   1. the logs of the services the question names (errors first);
//   2. the topics those errors name ("... POST http://payment-service/...");
//   3. the runbooks, for the error the deepest service shows;
//   4. the topics the runbooks point at for it (payment-db for a pool);
//   5. the datasources: discover the tables, then read the change record
//      (or the change logs and notices);
//   6. the metrics of the chain's services, when query_metrics is offered
//      (metric_queries.h);
//   7. the runbooks for the other links, a business table by status.
// No step is ever repeated (the scope of every earlier call is skipped), a
// protocol answer is repaired once, and the run ends after kMaxToolCalls
// calls, at a stop instruction, or when nothing useful is left to ask.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "model/offline/case_file.h"
#include "model/offline/investigation_state.h"
#include "model/offline/question_analysis.h"

namespace diagd::model::offline {

// The offline model's own cap on tool calls per run, rejected ones
// included: within the default budgets (12 model calls, 10 tool calls) it
// leaves room for the router, the final draft and release's two checks.
inline constexpr std::size_t kMaxToolCalls = 8;

struct ToolStep {
  ToolKind tool = ToolKind::kOther;
  std::string input_json;  // the business input object
};

struct NextAction {
  std::optional<ToolStep> step;  // nothing: write the final draft
  std::optional<std::string> graded_call_id;
  std::string information_gain;  // "GAINED" or "NO_GAIN" when graded
};

NextAction DecideNext(const InvestigationState& state, const QuestionAnalysis& analysis,
                      const CaseFile& file);

// Our grade of call `index` (an EVIDENCE_FOUND call), given everything seen:
// GAINED when it added a template, a relevant trusted document section or a
// row that matters, which earlier calls had not shown; NO_GAIN otherwise.
const char* GradeOf(const InvestigationState& state, const CaseFile& file, std::size_t index);

// The envelope text of a step: {"previous_observation": {...}?, "input": {...}}.
std::string EnvelopeJson(const NextAction& action);

}  // namespace diagd::model::offline
