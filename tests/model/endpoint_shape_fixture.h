// What the endpoint shape tests share: the real client against the
// scripted server (OpenAiClientTest), a request that offers diagd's tools,
// and helpers to play a recorded body (endpoint_shapes.h) and read the
// failure it causes.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <ostream>
#include <string>

#include "model/endpoint_shapes.h"
#include "model/openai_client_fixture.h"

namespace diagd::model {

// Failed expectations name the source: "kThinkBlock", not a byte dump.
inline void PrintTo(ReasoningSource source, std::ostream* os) {
  switch (source) {
    case ReasoningSource::kNone:
      *os << "kNone";
      return;
    case ReasoningSource::kReasoningContent:
      *os << "kReasoningContent";
      return;
    case ReasoningSource::kReasoning:
      *os << "kReasoning";
      return;
    case ReasoningSource::kThinkBlock:
      *os << "kThinkBlock";
      return;
  }
  *os << "ReasoningSource(" << static_cast<int>(source) << ")";
}

}  // namespace diagd::model

namespace diagd::model::shapes {

// The real client against the scripted server, with helpers to play one
// recorded body and to read the failure it causes.
class EndpointShapeTest : public OpenAiClientTest {
 protected:
  // A diagnosis agent's request that offers two of diagd's tools.
  static ChatRequest AskWithTools(Component component = Component::kDiagnosisAgent) {
    ChatRequest request = Ask("PROMPT-MARKER why do orders fail since 10:00?", component);
    request.tools = MakeToolList(
        {{"search_documents", "Search the runbooks.",
          R"({"type":"object","properties":{"query":{"type":"string"}}})"},
         {"query_logs", "Query a log topic.",
          R"({"type":"object","properties":{"topic":{"type":"string"}}})"}});
    return request;
  }

  // `body` scripted `times` times: as many copies as the client may try, so
  // that whether it retries does not change which answer it ends on.
  void Repeat(int status, const std::string& content_type, const std::string& body,
              int times = 3) {
    for (int i = 0; i < times; ++i) server_.AnswerRaw(status, content_type, body);
  }

  // One call of a client with key `api_key` after `body` was scripted once.
  Result<ChatResponse, CallError> PlayOnce(const std::string& body, int status = 200,
                                const std::string& content_type = "application/json",
                                const std::string& api_key = "") {
    server_.AnswerRaw(status, content_type, body);
    return Client(api_key)->Complete(AskWithTools());
  }

  // Plays `first_body` (an answer with a tool call), feeds that turn and an
  // empty tool result back, and returns the second request's messages:
  // what a later turn of the loop sends.
  boost::json::array FedBackTurn(const std::string& first_body) {
    server_.AnswerRaw(200, "application/json", first_body);
    server_.Answer("done");
    auto client = Client();
    ChatRequest request = AskWithTools();
    auto first = client->Complete(request);
    EXPECT_TRUE(first.has_value()) << (first ? "" : first.error().ToString());
    if (!first.has_value() || first->message.tool_calls.empty()) return {};
    request.messages.push_back(first->message);
    request.messages.push_back(
        {Role::kTool, R"({"events":[]})", {}, first->message.tool_calls[0].id});
    EXPECT_TRUE(client->Complete(request).has_value());
    auto seen = server_.Requests();
    EXPECT_EQ(seen.size(), 2u);
    if (seen.size() != 2u) return {};
    return seen[1].json.at("messages").as_array();
  }

  // The failure of `result`; a success fails the test.
  static CallError FailureOf(const Result<ChatResponse, CallError>& result) {
    EXPECT_FALSE(result.has_value()) << "the call succeeded";
    if (result.has_value()) return CallError{};
    return result.error();
  }

  // "MODEL_HTTP_ERROR", ... or "(no reason)": readable in a failed EXPECT_EQ.
  static std::string ReasonOf(const Error& error) {
    return error.reason ? FailureReasonName(*error.reason) : "(no reason)";
  }

  // What no error message may hold: the key, the prompt, the endpoint's
  // address.
  static void ExpectNothingSecretIn(const Error& error) {
    EXPECT_EQ(error.message.find(kTestKey), std::string::npos) << error.message;
    EXPECT_EQ(error.message.find("5f3a9c0d2e7b"), std::string::npos) << error.message;
    EXPECT_EQ(error.message.find("PROMPT-MARKER"), std::string::npos) << error.message;
    EXPECT_EQ(error.message.find("127.0.0.1"), std::string::npos) << error.message;
  }
};

}  // namespace diagd::model::shapes
