#include "app/run_failure.h"

#include <algorithm>

#include "core/secrets.h"
#include "core/text.h"
#include "release/release_messages.h"

namespace diagd::app {
namespace {

RunFailure Bounded(FailureReason reason, const std::string& detail) {
  // The client scrubbed its messages already; this is the store's own guard.
  std::string clean = ScrubCredentials(text::CollapseWhitespace(detail), {});
  return {reason, text::TruncateCodePoints(clean, kMaxFailureDetailChars)};
}

}  // namespace

std::optional<RunFailure> ExplainFailure(const FailureEvidence& evidence) {
  if (evidence.route_error != nullptr) {
    return Bounded(evidence.route_error->reason.value_or(FailureReason::kInternal),
                   evidence.route_error->message);
  }
  for (auto it = evidence.failed_calls.rbegin(); it != evidence.failed_calls.rend(); ++it) {
    if (it->component == model::Component::kEvidenceRepair ||
        it->component == model::Component::kSemanticGuard) {
      return Bounded(it->reason, it->detail);
    }
  }
  if (evidence.process != nullptr && !evidence.process->empty() &&
      std::all_of(evidence.process->begin(), evidence.process->end(), [](const auto& entry) {
        return entry.evidence_status == tools::EvidenceStatus::kError;
      })) {
    return Bounded(FailureReason::kToolBackendError,
                   "every tool call of the run failed (" +
                       std::to_string(evidence.process->size()) + " calls)");
  }
  if (evidence.time_ran_out) {
    return Bounded(FailureReason::kRunTimeout, "the run used all of harness.max_run_seconds");
  }
  return std::nullopt;
}

int HttpStatusIn(const std::string& detail) {
  constexpr std::string_view kMarker = "HTTP ";
  for (std::size_t at = detail.find(kMarker); at != std::string::npos;
       at = detail.find(kMarker, at + 1)) {
    std::size_t digits = at + kMarker.size();
    if (digits + 3 > detail.size()) break;
    bool three = std::all_of(detail.begin() + static_cast<std::ptrdiff_t>(digits),
                             detail.begin() + static_cast<std::ptrdiff_t>(digits + 3),
                             [](char c) { return c >= '0' && c <= '9'; });
    bool ends = digits + 3 == detail.size() || detail[digits + 3] < '0' || detail[digits + 3] > '9';
    if (three && ends) return std::stoi(detail.substr(digits, 3));
  }
  return 0;
}

std::string FailureLimitation(const RunFailure& failure, config::Language language) {
  return release::FailureSentence(failure.reason, HttpStatusIn(failure.detail), language);
}

}  // namespace diagd::app
