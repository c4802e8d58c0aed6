#include "model/chat_model.h"

#include <mutex>

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

// One mutex a text: a client may write it while a reader reads it.
struct SharedText::Held {
  std::mutex mu;
  std::string text;                           // until it is held in a form
  std::shared_ptr<const std::string> written;  // in `form`, once it is
  const Form* form = nullptr;
};

SharedText::SharedText(std::string text) : held_(std::make_shared<Held>()) {
  // Held for as long as the conversation: a writer's doubling may have left
  // up to half of it spare.
  if (text.capacity() - text.size() > text.size() / 16) text.shrink_to_fit();
  held_->text = std::move(text);
}

std::string SharedText::str() const {
  if (!held_) return {};
  std::lock_guard lock(held_->mu);
  if (held_->form == nullptr) return held_->text;
  return held_->form->read(*held_->written);
}

std::shared_ptr<const std::string> SharedText::HeldAs(const Form& form) const {
  if (!held_) return std::make_shared<const std::string>(form.write({}));
  std::lock_guard lock(held_->mu);
  if (held_->form == &form) return held_->written;
  // Held in another client's form (a conversation sent to two clients):
  // read back first.
  if (held_->form != nullptr) held_->text = held_->form->read(*held_->written);
  held_->written = std::make_shared<const std::string>(form.write(held_->text));
  held_->form = &form;
  std::string().swap(held_->text);
  return held_->written;
}

std::string ContentOf(const Message& message) {
  if (!message.shared_content) return message.content;
  return message.shared_content.str();
}

}  // namespace diagd::model
