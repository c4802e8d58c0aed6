#include "eval/score.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "agent/draft.h"
#include "core/text.h"
#include "harness/trace.h"
#include "tools/tool_types.h"

namespace diagd::eval {
namespace {

std::optional<std::string> StringField(const harness::TraceEvent& event, std::string_view key) {
  const harness::TraceValue* value = harness::FindField(event, key);
  const auto* text = value ? std::get_if<std::string>(value) : nullptr;
  if (!text) return std::nullopt;
  return *text;
}

bool ContainsAny(const std::string& text, const std::vector<std::string>& phrases) {
  std::string folded = text::CaseFold(text::Nfc(text));
  return std::any_of(phrases.begin(), phrases.end(), [&](const std::string& phrase) {
    return folded.find(text::CaseFold(text::Nfc(phrase))) != std::string::npos;
  });
}

std::int64_t IntField(const harness::TraceEvent& event, std::string_view key) {
  const harness::TraceValue* value = harness::FindField(event, key);
  const auto* number = value ? std::get_if<std::int64_t>(value) : nullptr;
  return number ? *number : 0;
}

std::int64_t MillisBetween(WallTime from, WallTime to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

// Counts, the tools used and the timeline, from the stored trace.
void ReadTrace(const app::RunRecord& record, IncidentScore& out, std::set<std::string>& used) {
  if (record.trace.empty()) return;
  WallTime start = record.trace.front().time;
  WallTime previous = start;
  for (const auto& event : record.trace) {
    std::int64_t at = MillisBetween(start, event.time);
    if (event.type == harness::TraceEventType::kModelCall) {
      ++out.model_calls;
      std::int64_t began = MillisBetween(start, previous);
      out.timeline.push_back({true, StringField(event, "component").value_or("MODEL"), "", began,
                              at - began, IntField(event, "total_tokens")});
    }
    if (event.type == harness::TraceEventType::kToolCallCompleted) {
      ++out.tool_calls;
      std::string tool = StringField(event, "tool").value_or("tool");
      used.insert(tool);
      std::int64_t duration = IntField(event, "duration_ms");
      out.timeline.push_back({false, tool + "  " + StringField(event, "scope_summary").value_or(""),
                              StringField(event, "evidence_status").value_or(""),
                              std::max<std::int64_t>(0, at - duration), duration, 0});
    }
    previous = event.time;
  }
  out.total_tokens = record.total_token_count;
  out.run_id = record.run_id;
  out.failure_reason = record.failure_reason;
  out.stop_reason = record.stop_reason;
}

void ReadResult(const app::ChatResult& result, IncidentScore& out) {
  out.outcome = release::ReleaseOutcomeString(result.release_outcome);
  if (result.fallback) out.fallback_code = release::FallbackCodeString(result.fallback->code);
  if (result.diagnosis) {
    out.root_cause = result.diagnosis->root_cause;
    out.confidence = agent::ConfidenceString(result.diagnosis->confidence);
    for (const auto& citation : result.diagnosis->evidence) {
      out.quotes.push_back({tools::ToolNameString(citation.tool), citation.scope, citation.quote});
    }
  }
  if (result.answer) out.answer = result.answer->text;
  if (result.fallback) {
    out.fallback_message = result.fallback->message;
    out.missing_info = result.fallback->missing_info;
  }
}

bool RanOutOfTimeOnTheModel(const app::RunRecord& record) {
  return std::any_of(record.model_failures.begin(), record.model_failures.end(),
                     [](const app::ModelFailure& failure) { return failure.reason == "RUN_TIMEOUT"; });
}

Verdict VerdictOf(const IncidentScore& score, const config::IncidentExpectation& expect,
                  bool timed_out) {
  if (timed_out) return Verdict::kFailed;
  bool failed = !score.outcome || (score.fallback_code && *score.fallback_code == "FAILED");
  if (failed && !score.outcome_right) return Verdict::kFailed;
  if (*score.outcome == "FALLBACK") {
    return score.outcome_right ? Verdict::kRight : Verdict::kHonestFallback;
  }
  if (*score.outcome == "DIAGNOSIS" && expect.outcome == config::ExpectedOutcome::kFallback) {
    return Verdict::kDishonest;
  }
  if (!score.outcome_right || !score.root_cause_right.value_or(true)) return Verdict::kWrong;
  return score.cause_right.value_or(true) ? Verdict::kRight : Verdict::kShallow;
}

}  // namespace

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kRight:
      return "RIGHT";
    case Verdict::kShallow:
      return "SHALLOW";
    case Verdict::kWrong:
      return "WRONG";
    case Verdict::kHonestFallback:
      return "HONEST_FALLBACK";
    case Verdict::kDishonest:
      return "DISHONEST";
    case Verdict::kFailed:
      return "FAILED";
  }
  return "FAILED";
}

IncidentScore Score(const IncidentRun& run) {
  const config::Incident& incident = *run.incident;
  const config::IncidentExpectation& expect = incident.expect;
  IncidentScore out;
  out.name = incident.name;
  out.question = incident.question;
  out.expected_outcome = config::ExpectedOutcomeName(expect.outcome);
  out.wall_ms = run.wall_ms;
  out.error = run.error;
  std::set<std::string> used;
  if (run.record) ReadTrace(*run.record, out, used);
  if (run.result) ReadResult(*run.result, out);
  if (!run.error.empty() && !out.failure_reason) out.failure_reason = "EVAL_ERROR";
  for (const auto& tool : expect.must_check) {
    if (used.count(tool) == 0) out.missing_checks.push_back(tool);
  }

  bool expected_failure = expect.fallback_code && *expect.fallback_code == "FAILED";
  bool failed_fallback = out.fallback_code && *out.fallback_code == "FAILED";
  bool timed_out = run.record && RanOutOfTimeOnTheModel(*run.record);
  if (timed_out && !out.failure_reason) out.failure_reason = "RUN_TIMEOUT";
  out.outcome_right = !timed_out && out.outcome && *out.outcome == out.expected_outcome &&
                      (!expect.fallback_code || out.fallback_code == expect.fallback_code) &&
                      (!failed_fallback || expected_failure) && out.missing_checks.empty();
  bool diagnosed = out.outcome && *out.outcome == "DIAGNOSIS";
  if (expect.outcome == config::ExpectedOutcome::kDiagnosis) {
    out.root_cause_right = diagnosed && ContainsAny(out.root_cause, expect.root_cause_any);
  }
  if (!expect.cause_any.empty()) {
    out.cause_right = diagnosed && ContainsAny(out.root_cause, expect.cause_any);
  }
  out.honest = !(expect.outcome == config::ExpectedOutcome::kFallback && out.outcome &&
                 *out.outcome == "DIAGNOSIS");
  out.verdict = VerdictOf(out, expect, timed_out);
  return out;
}

bool ScoredRight(const IncidentScore& score) {
  return score.outcome_right && score.root_cause_right.value_or(true) &&
         score.cause_right.value_or(true);
}

SuiteTotals Total(const std::vector<IncidentScore>& scores) {
  SuiteTotals totals;
  int scored = 0;
  for (const auto& score : scores) {
    ++totals.incidents;
    totals.outcome_right += score.outcome_right ? 1 : 0;
    totals.root_cause_right += score.root_cause_right.value_or(false) ? 1 : 0;
    totals.cause_right += score.cause_right.value_or(false) ? 1 : 0;
    totals.honest += score.honest ? 1 : 0;
    scored += ScoredRight(score) ? 1 : 0;
    switch (score.verdict) {
      case Verdict::kRight:
        ++totals.right;
        break;
      case Verdict::kShallow:
        ++totals.shallow;
        break;
      case Verdict::kWrong:
        ++totals.wrong;
        break;
      case Verdict::kHonestFallback:
        ++totals.honest_fallback;
        break;
      case Verdict::kDishonest:
        ++totals.dishonest;
        break;
      case Verdict::kFailed:
        ++totals.failed;
        break;
    }
    totals.tool_calls += score.tool_calls;
    totals.model_calls += score.model_calls;
    totals.total_tokens += score.total_tokens;
    totals.wall_ms += score.wall_ms;
  }
  if (totals.incidents > 0) totals.score = static_cast<double>(scored) / totals.incidents;
  return totals;
}

}  // namespace diagd::eval
