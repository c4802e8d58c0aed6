#include "harness/stop_reason.h"

namespace diagd::harness {

const char* StopReasonString(StopReason reason) {
  switch (reason) {
    case StopReason::kInformationSaturated:
      return "INFORMATION_SATURATED";
    case StopReason::kProgressProtocolViolated:
      return "PROGRESS_PROTOCOL_VIOLATED";
    case StopReason::kBudgetLimitReached:
      return "BUDGET_LIMIT_REACHED";
    case StopReason::kCancelled:
      return "CANCELLED";
  }
  return "";
}

std::optional<StopReason> FindCollectionStopped(const std::exception_ptr& error) {
  std::exception_ptr current = error;
  // Bounded: a cause chain deeper than this is not one the loop built.
  for (int depth = 0; current && depth < 32; ++depth) {
    try {
      std::rethrow_exception(current);
    } catch (const CollectionStoppedError& stopped) {
      return stopped.reason();
    } catch (const std::nested_exception& nested) {
      current = nested.nested_ptr();
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace diagd::harness
