// The hard budgets of one run (docs/specs/agent-and-accounting.md): model
// calls, tool calls, total tokens, tool bytes and wall time. Every model call
// of the run counts, whatever its component; the diagnosis agent is refused
// while granting it would leave fewer than `reserved_release_calls` for
// release's repair and semantic guard, so a verified conclusion is never
// starved of its checks. The run's cancellation (POST
// /api/v1/runs/{id}/cancel) lives here too: once requested, every model and
// tool call is refused with CANCELLED, and the calls in flight are handed
// the token so they can abandon (the HTTP client aborts its transfer).
//
// Thread safety: safe for concurrent use (the server reads usage while the
// run spends).
#pragma once

#include <chrono>
#include <cstdint>
#include <stop_token>

#include "core/clock.h"
#include "core/mutex.h"
#include "core/result.h"
#include "model/chat_model.h"
#include "tools/tool_boundary.h"

namespace diagd::harness {

struct BudgetLimits {
  int max_model_calls = 12;
  int max_tool_calls = 10;
  std::int64_t max_total_tokens = 64000;
  std::int64_t max_tool_bytes = 1048576;
  std::chrono::seconds max_run_time{180};
  int reserved_release_calls = 2;  // EVIDENCE_REPAIR + SEMANTIC_GUARD
};

struct BudgetUsage {
  int model_calls = 0;
  int tool_calls = 0;
  std::int64_t total_tokens = 0;
  std::int64_t tool_bytes = 0;
  std::chrono::milliseconds elapsed{0};
};

class RunBudget final : public tools::ToolBudget {
 public:
  // The run's clock starts now. `cancel`: the run's cancellation (none:
  // never cancelled).
  RunBudget(BudgetLimits limits, const Clock& clock, std::stop_token cancel = {});

  // Admits one model call of `component` (and counts it), or
  // RESOURCE_EXHAUSTED naming the budget that refused, or CANCELLED.
  Status AdmitModelCall(model::Component component);
  // Adds a made call's reported tokens to the run total.
  void ChargeTokens(std::int64_t tokens);

  // Whether the run was cancelled, and the token calls in flight watch.
  bool cancelled() const { return cancel_.stop_requested(); }
  const std::stop_token& cancel_token() const { return cancel_; }

  // tools::ToolBudget: CANCELLED once the run was cancelled.
  Status AdmitToolCall() override;
  void ChargeToolBytes(std::size_t bytes) override;

  BudgetUsage Usage() const;
  // What is left of the run's wall time (zero once spent).
  std::chrono::milliseconds TimeLeft() const;
  const BudgetLimits& limits() const { return limits_; }

 private:
  Status CheckTimeAndTokens() const REQUIRES(mu_);

  const BudgetLimits limits_;
  const Clock& clock_;
  const MonoTime start_;
  const std::stop_token cancel_;
  mutable Mutex mu_;
  int model_calls_ GUARDED_BY(mu_) = 0;
  int tool_calls_ GUARDED_BY(mu_) = 0;
  std::int64_t total_tokens_ GUARDED_BY(mu_) = 0;
  std::int64_t tool_bytes_ GUARDED_BY(mu_) = 0;
};

}  // namespace diagd::harness
