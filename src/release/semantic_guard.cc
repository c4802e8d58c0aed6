#include "release/semantic_guard.h"

#include "core/json.h"
#include "release/cited_record.h"
#include "release/release_prompts.h"

namespace diagd::release {

bool IsSupportedVerdict(std::string_view answer) {
  auto parsed = json::Parse(answer);
  if (!parsed || !parsed->is_object()) return false;
  const boost::json::object& object = parsed->get_object();
  if (object.size() != 1) return false;
  auto verdict = json::GetString(object, "verdict");
  return verdict && *verdict == "SUPPORTED";
}

bool SemanticGuard::Supports(harness::ModelInterceptor& model_calls, const std::string& run_id,
                             const std::string& question,
                             const agent::Conclusion& conclusion) const {
  boost::json::array evidence;
  for (const auto& citation : conclusion.evidence) {
    auto observation = CitedObservation(store_, run_id, citation.tool_call_id, limits_);
    if (!observation) return false;
    auto parsed = json::Parse(*observation);
    if (!parsed) return false;
    evidence.push_back({{"tool_call_id", citation.tool_call_id},
                        {"quote", citation.quote},
                        {"observation", std::move(*parsed)}});
  }
  boost::json::object user{{"question", question},
                           {"conclusion",
                            {{"root_cause", conclusion.root_cause},
                             {"confidence", agent::ConfidenceString(conclusion.confidence)}}},
                           {"evidence", std::move(evidence)}};

  model::ChatRequest request;
  request.component = model::Component::kSemanticGuard;
  request.messages.push_back({model::Role::kSystem, SemanticGuardSystemPrompt(language_), {}, {}});
  request.messages.push_back({model::Role::kUser, json::Serialize(user), {}, {}});
  auto called = model_calls.Call(request);
  if (!called || !called->response.message.tool_calls.empty()) return false;
  return IsSupportedVerdict(called->response.message.content);
}

}  // namespace diagd::release
