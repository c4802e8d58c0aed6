#include "model/chat_model.h"

namespace diagd::model {

const char* ComponentName(Component component) {
  switch (component) {
    case Component::kRouter:
      return "ROUTER";
    case Component::kSystemChat:
      return "SYSTEM_CHAT";
    case Component::kKnowledgeAnswer:
      return "KNOWLEDGE_ANSWER";
    case Component::kDiagnosisAgent:
      return "DIAGNOSIS_AGENT";
    case Component::kEvidenceRepair:
      return "EVIDENCE_REPAIR";
    case Component::kSemanticGuard:
      return "SEMANTIC_GUARD";
  }
  return "";
}

const char* RoleName(Role role) {
  switch (role) {
    case Role::kSystem:
      return "system";
    case Role::kUser:
      return "user";
    case Role::kAssistant:
      return "assistant";
    case Role::kTool:
      return "tool";
  }
  return "";
}

ToolList MakeToolList(std::vector<FunctionTool> tools) {
  return std::make_shared<const std::vector<FunctionTool>>(std::move(tools));
}

std::span<const FunctionTool> OfferedTools(const ChatRequest& request) {
  if (!request.tools) return {};
  return *request.tools;
}

std::size_t EncodedConversation::BodySize() const {
  std::size_t size = 0;
  for (const std::string& part : parts) size += part.size();
  return size;
}

std::string EncodedConversation::Body() const {
  std::string body;
  body.reserve(BodySize());
  for (const std::string& part : parts) body += part;
  return body;
}

void EncodedConversation::Join() {
  if (parts.size() < 2) return;
  // One copy of the body, exactly sized: `parts = {Body()}` made a second
  // (the initializer list is copied from), and a run joins every turn.
  std::string body = Body();
  parts.clear();
  parts.push_back(std::move(body));
}

}  // namespace diagd::model
