#include "model/offline/offline_model.h"

#include "model/offline/case_file.h"
#include "model/offline/component_answers.h"
#include "model/offline/conclusion_writer.h"
#include "model/offline/investigation_state.h"
#include "model/offline/next_step.h"
#include "model/offline/question_analysis.h"

namespace diagd::model::offline {
namespace {

// The user message a one-shot component answers.
std::string LastUserMessage(const ChatRequest& request) {
  for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
    if (it->role == Role::kUser) return it->content;
  }
  return {};
}

Message DiagnosisTurn(const ChatRequest& request) {
  InvestigationState state = RebuildState(request);
  QuestionAnalysis analysis = AnalyzeQuestion(state.context, state.topics);
  // A named service found inside a topic it shares with others is
  // investigated there like a topic of its own.
  std::erase_if(analysis.unknown_services, [&](const std::string& service) {
    if (SharedTopicOf(state, service).empty()) return false;
    analysis.topics.push_back(service);
    return true;
  });
  // A question that names a host or path and no service: the topic whose
  // errors name it is the one asked about.
  if (analysis.topics.empty() && analysis.unknown_services.empty()) {
    for (const auto& call : state.calls) {
      if (call.tool == ToolKind::kLogs && call.outcome == Outcome::kEvidence &&
          !analysis.things.empty() && call.input.query.find(analysis.things.front()) != std::string::npos) {
        analysis.topics.push_back(call.input.topic);
        break;
      }
    }
  }
  CaseFile file = BuildCaseFile(state, analysis);
  NextAction next = DecideNext(state, analysis, file);
  Message message;
  message.role = Role::kAssistant;
  if (next.step) {
    // Ids follow the calls of the conversation: call_1, call_2, ...
    std::string id = "call_" + std::to_string(state.calls.size() + 1);
    message.tool_calls.push_back({id, ToolWireName(next.step->tool), EnvelopeJson(next)});
    return message;
  }
  message.content = DraftToJson(BuildDraft(state, analysis, file));
  return message;
}

}  // namespace

Result<ChatResponse, CallError> OfflineModel::Complete(const ChatRequest& request) {
  // The rules use the standard library and Boost.JSON, which report
  // exhaustion (memory, regex complexity) by throwing: nothing crosses this
  // boundary but a value.
  try {
    auto answer = Answer(request);
    if (!answer) return answer.error();
    return std::move(*answer);
  } catch (...) {
    return Error::Internal("the offline model could not answer");
  }
}

Result<ChatResponse> OfflineModel::Answer(const ChatRequest& request) const {
  ChatResponse response;
  response.message.role = Role::kAssistant;
  response.usage = Usage{0, 0, 0};
  Lang lang = LanguageOf(request);
  std::string user = LastUserMessage(request);
  switch (request.component) {
    case Component::kRouter:
      response.message.content = RouteAnswer(user);
      break;
    case Component::kSystemChat:
      response.message.content = SystemChatAnswer(user, lang);
      break;
    case Component::kKnowledgeAnswer:
      response.message.content = KnowledgeAnswer(user, lang);
      break;
    case Component::kDiagnosisAgent:
      response.message = DiagnosisTurn(request);
      break;
    case Component::kEvidenceRepair:
      response.message.content = EvidenceRepairAnswer(user, lang);
      break;
    case Component::kSemanticGuard:
      response.message.content = SemanticGuardAnswer(user);
      break;
  }
  return response;
}

std::string OfflineModel::Label(Component) const { return kOfflineLabel; }

}  // namespace diagd::model::offline
