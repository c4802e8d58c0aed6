// The final draft (src/agent/draft.h) of an offline investigation,
// assembled from the case file: the root cause told from the triggering
// change through the deepest link of the chain to the symptom the user
// sees; citations whose quotes are cut from the observations byte for byte;
// a confidence that counts independent kinds of evidence (logs, change
// record, runbook); findings per call; limitations; next steps.
//
// No conclusion (null, a legal answer) when the evidence does not hold up:
// nothing found in the logs, or one service's errors with nothing to say
// where they come from. The draft then says what was checked and what is
// missing.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/offline/case_file.h"
#include "model/offline/investigation_state.h"
#include "model/offline/question_analysis.h"

namespace diagd::model::offline {

struct DraftCitation {
  std::string call_id;
  std::string quote;
};

struct DraftConclusion {
  std::string root_cause;
  std::string confidence;  // HIGH, MEDIUM, LOW
  std::vector<DraftCitation> evidence;
};

struct DraftFinding {
  std::string call_id;
  bool found = true;  // FOUND (with a quote) or NOT_FOUND
  std::string statement;
  std::string quote;
};

struct Draft {
  std::optional<DraftConclusion> conclusion;
  std::vector<DraftFinding> findings;
  std::vector<std::string> missing_info;
  std::vector<std::string> notes;
  std::vector<std::string> next_steps;
};

Draft BuildDraft(const InvestigationState& state, const QuestionAnalysis& analysis,
                 const CaseFile& file);

// Exactly one JSON object, the draft's contract shape.
std::string DraftToJson(const Draft& draft);

// The parts, for BuildDraft (draft_parts.cc).
std::vector<DraftFinding> BuildFindings(const InvestigationState& state, const CaseFile& file);
std::vector<std::string> BuildNotes(const InvestigationState& state,
                                    const QuestionAnalysis& analysis, const CaseFile& file);
std::vector<std::string> BuildMissingInfo(const InvestigationState& state,
                                          const QuestionAnalysis& analysis, const CaseFile& file,
                                          bool concluded);
std::vector<std::string> BuildNextSteps(const InvestigationState& state, const CaseFile& file);
// What a metric signal shows, in a clause: the series, how far it rose and
// when, against the failure's onset (FailureOnset).
std::string DescribeSignal(const InvestigationState& state, const CaseFile& file,
                           const MetricSignal& signal);

}  // namespace diagd::model::offline
