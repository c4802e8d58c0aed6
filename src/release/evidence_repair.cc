#include "release/evidence_repair.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "core/json_writer.h"
#include "release/cited_record.h"
#include "release/release_prompts.h"

namespace diagd::release {

std::string EvidenceRepair::RequestJson(const std::string& run_id, const std::string& question,
                                        const agent::DiagnosisDraft& draft,
                                        const std::vector<CitationViolation>& violations) const {
  json::JsonWriter request;
  // DraftJson writes one valid JSON value, embedded as it is.
  request.BeginObject().Key("question").String(question).Key("draft").Raw(agent::DraftJson(draft));
  request.Key("violations").BeginArray();
  for (const auto& v : violations) {
    request.BeginObject()
        .Key("tool_call_id")
        .String(v.tool_call_id)
        .Key("quote")
        .String(v.quote)
        .Key("problem")
        .String(CitationProblemString(v.problem))
        .EndObject();
  }
  request.EndArray();
  // Only the cited calls of this run that did not fail, each once: an
  // unknown or foreign id gets no observation (another run's data never
  // leaks in). Each is embedded as the text it was rendered to.
  request.Key("observations").BeginObject();
  if (draft.conclusion) {
    std::vector<std::string_view> listed;
    for (const auto& citation : draft.conclusion->evidence) {
      if (std::find(listed.begin(), listed.end(), citation.tool_call_id) != listed.end()) continue;
      auto observation = CitedObservation(store_, run_id, citation.tool_call_id, limits_);
      if (!observation) continue;
      listed.push_back(citation.tool_call_id);
      request.Key(citation.tool_call_id).Raw(*observation);
    }
  }
  request.EndObject().EndObject();
  return request.Take();
}

std::optional<agent::DiagnosisDraft> EvidenceRepair::Repair(
    harness::ModelInterceptor& model_calls, const std::string& run_id, const std::string& question,
    const agent::DiagnosisDraft& draft, const std::vector<CitationViolation>& violations) const {
  model::ChatRequest request;
  request.component = model::Component::kEvidenceRepair;
  request.messages.push_back({model::Role::kSystem, EvidenceRepairSystemPrompt(language_), {}, {}});
  request.messages.push_back(
      {model::Role::kUser, RequestJson(run_id, question, draft, violations), {}, {}});
  // A refused or failed call is a failed repair: release fails closed.
  auto called = model_calls.Call(request);
  if (!called || !called->response.message.tool_calls.empty()) return std::nullopt;
  auto repaired = agent::ParseDraft(called->response.message.content);
  if (!repaired || !repaired->conclusion) return std::nullopt;
  return std::move(*repaired);
}

}  // namespace diagd::release
