#include "release/evidence_repair.h"

#include "core/json.h"
#include "release/cited_record.h"
#include "release/release_prompts.h"

namespace diagd::release {

std::string EvidenceRepair::RequestJson(const std::string& run_id, const std::string& question,
                                        const agent::DiagnosisDraft& draft,
                                        const std::vector<CitationViolation>& violations) const {
  boost::json::array listed;
  for (const auto& v : violations) {
    listed.push_back({{"tool_call_id", v.tool_call_id},
                      {"quote", v.quote},
                      {"problem", CitationProblemString(v.problem)}});
  }
  // Only the cited calls of this run that did not fail: an unknown or
  // foreign id gets no observation (another run's data never leaks in).
  boost::json::object observations;
  if (draft.conclusion) {
    for (const auto& citation : draft.conclusion->evidence) {
      if (observations.contains(citation.tool_call_id)) continue;
      auto observation = CitedObservation(store_, run_id, citation.tool_call_id, limits_);
      if (!observation) continue;
      auto parsed = json::Parse(*observation);
      if (parsed) observations[citation.tool_call_id] = std::move(*parsed);
    }
  }
  // DraftJson writes valid JSON, so this parse cannot fail; null keeps the
  // request well formed if it ever did.
  auto draft_json = json::Parse(agent::DraftJson(draft));
  boost::json::object request{
      {"question", question},
      {"draft", draft_json ? std::move(*draft_json) : boost::json::value(nullptr)},
      {"violations", std::move(listed)},
      {"observations", std::move(observations)}};
  return json::Serialize(request);
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
