#include "tools/tool_boundary.h"

#include "core/json.h"
#include "core/text.h"
#include "runtime/fiber.h"
#include "tools/result_json.h"
#include "tools/tool_catalog.h"

namespace diagd::tools {
namespace {

constexpr std::chrono::milliseconds kDefaultTimeout{10000};

}  // namespace

ToolBoundary::ToolBoundary(std::map<ToolName, ToolAdapter*> adapters,
                           CanonicalInvocationStore& store, const Clock& clock,
                           BoundaryOptions options, Sleeper sleeper)
    : adapters_(std::move(adapters)),
      store_(store),
      clock_(clock),
      options_(std::move(options)),
      sleeper_(sleeper ? std::move(sleeper)
                       : Sleeper([](std::chrono::milliseconds d) { runtime::SleepFor(d); })) {}

Result<AdapterOutput, AdapterFailure> ToolBoundary::RunWithRetries(ToolAdapter& adapter,
                                                                   const ToolRequest& request,
                                                                   MonoTime deadline,
                                                                   const std::stop_token& cancel,
                                                                   int* attempts) const {
  for (int attempt = 1;; ++attempt) {
    *attempts = attempt;
    auto output = adapter.Execute(request, deadline, cancel);
    if (output) return output;
    // Only a technical failure is retried, and only while time is left: a
    // timeout has spent the deadline and a refused query will be refused again.
    auto backoff = options_.retry_backoff * attempt;
    bool retryable = output.error().code == ToolErrorCode::kToolUnavailable;
    if (!retryable || attempt >= options_.max_attempts || cancel.stop_requested() ||
        clock_.Monotonic() + backoff >= deadline) {
      return output;
    }
    sleeper_(backoff);
  }
}

Result<ExecutedCall> ToolBoundary::Execute(const ToolCall& call, ToolBudget& budget) const {
  if (auto admitted = budget.AdmitToolCall(); !admitted) return admitted.error();

  ToolName tool = ToolCatalog::ToolOf(call.request);
  auto timeout_entry = options_.timeouts.find(tool);
  auto timeout = timeout_entry != options_.timeouts.end() ? timeout_entry->second : kDefaultTimeout;
  MonoTime start = clock_.Monotonic();

  ExecutedCall executed;
  CanonicalRecord& record = executed.record;
  record.run_id = call.run_id;
  record.tool_call_id = call.tool_call_id;
  record.tool = tool;
  record.request_json = json::Serialize(RequestJson(call.request));
  record.scope = call.scope;

  auto adapter = adapters_.find(tool);
  Result<AdapterOutput, AdapterFailure> output =
      adapter == adapters_.end() || adapter->second == nullptr
          ? Result<AdapterOutput, AdapterFailure>(
                Unexpected(AdapterFailure{ToolErrorCode::kToolUnavailable, {}}))
          : RunWithRetries(*adapter->second, call.request, start + timeout, call.cancel,
                           &executed.attempts);

  if (output && !BindToRequest(output->result, call.request, call.tool_call_id)) {
    output = Unexpected(AdapterFailure{ToolErrorCode::kToolUnavailable, {}});
  }
  if (output) {
    record.result = std::move(output->result);
    Canonicalize(record.result, options_.limits);
    budget.ChargeToolBytes(output->raw_response.size());
    record.raw_response = text::TruncateBytes(output->raw_response,
                                              options_.max_raw_response_bytes,
                                              &record.raw_response_truncated);
  } else {
    record.result = ErrorResultFor(call.request, call.tool_call_id);
    record.error_code = output.error().code;
    if (output.error().code == ToolErrorCode::kQueryFailed) {
      record.error_message = text::TruncateCodePoints(output.error().message, 200);
    }
  }

  if (auto stored = store_.Put(record); !stored) {
    // A result whose truth cannot be kept cannot be cited: report it as a
    // failed call rather than hand the model unverifiable content.
    record.result = ErrorResultFor(call.request, call.tool_call_id);
    record.error_code = ToolErrorCode::kToolUnavailable;
    record.error_message.clear();
  }
  executed.duration =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock_.Monotonic() - start);
  return executed;
}

}  // namespace diagd::tools
