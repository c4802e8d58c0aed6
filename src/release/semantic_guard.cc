#include "release/semantic_guard.h"

#include "core/json.h"
#include "core/json_writer.h"
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
  // Written as it goes, each observation embedded as the text it was
  // rendered to (the bytes the diagnosis model saw), not parsed into a tree
  // only to be serialized again.
  json::JsonWriter user;
  user.BeginObject().Key("question").String(question);
  user.Key("conclusion")
      .BeginObject()
      .Key("root_cause")
      .String(conclusion.root_cause)
      .Key("confidence")
      .String(agent::ConfidenceString(conclusion.confidence))
      .EndObject();
  user.Key("evidence").BeginArray();
  for (const auto& citation : conclusion.evidence) {
    auto observation = CitedObservation(store_, run_id, citation.tool_call_id, limits_);
    if (!observation) return false;
    user.BeginObject()
        .Key("tool_call_id")
        .String(citation.tool_call_id)
        .Key("quote")
        .String(citation.quote)
        .Key("observation")
        .Raw(*observation)
        .EndObject();
  }
  user.EndArray().EndObject();

  model::ChatRequest request;
  request.component = model::Component::kSemanticGuard;
  request.messages.push_back({model::Role::kSystem, SemanticGuardSystemPrompt(language_), {}, {}});
  request.messages.push_back({model::Role::kUser, user.Take(), {}, {}});
  auto called = model_calls.Call(request);
  if (!called || !called->response.message.tool_calls.empty()) return false;
  return IsSupportedVerdict(called->response.message.content);
}

}  // namespace diagd::release
