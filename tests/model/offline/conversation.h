// Diagnosis conversations written by hand, as the agent loop would send
// them to the model: the real system prompt and tool definitions, the
// question, then tool calls and their observations.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "agent/prompts.h"
#include "model/chat_model.h"
#include "model/offline/offline_model.h"
#include "tools/tool_catalog.h"

namespace diagd::model::offline::testing {

class Conversation {
 public:
  explicit Conversation(std::string question,
                        std::vector<std::string> topics = {"gateway", "order-service", "payment-db",
                                                           "payment-service"},
                        std::vector<std::string> datasources = {"orders"}, bool english = false,
                        std::vector<std::string> dialects = {}) {
    tools::CatalogOptions options;
    options.logs.topics = std::move(topics);
    options.mysql.datasources = std::move(datasources);
    options.mysql.dialects = std::move(dialects);
    options.english = english;
    tools::ToolCatalog catalog(options);
    request_.component = Component::kDiagnosisAgent;
    std::vector<FunctionTool> offered;
    for (const auto& d : *catalog.Definitions()) {
      offered.push_back({d.name, d.description, d.parameters_schema});
    }
    request_.tools = MakeToolList(std::move(offered));
    request_.messages.push_back(
        {Role::kSystem,
         agent::DiagnosisSystemPrompt(english ? config::Language::kEn : config::Language::kZh),
         {},
         {}});
    request_.messages.push_back({Role::kUser, std::move(question), {}, {}});
  }

  // An earlier exchange of the conversation, before the question.
  Conversation& History(const std::string& user, const std::string& assistant) {
    auto question = request_.messages.end() - 1;
    question = request_.messages.insert(question, {Role::kUser, user, {}, {}});
    request_.messages.insert(question + 1, {Role::kAssistant, assistant, {}, {}});
    return *this;
  }

  // One assistant turn with one tool call.
  Conversation& Call(const std::string& id, const std::string& tool, const std::string& arguments) {
    Message message{Role::kAssistant, "", {{id, tool, arguments}}, {}};
    request_.messages.push_back(std::move(message));
    return *this;
  }
  Conversation& Observe(const std::string& id, const std::string& observation) {
    request_.messages.push_back({Role::kTool, observation, {}, id});
    return *this;
  }
  // Plays the offline model's own next turn into the conversation, with
  // `observation` as the tool's answer; returns the call it made.
  ToolCall Step(const std::string& observation_template) {
    Message answer = Ask();
    ToolCall call = answer.tool_calls.empty() ? ToolCall{} : answer.tool_calls.front();
    request_.messages.push_back(answer);
    request_.messages.push_back({Role::kTool, WithId(observation_template, call.id), {}, call.id});
    return call;
  }

  // Offers one more tool beside the catalog's, as its definition reaches
  // the model (a tool the catalog of this build does not hold yet).
  Conversation& Offer(FunctionTool tool) {
    auto offered = OfferedTools(request_);
    std::vector<FunctionTool> tools(offered.begin(), offered.end());
    tools.push_back(std::move(tool));
    request_.tools = MakeToolList(std::move(tools));
    return *this;
  }

  // Plays the offline model's turns until its final answer (at most
  // `max_turns` tool calls), each call answered by `tools` (an observation
  // template, "$ID" standing for the call's id). Returns the final answer.
  Message Play(const std::function<std::string(const ToolCall&)>& tools, int max_turns = 12) {
    for (int turn = 0; turn < max_turns; ++turn) {
      Message answer = Ask();
      if (answer.tool_calls.empty()) return answer;
      request_.messages.push_back(answer);
      const ToolCall& call = answer.tool_calls.front();
      request_.messages.push_back({Role::kTool, WithId(tools(call), call.id), {}, call.id});
    }
    return Ask();
  }

  // The tool calls the model made so far, in order.
  std::vector<ToolCall> Calls() const {
    std::vector<ToolCall> calls;
    for (const auto& message : request_.messages) {
      calls.insert(calls.end(), message.tool_calls.begin(), message.tool_calls.end());
    }
    return calls;
  }

  const ChatRequest& Request() const { return request_; }

  // The offline model's answer to the conversation as it stands.
  Message Ask() const {
    OfflineModel model;
    auto response = model.Complete(request_);
    return response ? response->message : Message{};
  }

 private:
  // An observation template with "$ID" replaced by the call's id.
  static std::string WithId(std::string observation, const std::string& id) {
    for (std::size_t at = observation.find("$ID"); at != std::string::npos;
         at = observation.find("$ID")) {
      observation.replace(at, 3, id);
    }
    return observation;
  }

  ChatRequest request_;
};

}  // namespace diagd::model::offline::testing
