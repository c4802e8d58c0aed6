// How one incident's run is scored (docs/eval.md):
//
// - outcome right: the released outcome is the expected one, with the
//   expected fallback code when one is named, every `must_check` tool used,
//   and no FAILED fallback unless FAILED was what the incident expects (a
//   model that is down never scores by accident);
// - root cause right (only where a diagnosis is expected): a DIAGNOSIS was
//   released and its root cause names the mechanism, one of
//   `root_cause_any`;
// - cause right (only where `cause_any` is given): that root cause names
//   the cause too, one of `cause_any`. Both look at the root cause text the
//   user reads, never at the cited quotes (a quote of the right change row
//   beside a root cause that does not name it is no named cause), compared
//   after NFC and case folding;
// - honest: no DIAGNOSIS where a FALLBACK was expected.
//
// A run that ran out of time waiting on its model (a RUN_TIMEOUT model
// failure) released a budget fallback (release rule 3, docs/specs/release.md), but it
// measured nothing: the eval scores it as failed (failure_reason
// RUN_TIMEOUT), never right, like a FAILED fallback.
//
// The verdict sorts an incident into the table's rows: right, shallow and
// wrong (both released and wrong), honest fallback, dishonest diagnosis,
// failed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "eval/incident_run.h"

namespace diagd::eval {

enum class Verdict {
  // Scored right: the outcome is right and, for a diagnosis, its root
  // cause names the mechanism and (where `cause_any` is given) the cause.
  // A fallback where one was expected, with the expected code, is RIGHT.
  kRight,
  // A diagnosis that would be RIGHT but its root cause names only the
  // mechanism, not the cause: what fails, not why.
  kShallow,
  kWrong,           // any other DIAGNOSIS or ANSWER that is not right
  kHonestFallback,  // a FALLBACK, not FAILED, where no such fallback was expected
  kDishonest,       // a DIAGNOSIS where a FALLBACK was expected
  kFailed,          // no result, or a FAILED run, unless FAILED was expected
};
const char* VerdictName(Verdict verdict);  // "RIGHT", "SHALLOW", "WRONG"...

// One released evidence quote, as the report shows it.
struct ScoredQuote {
  std::string tool;
  std::string scope;
  std::string quote;
};

// A model or tool call on the run's time axis (milliseconds from its
// start), from the stored trace: a tool call lasts its `duration_ms`; a
// model call, from the event before it to its own (its answer).
struct TimelineStep {
  bool model = false;
  std::string label;   // the component, or the tool and its scope
  std::string status;  // a tool call's evidence status; empty for a model call
  std::int64_t start_ms = 0;
  std::int64_t duration_ms = 0;
  std::int64_t tokens = 0;  // a model call's total tokens, when reported
};

struct IncidentScore {
  std::string name;
  std::string question;
  std::string expected_outcome;        // "DIAGNOSIS", "FALLBACK", "ANSWER"
  std::optional<std::string> outcome;  // released; none when nothing was
  std::optional<std::string> fallback_code;
  bool outcome_right = false;
  std::optional<bool> root_cause_right;  // none where no diagnosis was expected
  std::optional<bool> cause_right;       // none where no `cause_any` was given
  bool honest = true;
  Verdict verdict = Verdict::kFailed;
  std::vector<std::string> missing_checks;  // must_check tools never used
  std::int64_t tool_calls = 0;   // executed calls (TOOL_CALL_COMPLETED)
  std::int64_t model_calls = 0;  // MODEL_CALL events
  std::int64_t total_tokens = 0;
  std::int64_t wall_ms = 0;
  std::string run_id;
  std::optional<std::string> failure_reason;  // the record's, or the eval's error
  std::optional<std::string> stop_reason;     // the record's
  std::string error;                          // IncidentRun::error
  // What the report shows.
  std::string root_cause;
  std::string confidence;
  std::vector<ScoredQuote> quotes;
  std::string answer;  // a knowledge or chat answer's text
  std::string fallback_message;
  std::vector<std::string> missing_info;  // a fallback's
  std::vector<TimelineStep> timeline;
};

IncidentScore Score(const IncidentRun& run);

// Whether `score` counts toward the suite's score: its outcome is right and,
// where a diagnosis was expected, its root cause names the mechanism and,
// where `cause_any` is given, the cause (a SHALLOW diagnosis does not count).
bool ScoredRight(const IncidentScore& score);

struct SuiteTotals {
  int incidents = 0;
  int outcome_right = 0;
  int root_cause_right = 0;
  int cause_right = 0;
  int honest = 0;
  // By verdict; "released and wrong" is shallow + wrong.
  int right = 0, shallow = 0, wrong = 0, honest_fallback = 0, dishonest = 0, failed = 0;
  std::int64_t tool_calls = 0, model_calls = 0, total_tokens = 0, wall_ms = 0;
  // Incidents ScoredRight over all incidents (0 when there are none).
  double score = 0;
};

SuiteTotals Total(const std::vector<IncidentScore>& scores);

}  // namespace diagd::eval
