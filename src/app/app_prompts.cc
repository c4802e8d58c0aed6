#include "app/app_prompts.h"

namespace diagd::app {

const std::string& RouterPrompt(config::Language language) {
  static const std::string kZh =
      "你负责把运维助手收到的一条消息分到三类之一：询问某个故障、告警或异常为什么发生、需要排查的，"
      "是 DIAGNOSIS；询问文档、规范、配置或操作方法的，是 KNOWLEDGE；寒暄、询问助手能做什么等"
      "其他闲聊，是 SYSTEM_CHAT。整条答复必须恰好是一个 JSON 对象，例如 {\"route\": "
      "\"DIAGNOSIS\"}，不要有任何其他文字。";
  static const std::string kEn =
      "Sort one message sent to an operations assistant into one of three routes: asking why "
      "a failure, alert or anomaly happens, needing an investigation, is DIAGNOSIS; asking "
      "about documents, conventions, configuration or how to do something is KNOWLEDGE; "
      "greetings, questions about what the assistant can do and other small talk are "
      "SYSTEM_CHAT. The whole answer must be exactly one JSON object such as "
      "{\"route\": \"DIAGNOSIS\"}, with no other text.";
  return language == config::Language::kEn ? kEn : kZh;
}

const std::string& SystemChatPrompt(config::Language language) {
  static const std::string kZh =
      "你是 diagd，一个自托管的故障诊断助手：可以查阅运维文档与 Runbook、日志和业务数据库"
      "（均为只读），回答“为什么会出故障”，并且只发布每条引用都核验过的结论。请用简短的中文"
      "回答用户，不要编造你没有的能力。";
  static const std::string kEn =
      "You are diagd, a self-hosted diagnosis assistant: it reads runbooks and documents, logs "
      "and the business database (all read-only), answers why something is failing, and only "
      "publishes conclusions whose every quote was verified. Answer briefly in English and "
      "claim no ability you do not have.";
  return language == config::Language::kEn ? kEn : kZh;
}

const std::string& KnowledgePrompt(config::Language language) {
  static const std::string kZh =
      "你根据给定的文档摘录回答用户的问题。用户消息是一个 JSON 对象，包含 question 和 documents。"
      "只使用这些摘录中的信息；摘录没有答案时就如实说明。整条答复必须恰好是一个 JSON 对象："
      "{\"text\": \"回答\", \"citations\": [\"引用的 document_id\"]}，不要有任何其他文字。";
  static const std::string kEn =
      "Answer the user's question from the given document excerpts. The user message is a "
      "JSON object with question and documents. Use only what the excerpts say; when they do "
      "not answer it, say so. The whole answer must be exactly one JSON object: "
      "{\"text\": \"the answer\", \"citations\": [\"document_id you used\"]}, with no other text.";
  return language == config::Language::kEn ? kEn : kZh;
}

}  // namespace diagd::app
