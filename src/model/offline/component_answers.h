// The offline answers of the model components other than the diagnosis
// agent (docs/specs/model-components.md): each takes the component's user
// message and answers with exactly the shape the component must answer.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "model/offline/investigation_state.h"

namespace diagd::model::offline {

// {"route": "DIAGNOSIS" | "KNOWLEDGE" | "SYSTEM_CHAT"} by keyword rules:
// greetings and "what can you do" -> SYSTEM_CHAT; "why / 为什么 / 怎么回事"
// and failure words -> DIAGNOSIS; "是什么 / 怎么配置 / how do I / what is"
// -> KNOWLEDGE; anything else -> DIAGNOSIS.
std::string RouteAnswer(const std::string& question);

// A short, honest description of diagd in its offline rule-based mode.
std::string SystemChatAnswer(const std::string& question, Lang lang);

// {"text": "...", "citations": [...]} from the given documents only.
std::string KnowledgeAnswer(const std::string& user_message, Lang lang);

// A rebuilt draft: citations named in the violations fixed with exact
// substrings of the given observations, or dropped; the conclusion kept only
// while one valid citation remains.
std::string EvidenceRepairAnswer(const std::string& user_message, Lang lang);

// {"verdict":"SUPPORTED"} when every quote occurs in its observation, no
// quote comes from instruction-like text, the evidence keeps the method
// (causal_guard.h: more than one call, no cited change after the cited
// failure or harmless by its own words), and the root cause names
// something the evidence shows; otherwise UNSUPPORTED with a reason.
std::string SemanticGuardAnswer(const std::string& user_message);

}  // namespace diagd::model::offline
