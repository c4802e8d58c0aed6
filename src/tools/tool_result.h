// Canonical tool results (docs/specs/tool-contracts.md): the one truth about what a
// tool returned, from which the model observation, the harness control view,
// evidence checks and the user's process are all derived. Every list and
// string here is already bounded; `truncated` says whether anything was cut.
// Each tool's result type lives in its folder; this is the value that holds
// any of them.
#pragma once

#include <cstddef>
#include <string>

#include "tools/tool_registry.h"
#include "tools/tool_request.h"

namespace diagd::tools {

using ToolResult = RegisteredTools::Result;

ToolName ToolOf(const ToolResult& result);
EvidenceStatus EvidenceStatusOf(const ToolResult& result);
const std::string& ToolCallIdOf(const ToolResult& result);
std::size_t ReturnedCountOf(const ToolResult& result);
bool TruncatedOf(const ToolResult& result);

// Makes an adapter's raw result canonical (the tool's Canonicalize): drops
// unusable items, cuts lists and strings to `limits` (setting `truncated`),
// sets `returned_count`, and derives `evidence_status` from what is left:
// EVIDENCE_FOUND only when an item remains.
void Canonicalize(ToolResult& result, const ResultLimits& limits);

// Writes the request's own fields (query, topic, lookback, datasource, sql,
// params) and the tool call id onto `result`, so that what a result says was
// asked is what was asked, whatever the backend echoed. False when `result`
// is not of the request's tool (a backend bug).
bool BindToRequest(ToolResult& result, const ToolRequest& request,
                   const std::string& tool_call_id);

// An ERROR result of the request's tool, echoing its scope fields.
ToolResult ErrorResultFor(const ToolRequest& request, const std::string& tool_call_id);

}  // namespace diagd::tools
