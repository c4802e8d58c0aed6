// An in-process scripted model for loop tests: answers each request with the
// next scripted reply (a response or an error) and records every request.
// Named for what it is: it plays a script, it does not think.
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "model/chat_model.h"

namespace diagd::model::testing {

class ScriptedModel final : public ChatModel {
 public:
  Result<ChatResponse, CallError> Complete(const ChatRequest& request) override {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    if (script_.empty()) return Error::Internal("scripted model: script exhausted");
    Result<ChatResponse, CallError> reply = std::move(script_.front());
    script_.pop_front();
    return reply;
  }
  std::string Label(Component) const override { return "scripted"; }

  // A final text answer.
  ScriptedModel& Answer(std::string content, std::optional<Usage> usage = Usage{100, 20, 120}) {
    ChatResponse response;
    response.message.role = Role::kAssistant;
    response.message.content = std::move(content);
    response.usage = usage;
    return Push(std::move(response));
  }
  // One assistant message with these tool calls.
  ScriptedModel& Call(std::vector<ToolCall> calls, std::optional<Usage> usage = Usage{100, 20, 120}) {
    ChatResponse response;
    response.message.role = Role::kAssistant;
    response.message.tool_calls = std::move(calls);
    response.usage = usage;
    return Push(std::move(response));
  }
  ScriptedModel& Fail(CallError error) {
    std::lock_guard<std::mutex> lock(mu_);
    script_.emplace_back(std::move(error));
    return *this;
  }
  ScriptedModel& Push(ChatResponse response) {
    std::lock_guard<std::mutex> lock(mu_);
    script_.emplace_back(std::move(response));
    return *this;
  }

  std::vector<ChatRequest> Requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  std::size_t Remaining() const {
    std::lock_guard<std::mutex> lock(mu_);
    return script_.size();
  }

 private:
  mutable std::mutex mu_;
  std::deque<Result<ChatResponse, CallError>> script_;
  std::vector<ChatRequest> requests_;
};

}  // namespace diagd::model::testing
