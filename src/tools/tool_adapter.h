// The seam between the tool boundary and a tool's backend. One adapter per
// tool; the backends behind it (local files, HTTP upstream, SQLite, MariaDB)
// are chosen by configuration.
#pragma once

#include <stop_token>
#include <string>

#include "core/clock.h"
#include "core/result.h"
#include "tools/tool_request.h"
#include "tools/tool_result.h"

namespace diagd::tools {

struct AdapterOutput {
  // The result before canonicalization: the boundary bounds it, derives its
  // evidence status and stamps the tool call id.
  ToolResult result;
  std::string raw_response;  // for the canonical record; the boundary caps it
};

struct AdapterFailure {
  ToolErrorCode code = ToolErrorCode::kToolUnavailable;
  // QUERY_FAILED only: a short reason from the data source, with no host,
  // credential or stack text. Other codes carry nothing to the model.
  std::string message;
};

// Implementations are shared by all runs and must be safe for concurrent use.
class ToolAdapter {
 public:
  virtual ~ToolAdapter() = default;
  // Runs `request` (always of this adapter's tool). Must give up by
  // `deadline` and then answer TOOL_TIMEOUT: the backends set their client
  // timeouts from it. Once `cancel` is requested the backend call is
  // abandoned where the backend allows it (then TOOL_UNAVAILABLE); a call
  // that cannot be interrupted runs to its end or its deadline.
  // TOOL_UNAVAILABLE marks a technical failure that a retry may cure;
  // QUERY_FAILED never is.
  Result<AdapterOutput, AdapterFailure> Execute(const ToolRequest& request, MonoTime deadline,
                                                const std::stop_token& cancel = {}) {
    return DoExecute(request, deadline, cancel);
  }

 private:
  // The one entry point an adapter implements, with Execute's contract.
  // (Execute stays non-virtual so its default argument is the same for
  // every caller, whatever static type it holds.)
  virtual Result<AdapterOutput, AdapterFailure> DoExecute(const ToolRequest& request,
                                                          MonoTime deadline,
                                                          const std::stop_token& cancel) = 0;
};

}  // namespace diagd::tools
