// Why collection stopped before the model finished on its own.
#pragma once

#include <exception>
#include <optional>
#include <stdexcept>

namespace diagd::harness {

enum class StopReason {
  kInformationSaturated,     // "INFORMATION_SATURATED": NO_GAIN reached its threshold
  kProgressProtocolViolated, // "PROGRESS_PROTOCOL_VIOLATED": violations reached their threshold
  kBudgetLimitReached,       // "BUDGET_LIMIT_REACHED": a hard budget ran out
  kCancelled,                // "CANCELLED": an operator cancelled the run (docs/console.md)
};
const char* StopReasonString(StopReason reason);

// The one exception that crosses the agent loop on purpose: a tool was asked
// for after the stop instruction had been delivered. The agent use case
// recognises it (through any wrapping, see FindCollectionStopped) and ends the
// loop with "no draft + stop reason" instead of an internal failure.
class CollectionStoppedError : public std::runtime_error {
 public:
  explicit CollectionStoppedError(StopReason reason)
      : std::runtime_error("collection stopped"), reason_(reason) {}
  StopReason reason() const { return reason_; }

 private:
  StopReason reason_;
};

// The stop reason when `error` is a CollectionStoppedError or wraps one
// (std::nested_exception, at any depth); nothing otherwise.
std::optional<StopReason> FindCollectionStopped(const std::exception_ptr& error);

}  // namespace diagd::harness
