#include "app/answer_routes.h"

#include <boost/json.hpp>

#include "app/app_prompts.h"
#include "harness/tool_interceptor.h"
#include "core/json.h"
#include "core/text.h"
#include "tools/tool_catalog.h"

namespace diagd::app {
namespace {

constexpr std::size_t kMaxAnswerChars = 4000;

// The answer's text; nullopt when it called a tool (none was offered), the
// call's error when it failed.
Result<std::optional<std::string>> Ask(harness::ModelInterceptor& models,
                                       model::Component component, const std::string& system,
                                       const std::string& user) {
  model::ChatRequest request;
  request.component = component;
  request.messages = {{model::Role::kSystem, system, {}, {}}, {model::Role::kUser, user, {}, {}}};
  auto called = models.Call(request);
  if (!called) return std::move(called).error();
  if (!called->response.message.tool_calls.empty()) return std::optional<std::string>();
  return std::optional<std::string>(std::move(called->response.message.content));
}

}  // namespace

Route RouteQuestion(harness::ModelInterceptor& models, const std::string& question,
                    config::Language language) {
  auto answer = Ask(models, model::Component::kRouter, RouterPrompt(language), question);
  if (!answer || !*answer) return Route::kDiagnosis;
  auto parsed = json::Parse(**answer);
  if (!parsed || !parsed->is_object() || parsed->get_object().size() != 1) return Route::kDiagnosis;
  auto route = json::GetString(parsed->get_object(), "route");
  if (route == "KNOWLEDGE") return Route::kKnowledge;
  if (route == "SYSTEM_CHAT") return Route::kSystemChat;
  return Route::kDiagnosis;
}

Result<Answer> SystemChat(harness::ModelInterceptor& models, const std::string& question,
                          config::Language language) {
  auto answer = Ask(models, model::Component::kSystemChat, SystemChatPrompt(language), question);
  if (!answer) return std::move(answer).error();
  if (!*answer || text::IsBlank(**answer)) {
    return Answer{language == config::Language::kEn
                      ? "I am diagd, a diagnosis assistant. Ask me why something is failing."
                      : "我是 diagd 故障诊断助手，可以帮你排查“为什么会出故障”。",
                  {}};
  }
  return Answer{text::TruncateCodePoints(**answer, kMaxAnswerChars), {}};
}

KnowledgeOutcome AnswerFromDocuments(harness::RunContext& run, harness::ModelInterceptor& models,
                                     const tools::ToolBoundary& boundary,
                                     const std::string& question, config::Language language) {
  KnowledgeOutcome outcome;
  tools::DocumentsRequest request{text::TruncateCodePoints(question, 500)};
  tools::Scope scope = tools::ToolCatalog::ScopeOf(request);
  auto executed = boundary.Execute({run.run_id(), "call_1", request, scope}, run.budget());
  if (!executed) return outcome;  // the budget refused: no answer
  const auto& record = executed->record;
  auto status = harness::RecordExecutedCall(run.tracker(), run.trace(), *executed).evidence_status;
  outcome.process.push_back({"call_1", tools::documents::kSearchDocuments, scope.summary, status});
  const auto& documents = std::get<tools::DocumentsResult>(record.result);
  // A failed search is no proof that no document answers.
  if (status == tools::EvidenceStatus::kError) return outcome;
  if (status != tools::EvidenceStatus::kEvidenceFound) {
    outcome.answer = Answer{language == config::Language::kEn
                                ? "No document answers this question."
                                : "没有找到能回答这个问题的文档。",
                            {}};
    return outcome;
  }
  boost::json::array items;
  for (const auto& e : documents.evidence) {
    items.push_back({{"document_id", e.document_id},
                     {"source", e.source},
                     {"title", e.title},
                     {"breadcrumb", e.breadcrumb},
                     {"excerpt", e.excerpt}});
  }
  std::string user = json::Serialize(
      boost::json::object{{"question", question}, {"documents", std::move(items)}});
  auto answer = Ask(models, model::Component::kKnowledgeAnswer, KnowledgePrompt(language), user);
  if (!answer) {
    outcome.failure = std::move(answer).error();
    return outcome;
  }
  if (!*answer) return outcome;
  auto parsed = json::Parse(**answer);
  if (!parsed || !parsed->is_object()) return outcome;
  const auto& object = parsed->get_object();
  auto answer_text = json::GetString(object, "text");
  const auto* citations = object.if_contains("citations");
  if (object.size() != 2 || !answer_text || citations == nullptr || !citations->is_array()) {
    return outcome;
  }
  Answer result{text::TruncateCodePoints(*answer_text, kMaxAnswerChars), {}};
  for (const auto& cited : citations->get_array()) {
    if (!cited.is_string()) return outcome;
    for (const auto& e : documents.evidence) {
      // Only documents that were retrieved may be cited; others are dropped.
      if (e.document_id == cited.get_string()) {
        result.citations.push_back({e.document_id, e.source, e.title});
        break;
      }
    }
  }
  outcome.answer = std::move(result);
  return outcome;
}

}  // namespace diagd::app
