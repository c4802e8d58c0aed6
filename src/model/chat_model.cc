#include "model/chat_model.h"

#include "core/json.h"
#include "core/json_writer.h"
#include "core/text.h"

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

SharedBytes EncodeContent(std::string_view text) {
  std::string sanitized;
  if (!text::IsValidUtf8(text)) text = sanitized = text::SanitizeUtf8(text);
  // Written once with room to spare (a tool result's quotes grow it by a
  // tenth or so), then copied to its exact size: a copy costs less than a
  // pass counting what escaping will add.
  std::string escaped;
  escaped.reserve(text.size() + text.size() / 4 + 16);
  json::AppendEscaped(text, escaped);
  return std::make_shared<const std::string>(escaped);
}

std::string ContentOf(const Message& message) {
  if (!message.encoded_content) return message.content;
  std::string text;
  if (json::ReadEscaped(*message.encoded_content, text)) return text;
  // Not as EncodeContent writes: read as any JSON string.
  auto parsed = json::Parse(*message.encoded_content);
  if (!parsed.has_value() || !parsed->is_string()) return {};
  return std::string(parsed->get_string());
}

std::string_view EncodedConversation::BytesOf(const Part& part) {
  if (const auto* shared = std::get_if<SharedBytes>(&part)) return **shared;
  return std::get<std::string>(part);
}

std::size_t EncodedConversation::BodySize() const {
  std::size_t size = 0;
  for (const Part& part : parts) size += BytesOf(part).size();
  return size;
}

std::string EncodedConversation::Body() const {
  std::string body;
  body.reserve(BodySize());
  for (const Part& part : parts) body += BytesOf(part);
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
