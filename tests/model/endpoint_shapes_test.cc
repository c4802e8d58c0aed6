// Recorded shapes, successes: what each server family really answers to a
// tool-calling request (endpoint_shapes.h), played over real loopback HTTP
// to the real client. Each test names the server and the quirk it carries.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/json.h"
#include "model/endpoint_shape_fixture.h"

namespace diagd::model::shapes {
namespace {

using ::testing::IsEmpty;

// ------------------------------------------------------------------ vLLM

TEST_F(EndpointShapeTest, VllmToolCallWithNullContentAndVllmExtras) {
  auto response = PlayOnce(kVllmToolCall);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.role, Role::kAssistant);
  EXPECT_EQ(response->message.content, "");
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "chatcmpl-tool-4be2d1f08a6c4f7e");
  EXPECT_EQ(response->message.tool_calls[0].name, "search_documents");
  EXPECT_EQ(response->message.tool_calls[0].arguments,
            R"({"query": "order service connection pool exhausted"})");
  EXPECT_EQ(response->finish_reason, "tool_calls");
  // `reasoning_content: null` is no reasoning.
  EXPECT_EQ(response->message.reasoning, "");
  EXPECT_EQ(response->message.reasoning_source, ReasoningSource::kNone);
  ASSERT_TRUE(response->usage.has_value());
  EXPECT_EQ(response->usage->input_tokens, 1204);
  EXPECT_EQ(response->usage->output_tokens, 35);
  EXPECT_EQ(response->usage->total_tokens, 1239);
}

TEST_F(EndpointShapeTest, VllmToolCallEndingWithFinishReasonStopIsStillAToolCall) {
  auto response = PlayOnce(kVllmToolCallFinishStop);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].name, "query_logs");
  EXPECT_EQ(response->finish_reason, "stop");  // as the provider sent it
}

TEST_F(EndpointShapeTest, VllmEmptyToolCallsArrayBesideContentIsATextAnswer) {
  auto response = PlayOnce(kVllmEmptyToolCallsBesideContent);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, R"({"status":"DIAGNOSED"})");
  EXPECT_THAT(response->message.tool_calls, IsEmpty());
  EXPECT_EQ(response->finish_reason, "stop");
}

// ------------------------------------------------------------------ SGLang

TEST_F(EndpointShapeTest, SglangToolCallIdIsZeroOnEveryTurnAndPassesThrough) {
  server_.AnswerRaw(200, "application/json", kSglangToolCallIdZeroFirst);
  server_.AnswerRaw(200, "application/json", kSglangToolCallIdZeroSecond);
  auto client = Client();
  auto first = client->Complete(AskWithTools());
  auto second = client->Complete(AskWithTools());
  ASSERT_TRUE(first.has_value()) << first.error().ToString();
  ASSERT_TRUE(second.has_value()) << second.error().ToString();
  ASSERT_EQ(first->message.tool_calls.size(), 1u);
  ASSERT_EQ(second->message.tool_calls.size(), 1u);
  EXPECT_EQ(first->message.tool_calls[0].id, "0");
  EXPECT_EQ(second->message.tool_calls[0].id, "0");
  EXPECT_EQ(first->message.tool_calls[0].name, "search_documents");
  EXPECT_EQ(second->message.tool_calls[0].name, "query_logs");
  EXPECT_EQ(first->message.content, "");
  ASSERT_TRUE(first->usage.has_value());
  EXPECT_EQ(first->usage->total_tokens, 840);
}

TEST_F(EndpointShapeTest, SglangAnswerWithNumericMatchedStopAndNullToolCalls) {
  auto response = PlayOnce(kSglangAnswerMatchedStopTokenId);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, R"({"status":"DIAGNOSED"})");
  EXPECT_THAT(response->message.tool_calls, IsEmpty());
  EXPECT_EQ(response->finish_reason, "stop");
}

// ------------------------------------------------------------------ llama.cpp

TEST_F(EndpointShapeTest, LlamaCppToolCallWithTimingsAndAnotherModelName) {
  auto response = PlayOnce(kLlamaCppToolCall);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "Hq7Tz2mKc9LwR4pXa1sVf6bNe3uYg8Dj");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"query":"disk full"})");
  EXPECT_EQ(response->message.content, "");
  ASSERT_TRUE(response->usage.has_value());
  EXPECT_EQ(response->usage->input_tokens, 640);
  EXPECT_EQ(response->usage->output_tokens, 24);
}

TEST_F(EndpointShapeTest, LlamaCppOlderToolCallWithoutIdKeepsAnEmptyId) {
  auto response = PlayOnce(kLlamaCppToolCallWithoutId);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "");
  EXPECT_EQ(response->message.tool_calls[0].name, "search_documents");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"query":"ECONNRESET"})");
}

TEST_F(EndpointShapeTest, LlamaCppArgumentsAsAJsonObjectBecomeJsonText) {
  auto response = PlayOnce(kLlamaCppArgumentsAsObject);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  auto arguments = json::Parse(response->message.tool_calls[0].arguments);
  ASSERT_TRUE(arguments.has_value()) << response->message.tool_calls[0].arguments;
  EXPECT_EQ(json::Canonical(*arguments), R"({"lookback_minutes":30,"topic":"payments"})");
}

// A call fed back to the model goes out as OpenAI's string, whatever shape
// it came in.
TEST_F(EndpointShapeTest, LlamaCppObjectArgumentsAreSentBackAsAString) {
  boost::json::array messages = FedBackTurn(kLlamaCppArgumentsAsObject);
  ASSERT_EQ(messages.size(), 4u);
  const auto& assistant = messages.at(2);
  const auto& arguments = assistant.at("tool_calls").at(0).at("function").at("arguments");
  ASSERT_TRUE(arguments.is_string()) << json::Serialize(assistant);
  EXPECT_EQ(json::Canonical(json::Parse(std::string(arguments.as_string())).value()),
            R"({"lookback_minutes":30,"topic":"payments"})");
}

// ------------------------------------------------------------------ Ollama

TEST_F(EndpointShapeTest, OllamaToolCallWithEmptyStringContentAndIndex) {
  auto response = PlayOnce(kOllamaToolCall);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "");
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_wt3op8bt");
  EXPECT_EQ(response->message.tool_calls[0].name, "query_logs");
  EXPECT_EQ(response->finish_reason, "tool_calls");
  ASSERT_TRUE(response->usage.has_value());
  EXPECT_EQ(response->usage->total_tokens, 1066);
}

TEST_F(EndpointShapeTest, OllamaOlderToolCallWithFinishStopAndNoUsage) {
  auto response = PlayOnce(kOllamaOlderToolCallStopWithoutUsage);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"query":"OOMKilled"})");
  EXPECT_EQ(response->finish_reason, "stop");
  EXPECT_FALSE(response->usage.has_value());  // unavailable, never zeros
}

// ------------------------------------------------------------------ LM Studio

TEST_F(EndpointShapeTest, LmStudioToolCallWithoutContentKeyAndNumericId) {
  auto response = PlayOnce(kLmStudioToolCall);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "");
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "365174485");
  EXPECT_EQ(response->message.tool_calls[0].name, "query_mysql");
  EXPECT_EQ(response->finish_reason, "tool_calls");
}

// ------------------------------------------------------------------ LiteLLM

TEST_F(EndpointShapeTest, LiteLlmToolCallWithProviderFieldsAndNullUsageDetails) {
  auto response = PlayOnce(kLiteLlmToolCall);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_5b1c9e0f2a7d4c3e8f6a1b2c");
  EXPECT_EQ(response->message.tool_calls[0].name, "search_documents");
  ASSERT_TRUE(response->usage.has_value());
  EXPECT_EQ(response->usage->input_tokens, 930);
  EXPECT_EQ(response->usage->output_tokens, 26);
  EXPECT_EQ(response->usage->total_tokens, 956);
}

// ------------------------------------------------------------------ DeepSeek

TEST_F(EndpointShapeTest, DeepSeekUsageWithCacheAndReasoningTokenExtras) {
  auto response = PlayOnce(kDeepSeekReasonerAnswer);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  ASSERT_TRUE(response->usage.has_value());
  EXPECT_EQ(response->usage->input_tokens, 1320);
  EXPECT_EQ(response->usage->output_tokens, 214);
  EXPECT_EQ(response->usage->total_tokens, 1534);
  EXPECT_EQ(response->finish_reason, "stop");
}

// ------------------------------------------------------------------ DashScope

TEST_F(EndpointShapeTest, DashScopeToolCallWithEmptyContentAndNullFingerprint) {
  auto response = PlayOnce(kDashScopeToolCall);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "");
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_6f0e2b8c4a1d4e7f9b3c5a");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"query": "支付回调超时"})");
  EXPECT_EQ(response->finish_reason, "tool_calls");
  ASSERT_TRUE(response->usage.has_value());
  EXPECT_EQ(response->usage->total_tokens, 1155);
}

// ------------------------------------------------------------------ OpenAI

TEST_F(EndpointShapeTest, OpenAiToolCallWithRefusalAnnotationsServiceTierAndUsageDetails) {
  auto response = PlayOnce(kOpenAiToolCall);
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "");
  ASSERT_EQ(response->message.tool_calls.size(), 1u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_Qm8xT2vL9pR4sK7wN1bY5cZ3");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"topic":"payments","level":"ERROR"})");
  EXPECT_EQ(response->message.reasoning_source, ReasoningSource::kNone);
  ASSERT_TRUE(response->usage.has_value());
  EXPECT_EQ(response->usage->input_tokens, 1312);
  EXPECT_EQ(response->usage->output_tokens, 27);
  EXPECT_EQ(response->usage->total_tokens, 1339);
}

// Every success shape above, one client: none needs a retry or a wait.
TEST_F(EndpointShapeTest, EverySuccessShapeIsReadOnTheFirstExchange) {
  const std::vector<const char*> bodies = {
      kVllmToolCall,        kVllmToolCallFinishStop,   kVllmEmptyToolCallsBesideContent,
      kVllmReasoningField,  kSglangToolCallIdZeroFirst, kSglangReasoningBesideToolCall,
      kLlamaCppToolCall,    kLlamaCppToolCallWithoutId, kLlamaCppArgumentsAsObject,
      kOllamaToolCall,      kOllamaReasoningField,     kLmStudioToolCall,
      kLiteLlmToolCall,     kDeepSeekReasonerAnswer,   kDeepSeekThinkingToolCall,
      kDashScopeToolCall,   kOpenAiToolCall,
  };
  for (const char* body : bodies) server_.AnswerRaw(200, "application/json", body);
  auto client = Client();
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    auto response = client->Complete(AskWithTools());
    EXPECT_TRUE(response.has_value()) << "body " << i << ": " << response.error().ToString();
  }
  EXPECT_EQ(server_.Requests().size(), bodies.size());
  EXPECT_TRUE(Sleeps().empty());
}

}  // namespace
}  // namespace diagd::model::shapes
