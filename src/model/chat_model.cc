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

}  // namespace diagd::model
