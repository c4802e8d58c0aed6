// OfflineModel: the built-in, deterministic player of every model component
// (docs/model-endpoints.md, provider "offline"). No model server: the router,
// system chat, knowledge answer, diagnosis agent, evidence repair and
// semantic guard are played by fixed rules over the messages of each
// request. It is never presented as an LLM: its label says so.
//
// The diagnosis agent is stateless between calls: every call rebuilds the
// investigation from the conversation (investigation_state.h), decides the
// next tool call or writes the final draft (next_step.h,
// conclusion_writer.h), and speaks the progress protocol through its
// envelopes like any model would. The same request always gets the same
// answer.
//
// Thread safety: stateless; safe for concurrent use.
#pragma once

#include <string>

#include "model/chat_model.h"

namespace diagd::model::offline {

inline constexpr const char* kOfflineLabel = "offline (rule-based, not an LLM)";

class OfflineModel final : public ChatModel {
 public:
  // An unreadable request gets the component's safe answer; INTERNAL only
  // if the rules themselves fail (out of memory). Usage is reported as zero
  // tokens: no model was called.
  Result<ChatResponse, CallError> Complete(const ChatRequest& request) override;
  std::string Label(Component component) const override;

 private:
  Result<ChatResponse> Answer(const ChatRequest& request) const;
};

}  // namespace diagd::model::offline
