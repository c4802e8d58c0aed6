#include "release/diagnosis_release.h"

#include "harness/model_interceptor.h"
#include "release/finding_check.h"
#include "release/release_messages.h"

namespace diagd::release {

using harness::StopReason;

namespace {

// What a fallback says of a conclusion that was not released: a verified one
// about something else names what it misses; any other was not verified.
FallbackDetails UnreleasedConclusionDetails(const agent::DiagnosisDraft& draft,
                                            const SubjectReport& subjects,
                                            GuardResult subject_check,
                                            config::Language language) {
  FallbackDetails details;
  details.missing_info = draft.limitations.missing_info;
  if (subject_check == GuardResult::kFailed) {
    const auto& names = subjects.unmentioned.empty() ? subjects.unreached : subjects.unmentioned;
    details.limitations.push_back(subjects.unmentioned.empty()
                                      ? SubjectsUnreachedSentence(names, language)
                                      : SubjectsUnmentionedSentence(names, language));
    details.missing_info.push_back(SubjectsWhereQuestion(names, language));
  } else {
    details.conclusion_unverified = true;
  }
  return details;
}

}  // namespace

DiagnosisReleaseUseCase::DiagnosisReleaseUseCase(ReleaseDeps deps)
    : deps_(deps),
      evidence_guard_(deps.store),
      evidence_repair_(deps.store, deps.language, deps.observation_limits),
      semantic_guard_(deps.store, deps.language, deps.observation_limits),
      subject_check_(deps.store, deps.subjects),
      fallbacks_(deps.store, deps.language, deps.fallback_limits) {}

// The decision table, top to bottom in the order of docs/specs/release.md. Each branch either
// publishes a verified diagnosis or picks a fallback code; the fallback itself
// is always built the same way, from the snapshot and the store.
ReleaseDecision DiagnosisReleaseUseCase::Release(
    harness::RunContext& run, const std::string& question,
    const agent::DiagnosisAgentExecution& execution,
    const std::vector<std::string>& earlier_questions) const {
  const std::string& run_id = run.run_id();
  const std::optional<agent::DiagnosisDraft>& draft = execution.draft;
  const std::optional<StopReason>& stop = execution.stop_reason;
  const bool checked_anything = !execution.snapshot.entries.empty();
  const bool has_observed_facts = execution.snapshot.HasObservedFacts();
  harness::ModelInterceptor model_calls(deps_.model, run.budget(), run.ledger(), run.trace());

  ReleaseDecision decision;
  decision.process = ProcessOf(execution.snapshot);
  FallbackDetails details;
  FallbackCode code = FallbackCode::kFailed;

  if (stop == StopReason::kCancelled || run.cancelled()) {
    // 0. Cancelled (docs/console.md): no model call at all, so no draft is
    //    checked; the process is the answer, worth showing only with
    //    verified facts.
    code = has_observed_facts ? FallbackCode::kInsufficientEvidence : FallbackCode::kFailed;
  } else if (draft && draft->conclusion) {
    // 1. A conclusion: published only when every check passes.
    CheckedConclusion checked =
        CheckConclusion(model_calls, run_id, question, execution, earlier_questions, decision);
    if (decision.semantic_guard == GuardResult::kPassed) {
      decision.outcome = ReleaseOutcome::kDiagnosis;
      decision.diagnosis = Publish(run_id, checked.draft, std::move(checked.evidence.citations));
      RecordDecision(run, decision);
      return decision;
    }
    details = UnreleasedConclusionDetails(*draft, checked.subjects, decision.subject_check,
                                          deps_.language);
    code = checked_anything                           ? FallbackCode::kInsufficientEvidence
           : !draft->limitations.missing_info.empty() ? FallbackCode::kMissingRequiredContext
                                                      : FallbackCode::kFailed;
  } else if (draft) {
    // 2. conclusion: null is a complete answer: no repair, no semantic
    //    guard; only findings true to this run's records are published.
    CheckedFindings findings = CheckFindings(deps_.store, run_id, draft->findings);
    details.findings = std::move(findings.verified);
    details.unpublished_findings = findings.unpublished;
    details.missing_info = draft->limitations.missing_info;
    code = !checked_anything && !draft->limitations.missing_info.empty()
               ? FallbackCode::kMissingRequiredContext
               : FallbackCode::kInsufficientEvidence;
  } else if (stop == StopReason::kInformationSaturated || stop == StopReason::kBudgetLimitReached) {
    // 3. Collection stopped for saturation or a budget: the process is the
    //    answer, with no model call, whatever the model said after the stop.
    code = FallbackCode::kInsufficientEvidence;
  } else if (stop == StopReason::kProgressProtocolViolated || execution.rejected_output) {
    // 4. The protocol was broken, or the final output was discarded: only
    //    verified facts make the process worth showing.
    code = has_observed_facts ? FallbackCode::kInsufficientEvidence : FallbackCode::kFailed;
  } else {
    // 5. A tool, model or infrastructure failure (or an execution that
    //    ended with nothing at all): FAILED unless verified facts exist.
    code = has_observed_facts ? FallbackCode::kInsufficientEvidence : FallbackCode::kFailed;
  }

  decision.outcome = ReleaseOutcome::kFallback;
  decision.fallback = fallbacks_.Build(run_id, code, execution.snapshot, std::move(details));
  RecordDecision(run, decision);
  return decision;
}

DiagnosisReleaseUseCase::CheckedConclusion DiagnosisReleaseUseCase::CheckConclusion(
    harness::ModelInterceptor& model_calls, const std::string& run_id,
    const std::string& question, const agent::DiagnosisAgentExecution& execution,
    const std::vector<std::string>& earlier_questions, ReleaseDecision& decision) const {
  CheckedConclusion checked{*execution.draft, {}, {}};
  checked.evidence = evidence_guard_.Check(run_id, *checked.draft.conclusion);
  if (checked.evidence.Passed()) {
    decision.evidence_guard = GuardResult::kPassed;
  } else if (checked.evidence.Repairable()) {
    auto repaired = evidence_repair_.Repair(model_calls, run_id, question, checked.draft,
                                            checked.evidence.violations);
    if (repaired) checked.evidence = evidence_guard_.Check(run_id, *repaired->conclusion);
    if (repaired && checked.evidence.Passed()) {
      checked.draft = std::move(*repaired);
      decision.evidence_guard = GuardResult::kRepaired;
    } else {
      decision.evidence_guard = GuardResult::kFailed;
    }
  } else {
    decision.evidence_guard = GuardResult::kFailed;  // the store could not be read
  }
  if (decision.evidence_guard == GuardResult::kFailed) return checked;

  std::vector<std::string> questions = earlier_questions;
  questions.push_back(question);
  checked.subjects =
      subject_check_.Check(run_id, questions, execution.snapshot, *checked.draft.conclusion);
  decision.subject_check = checked.subjects.result;
  if (decision.subject_check == GuardResult::kFailed) return checked;

  decision.semantic_guard =
      semantic_guard_.Supports(model_calls, run_id, question, *checked.draft.conclusion)
          ? GuardResult::kPassed
          : GuardResult::kFailed;
  return checked;
}

Diagnosis DiagnosisReleaseUseCase::Publish(const std::string& run_id,
                                           const agent::DiagnosisDraft& draft,
                                           std::vector<PublishedCitation> citations) const {
  Diagnosis diagnosis;
  diagnosis.root_cause = draft.conclusion->root_cause;
  diagnosis.confidence = draft.conclusion->confidence;
  diagnosis.evidence = std::move(citations);
  CheckedFindings findings = CheckFindings(deps_.store, run_id, draft.findings);
  diagnosis.findings = std::move(findings.verified);
  diagnosis.next_steps = draft.next_steps;
  diagnosis.limitations = draft.limitations;
  if (findings.unpublished > 0) {
    diagnosis.limitations.notes.push_back(
        UnpublishedFindingsSentence(findings.unpublished, deps_.language));
  }
  return diagnosis;
}

void DiagnosisReleaseUseCase::RecordDecision(harness::RunContext& run,
                                             const ReleaseDecision& decision) const {
  harness::TraceValue fallback_code = nullptr;
  if (decision.fallback) fallback_code = std::string(FallbackCodeString(decision.fallback->code));
  run.trace().Record(harness::TraceEventType::kReleaseDecided,
                     {{"release_outcome", std::string(ReleaseOutcomeString(decision.outcome))},
                      {"fallback_code", std::move(fallback_code)},
                      {"evidence_guard", std::string(GuardResultString(decision.evidence_guard))},
                      {"semantic_guard", std::string(GuardResultString(decision.semantic_guard))},
                      {"subject_check", std::string(GuardResultString(decision.subject_check))}});
}

}  // namespace diagd::release
