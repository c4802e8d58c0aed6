// The OpenAI-compatible client on the happy path, over real HTTP: what it
// sends (docs/model-endpoints.md) and what it reads back.
#include "model/openai_client.h"

#include <gtest/gtest.h>

#include <thread>

#include "core/json.h"
#include "model/openai_client_fixture.h"

namespace diagd::model {
namespace {

namespace bj = boost::json;
using diagd::testing::ScriptedToolCall;
using diagd::testing::ScriptedUsage;

constexpr char kSchema[] =
    R"({"type":"object","properties":{"query":{"type":"string"}},"required":["query"]})";

TEST_F(OpenAiClientTest, ReturnsTextAnswerWithUsage) {
  server_.Answer("连接池耗尽", ScriptedUsage{321, 45, 366});
  auto response = Client()->Complete(Ask("why are orders failing?"));
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.role, Role::kAssistant);
  EXPECT_EQ(response->message.content, "连接池耗尽");
  EXPECT_TRUE(response->message.tool_calls.empty());
  ASSERT_TRUE(response->usage.has_value());
  EXPECT_EQ(response->usage->input_tokens, 321);
  EXPECT_EQ(response->usage->output_tokens, 45);
  EXPECT_EQ(response->usage->total_tokens, 366);
  EXPECT_TRUE(Sleeps().empty());
}

TEST_F(OpenAiClientTest, ReturnsToolCallsWithArgumentsAsStringOrObject) {
  server_.CallTools(
      {{"call_1", "search_documents", R"({"query":"pool"})", false},
       {"call_2", "query_logs", R"({"topic":"orders","lookback_minutes":30})", true}});
  auto response = Client()->Complete(Ask("why?"));
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "");  // null content
  ASSERT_EQ(response->message.tool_calls.size(), 2u);
  EXPECT_EQ(response->message.tool_calls[0].id, "call_1");
  EXPECT_EQ(response->message.tool_calls[0].name, "search_documents");
  EXPECT_EQ(response->message.tool_calls[0].arguments, R"({"query":"pool"})");
  EXPECT_EQ(response->message.tool_calls[1].id, "call_2");
  EXPECT_EQ(response->message.tool_calls[1].name, "query_logs");
  EXPECT_EQ(response->message.tool_calls[1].arguments,
            R"({"topic":"orders","lookback_minutes":30})");
}

TEST_F(OpenAiClientTest, PassesToolCallIdsThroughAsSentEvenMissingOrRepeated) {
  server_.CallTools({{"", "search_documents", "{}", false}});
  server_.AnswerRaw(200, "application/json",
                    R"({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
                      {"id":"x","type":"function","function":{"name":"a","arguments":"{}"}},
                      {"id":"x","type":"function","function":{"name":"b"}}]}}]})");
  auto client = Client();
  auto missing = client->Complete(Ask("q"));
  ASSERT_TRUE(missing.has_value()) << missing.error().ToString();
  ASSERT_EQ(missing->message.tool_calls.size(), 1u);
  EXPECT_EQ(missing->message.tool_calls[0].id, "");
  auto repeated = client->Complete(Ask("q"));
  ASSERT_TRUE(repeated.has_value()) << repeated.error().ToString();
  ASSERT_EQ(repeated->message.tool_calls.size(), 2u);
  EXPECT_EQ(repeated->message.tool_calls[0].id, "x");
  EXPECT_EQ(repeated->message.tool_calls[1].id, "x");
  EXPECT_EQ(repeated->message.tool_calls[1].arguments, "{}");  // missing arguments
}

TEST_F(OpenAiClientTest, ReportsUsageAsUnavailableWhenAbsentOrNotNumbers) {
  server_.Answer("no usage", std::nullopt);
  server_.AnswerRaw(200, "application/json",
                    R"({"choices":[{"message":{"content":"a"}}],"usage":{"prompt_tokens":"12",
                        "completion_tokens":3,"total_tokens":15}})");
  server_.AnswerRaw(200, "application/json",
                    R"({"choices":[{"message":{"content":"a"}}],"usage":{"prompt_tokens":-1,
                        "completion_tokens":3}})");
  server_.AnswerRaw(200, "application/json",
                    R"({"choices":[{"message":{"content":"a"}}],"usage":null})");
  auto client = Client();
  for (int i = 0; i < 4; ++i) {
    auto response = client->Complete(Ask("q"));
    ASSERT_TRUE(response.has_value()) << i << ": " << response.error().ToString();
    EXPECT_FALSE(response->usage.has_value()) << i;
  }
}

TEST_F(OpenAiClientTest, SumsTotalTokensWhenTheProviderLeavesThemOut) {
  server_.Answer("a", ScriptedUsage{10, 5, std::nullopt});
  auto response = Client()->Complete(Ask("q"));
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  ASSERT_TRUE(response->usage.has_value());
  EXPECT_EQ(response->usage->total_tokens, 15);
}

TEST_F(OpenAiClientTest, JoinsTextPartsWhenContentIsAnArray) {
  server_.AnswerRaw(200, "application/json",
                    R"({"choices":[{"message":{"content":[{"type":"text","text":"a"},
                        {"type":"image_url","image_url":{}},{"type":"text","text":"b"}]}}]})");
  auto response = Client()->Complete(Ask("q"));
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "ab");
}

TEST_F(OpenAiClientTest, ReplacesInvalidUtf8InTheAnswer) {
  server_.AnswerRaw(200, "application/json",
                    "{\"choices\":[{\"message\":{\"content\":\"ok \xff\xfe done\"}}]}");
  auto response = Client()->Complete(Ask("q"));
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "ok \xEF\xBF\xBD\xEF\xBF\xBD done");
}

TEST_F(OpenAiClientTest, SendsTheContractRequestBodyWithTools) {
  config::ModelConfig config = ConfigFor(server_.BaseUrl());
  config.per_component[Component::kDiagnosisAgent].name = "agent-model";
  OpenAiChatModel client(config, FastOptions());
  server_.Answer("done");

  ChatRequest request = Ask("orders fail");
  request.messages.push_back(
      {Role::kAssistant, "", {{"call_1", "search_documents", R"({"query":"pool"})"}}, ""});
  request.messages.push_back({Role::kTool, R"({"evidence_status":"FOUND"})", {}, "call_1"});
  request.messages.push_back(
      {Role::kAssistant, "thinking aloud", {{"call_2", "query_logs", "{}"}}, ""});
  request.tools = MakeToolList({{"search_documents", "Search the runbooks.", kSchema}});
  ASSERT_TRUE(client.Complete(request).has_value());

  auto seen = server_.Requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].target, "/v1/chat/completions");
  EXPECT_EQ(seen[0].headers.at("content-type"), "application/json");
  auto expected = json::Parse(R"({
    "model": "agent-model",
    "messages": [
      {"role": "system", "content": "You diagnose incidents."},
      {"role": "user", "content": "orders fail"},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "search_documents", "arguments": "{\"query\":\"pool\"}"}}]},
      {"role": "tool", "content": "{\"evidence_status\":\"FOUND\"}", "tool_call_id": "call_1"},
      {"role": "assistant", "content": "thinking aloud", "tool_calls": [
        {"id": "call_2", "type": "function",
         "function": {"name": "query_logs", "arguments": "{}"}}]}
    ],
    "tools": [{"type": "function", "function": {"name": "search_documents",
      "description": "Search the runbooks.",
      "parameters": {"type":"object","properties":{"query":{"type":"string"}},
                     "required":["query"]}}}],
    "tool_choice": "auto",
    "parallel_tool_calls": false,
    "stream": false
  })");
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(json::Canonical(seen[0].json), json::Canonical(*expected));
}

TEST_F(OpenAiClientTest, OmitsToolFieldsWhenNoToolsAreOffered) {
  server_.Answer("hello");
  ASSERT_TRUE(Client()->Complete(Ask("hi", Component::kSystemChat)).has_value());
  auto seen = server_.Requests();
  ASSERT_EQ(seen.size(), 1u);
  const bj::object& body = seen[0].json.as_object();
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_FALSE(body.contains("tool_choice"));
  EXPECT_FALSE(body.contains("parallel_tool_calls"));
  EXPECT_EQ(body.at("stream"), bj::value(false));
  EXPECT_EQ(body.at("model"), bj::value("default-model"));
}

TEST_F(OpenAiClientTest, SendsAToolWithoutSchemaAsAnEmptyObjectSchema) {
  server_.Answer("ok");
  ChatRequest request = Ask("q");
  request.tools = MakeToolList({{"ping", "No arguments.", ""}});
  ASSERT_TRUE(Client()->Complete(request).has_value());
  auto seen = server_.Requests();
  ASSERT_EQ(seen.size(), 1u);
  const bj::value& parameters = seen[0].json.at("tools").at(0).at("function").at("parameters");
  EXPECT_EQ(json::Canonical(parameters), R"({"properties":{},"type":"object"})");
}

TEST_F(OpenAiClientTest, SendsEachComponentToItsOwnModelWithItsHeader) {
  config::ModelConfig config = ConfigFor(server_.BaseUrl());
  for (Component component : config::kAllModelComponents) {
    config.per_component[component].name = std::string("model-") + config::ComponentKey(component);
    server_.Answer("ok");
  }
  OpenAiChatModel client(config, FastOptions());
  for (Component component : config::kAllModelComponents) {
    ASSERT_TRUE(client.Complete(Ask("q", component)).has_value()) << ComponentName(component);
    EXPECT_EQ(client.Label(component), std::string("model-") + config::ComponentKey(component));
  }
  auto seen = server_.Requests();
  ASSERT_EQ(seen.size(), 6u);
  std::size_t i = 0;
  for (Component component : config::kAllModelComponents) {
    EXPECT_EQ(seen[i].headers.at("x-diagd-component"), ComponentName(component));
    EXPECT_EQ(seen[i].json.at("model"),
              bj::value(std::string("model-") + config::ComponentKey(component)));
    EXPECT_FALSE(seen[i].headers.contains("authorization"));
    ++i;
  }
}

TEST_F(OpenAiClientTest, SendsTheBearerKeyOnlyWhenOneIsConfigured) {
  config::ModelConfig config = ConfigFor(server_.BaseUrl());
  config.per_component[Component::kRouter].api_key = kTestKey;
  OpenAiChatModel client(config, FastOptions());
  server_.Answer("a").Answer("b");
  ASSERT_TRUE(client.Complete(Ask("q", Component::kRouter)).has_value());
  ASSERT_TRUE(client.Complete(Ask("q", Component::kSemanticGuard)).has_value());
  auto seen = server_.Requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].headers.at("authorization"), std::string("Bearer ") + kTestKey);
  EXPECT_FALSE(seen[1].headers.contains("authorization"));
}

TEST_F(OpenAiClientTest, ToleratesATrailingSlashInTheBaseUrl) {
  server_.Answer("ok");
  OpenAiChatModel client(ConfigFor(server_.BaseUrl() + "/"), FastOptions());
  ASSERT_TRUE(client.Complete(Ask("q")).has_value());
  EXPECT_EQ(server_.Requests().at(0).target, "/v1/chat/completions");
}

TEST_F(OpenAiClientTest, ServesConcurrentCallsFromOneClient) {
  constexpr int kCalls = 8;
  for (int i = 0; i < kCalls; ++i) server_.Answer("ok");
  auto client = Client();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < kCalls; ++i) {
    threads.emplace_back([&] {
      if (client->Complete(Ask("q")).has_value()) ++ok;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kCalls);
  EXPECT_EQ(server_.Requests().size(), static_cast<std::size_t>(kCalls));
}

}  // namespace
}  // namespace diagd::model
