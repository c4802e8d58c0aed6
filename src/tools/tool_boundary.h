// The tool boundary: the one door through which an admitted tool call
// reaches a backend. In order: the tool-call and byte budgets are checked; the
// adapter runs under a deadline, with bounded retries of technical failures
// only; the result is made canonical and bounded; the canonical record
// (success or ERROR) is stored; the bytes are charged.
//
// Thread safety: one boundary serves every run; `Execute` is safe for
// concurrent use when the adapters and the store are.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <stop_token>
#include <string>

#include "core/clock.h"
#include "core/result.h"
#include "tools/canonical_store.h"
#include "tools/scope.h"
#include "tools/tool_adapter.h"
#include "tools/tool_request.h"

namespace diagd::tools {

// The run's budget as the boundary sees it; harness::RunBudget implements it.
class ToolBudget {
 public:
  virtual ~ToolBudget() = default;
  // Admits one more tool call, or RESOURCE_EXHAUSTED when the tool-call,
  // byte or time budget is spent. Admission counts the call.
  virtual Status AdmitToolCall() = 0;
  // Charges the bytes a call returned.
  virtual void ChargeToolBytes(std::size_t bytes) = 0;
};

struct BoundaryOptions {
  std::map<ToolName, std::chrono::milliseconds> timeouts;  // default 10 s when absent
  int max_attempts = 2;                                    // 1 = no retry
  std::chrono::milliseconds retry_backoff{100};            // times the attempt number
  std::size_t max_raw_response_bytes = 256 * 1024;
  ResultLimits limits;
};

struct ToolCall {
  std::string run_id;
  std::string tool_call_id;
  ToolRequest request;
  Scope scope;
  // The run's cancellation: handed to the adapter (which may abandon its
  // backend call), and no retry starts once it is requested.
  std::stop_token cancel = {};
};

struct ExecutedCall {
  CanonicalRecord record;  // as stored (evidence_status ERROR on failure)
  std::chrono::milliseconds duration{0};
  int attempts = 0;
};

class ToolBoundary {
 public:
  using Sleeper = std::function<void(std::chrono::milliseconds)>;

  // Borrows the adapters, the store and the clock; they must outlive the
  // boundary. A tool without an adapter answers TOOL_UNAVAILABLE.
  ToolBoundary(std::map<ToolName, ToolAdapter*> adapters, CanonicalInvocationStore& store,
               const Clock& clock, BoundaryOptions options, Sleeper sleeper = {});

  // RESOURCE_EXHAUSTED when the budget refused the call (nothing ran, nothing
  // stored). Otherwise the executed call, whose status may be ERROR.
  Result<ExecutedCall> Execute(const ToolCall& call, ToolBudget& budget) const;

 private:
  Result<AdapterOutput, AdapterFailure> RunWithRetries(ToolAdapter& adapter,
                                                       const ToolRequest& request,
                                                       MonoTime deadline,
                                                       const std::stop_token& cancel,
                                                       int* attempts) const;

  std::map<ToolName, ToolAdapter*> adapters_;
  CanonicalInvocationStore& store_;
  const Clock& clock_;
  BoundaryOptions options_;
  Sleeper sleeper_;
};

}  // namespace diagd::tools
