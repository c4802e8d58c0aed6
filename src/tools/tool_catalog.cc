#include "tools/tool_catalog.h"

#include <boost/json.hpp>
#include <algorithm>

#include "core/json.h"
#include "tools/tool_result.h"

namespace diagd::tools {
namespace {

// The grade of the previous result, as every tool's envelope describes it.
// Descriptions explain what each tool is for and how to grade the previous
// result; they never mention limits, counters or budgets.
const char* PreviousObservationDescription(bool english) {
  return english
             ? "Your grade of the last tool result that returned evidence (EVIDENCE_FOUND): "
               "tool_call_id is that call's id; GAINED when it brought new verifiable facts that "
               "confirm, exclude or narrow a hypothesis, NO_GAIN when it was correct but useless, "
               "generic or repeated. Required while that result is ungraded; omit it otherwise."
             : "对上一次返回了证据（EVIDENCE_FOUND）的工具结果的评价：tool_call_id 为该次调用的 "
               "id；GAINED 表示它带来了确认、排除或缩小假设的新可验证事实，NO_GAIN "
               "表示正确但无用、泛泛或重复。该结果尚未评价时必须填写，否则不要填写。";
}

std::string EnvelopeSchema(boost::json::object input_schema, const char* previous_description) {
  boost::json::object previous{
      {"type", "object"},
      {"description", previous_description},
      {"additionalProperties", false},
      {"required", {"tool_call_id", "information_gain"}},
      {"properties",
       {{"tool_call_id", {{"type", "string"}}},
        {"information_gain", {{"type", "string"}, {"enum", {"GAINED", "NO_GAIN"}}}}}}};
  boost::json::object envelope{
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"input"}},
      {"properties",
       {{"previous_observation", std::move(previous)}, {"input", std::move(input_schema)}}}};
  return json::Serialize(envelope);
}

}  // namespace

std::vector<std::string> ToolCatalog::Topics() const { return Current()->options.logs.topics; }

ToolCatalog::ToolCatalog(CatalogOptions options, CatalogRefresh refresh)
    : refresh_(std::move(refresh)), current_(Build(std::move(options))) {
  if (refresh_.refresh && refresh_.clock != nullptr) {
    next_refresh_ = refresh_.clock->Monotonic() + refresh_.interval;
  }
}

std::shared_ptr<const ToolCatalog::Snapshot> ToolCatalog::Build(CatalogOptions options) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->options = std::move(options);
  const CatalogOptions& o = snapshot->options;
  RegisteredTools::ForEach([&](auto face) {
    using Face = decltype(face);
    if (!Face::Offered(o)) return;
    snapshot->definitions.push_back(
        {Face::kName.c_str(), Face::Description(o),
         EnvelopeSchema(Face::InputSchema(o), PreviousObservationDescription(o.english))});
  });
  return snapshot;
}

std::shared_ptr<const ToolCatalog::Snapshot> ToolCatalog::Current() const {
  std::shared_ptr<const Snapshot> snapshot;
  {
    MutexLock lock(mu_);
    snapshot = current_;
    if (!refresh_.refresh || refresh_.clock == nullptr ||
        refresh_.clock->Monotonic() < next_refresh_) {
      return snapshot;
    }
    next_refresh_ = refresh_.clock->Monotonic() + refresh_.interval;
  }
  // Refreshed without the lock (a backend may read a folder); runs
  // meanwhile use the snapshot they have.
  CatalogOptions options = snapshot->options;
  refresh_.refresh(options);
  if (options == snapshot->options) return snapshot;
  auto rebuilt = Build(std::move(options));
  MutexLock lock(mu_);
  current_ = rebuilt;
  return rebuilt;
}

std::shared_ptr<const std::vector<ToolDefinition>> ToolCatalog::Definitions() const {
  auto snapshot = Current();
  return {snapshot, &snapshot->definitions};  // shares the snapshot's lifetime
}

InputResult<ToolRequest> ToolCatalog::ParseInput(ToolName tool,
                                                 const boost::json::object& input) const {
  auto snapshot = Current();
  std::optional<InputResult<ToolRequest>> parsed;
  RegisteredTools::ForEach([&](auto face) {
    using Face = decltype(face);
    if (Face::kName != tool || !Face::Offered(snapshot->options)) return;
    auto request = Face::ParseInput(input, snapshot->options);
    if (!request) {
      parsed = Unexpected(std::move(request).error());
    } else {
      parsed = ToolRequest(std::move(*request));
    }
  });
  if (!parsed) return InputFailure("input", "UNKNOWN_TOOL");
  return std::move(*parsed);
}

Scope ToolCatalog::ScopeOf(const ToolRequest& request) {
  return VisitFace(request, [](auto face, const auto& q) { return decltype(face)::ScopeOf(q); });
}

}  // namespace diagd::tools
