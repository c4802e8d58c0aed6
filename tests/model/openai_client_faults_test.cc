// The OpenAI-compatible client when the endpoint misbehaves, over real HTTP:
// bounded retries, error codes, and messages that never leak the key, the
// prompt or the body.
#include <gtest/gtest.h>

#include <functional>

#include "model/openai_client.h"
#include "model/openai_client_fixture.h"

namespace diagd::model {
namespace {

using std::chrono::milliseconds;
using Ms = std::vector<milliseconds>;

constexpr char kPrompt[] = "PROMPT-MARKER orders fail since 10:00";

TEST_F(OpenAiClientTest, RetriesAServerErrorThenSucceeds) {
  server_.FailWithStatus(500, "overloaded").Answer("recovered");
  auto response = Client()->Complete(Ask(kPrompt));
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "recovered");
  EXPECT_EQ(server_.Requests().size(), 2u);
  EXPECT_EQ(Sleeps(), Ms{milliseconds(250)});
}

TEST_F(OpenAiClientTest, GivesUpOnRateLimitAfterBoundedAttemptsWithExponentialBackoff) {
  server_.FailWithStatus(429, "slow down").FailWithStatus(429, "slow down");
  server_.FailWithStatus(429, "slow down").Answer("never reached");
  auto response = Client()->Complete(Ask(kPrompt));
  ASSERT_FALSE(response.has_value());
  EXPECT_EQ(response.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(response.error().message.find("HTTP 429"), std::string::npos);
  EXPECT_NE(response.error().message.find("slow down"), std::string::npos);
  EXPECT_NE(response.error().message.find("3 attempts"), std::string::npos);
  EXPECT_EQ(server_.Requests().size(), 3u);
  EXPECT_EQ(server_.Remaining(), 1u);
  EXPECT_EQ(Sleeps(), (Ms{milliseconds(250), milliseconds(500)}));
}

TEST_F(OpenAiClientTest, RetriesAHangUp) {
  server_.HangUp().Answer("second time lucky");
  auto response = Client()->Complete(Ask(kPrompt));
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(server_.Requests().size(), 2u);
}

TEST_F(OpenAiClientTest, ReportsARefusedConnectionAsUnavailable) {
  std::string closed_url;
  {
    diagd::testing::ScriptedModelServer gone;
    closed_url = gone.BaseUrl();
  }
  OpenAiChatModel client(ConfigFor(closed_url), FastOptions());
  auto response = client.Complete(Ask(kPrompt));
  ASSERT_FALSE(response.has_value());
  EXPECT_EQ(response.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(Sleeps().size(), 2u);  // connection failures are retried
  EXPECT_EQ(response.error().message.find("127.0.0.1"), std::string::npos);
}

TEST_F(OpenAiClientTest, ReportsASlowAnswerAsDeadlineExceededWithoutRetry) {
  server_.AnswerAfter(milliseconds(5000), "too late").Answer("not asked");
  auto response = Client()->Complete(Ask(kPrompt));
  ASSERT_FALSE(response.has_value());
  EXPECT_EQ(response.error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_TRUE(Sleeps().empty());
}

TEST_F(OpenAiClientTest, ReportsARefusedRequestAsInvalidArgumentWithABoundedMessage) {
  server_.FailWithStatus(400, "context length exceeded: " + std::string(1000, 'x'));
  auto response = Client()->Complete(Ask(kPrompt));
  ASSERT_FALSE(response.has_value());
  EXPECT_EQ(response.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(response.error().message.find("HTTP 400: context length exceeded"), std::string::npos);
  EXPECT_LT(response.error().message.size(), 300u);
  EXPECT_EQ(server_.Requests().size(), 1u);  // a 4xx is not retried
}

// Each body is answered with 200 and is not a usable chat completion: a
// MODEL_BAD_RESPONSE, retryable (UNAVAILABLE) where a cut-off or passing
// fault may explain it, final (INTERNAL) where the shape is simply wrong.
TEST_F(OpenAiClientTest, ReportsAnswersThatAreNotChatCompletionsAsBadResponses) {
  struct Case {
    std::string body;
    ErrorCode code;
  };
  const std::vector<Case> cases = {
      {"", ErrorCode::kUnavailable},
      {"not json at all", ErrorCode::kUnavailable},
      {R"({"choices":[{"message":{"content":"a"}}]} trailing)", ErrorCode::kUnavailable},
      {"<html><body>Bad gateway</body></html>", ErrorCode::kUnavailable},
      {R"({"id":"x","object":"chat.completion"})", ErrorCode::kInternal},
      {R"({"choices":[]})", ErrorCode::kInternal},
      {R"({"choices":{"message":{}}})", ErrorCode::kInternal},
      {R"({"choices":[null]})", ErrorCode::kInternal},
      {R"({"choices":[{"message":null}]})", ErrorCode::kInternal},
      {R"({"choices":[{"message":"text"}]})", ErrorCode::kInternal},
      {R"({"choices":[{"message":{"content":42}}]})", ErrorCode::kInternal},
      {R"([1,2,3])", ErrorCode::kInternal},
  };
  for (const Case& c : cases) server_.AnswerRaw(200, "application/json", c.body);
  OpenAiClientOptions options = FastOptions();
  options.max_attempts = 1;
  OpenAiChatModel client(ConfigFor(server_.BaseUrl()), options);
  for (const Case& c : cases) {
    auto response = client.Complete(Ask(kPrompt));
    ASSERT_FALSE(response.has_value()) << c.body;
    EXPECT_EQ(response.error().code, c.code) << c.body << ": " << response.error().message;
    EXPECT_EQ(response.error().reason, FailureReason::kModelBadResponse) << c.body;
  }
  EXPECT_EQ(server_.Requests().size(), cases.size());
}

// A cut-off body is worth another attempt; a wrong shape is not.
TEST_F(OpenAiClientTest, RetriesABodyCutOffButNotAWrongShape) {
  server_.AnswerRaw(200, "application/json", R"({"choices":[{"message":{"cont)");
  server_.Answer("recovered");
  server_.AnswerRaw(200, "application/json", R"({"choices":[]})");
  auto client = Client();
  auto recovered = client->Complete(Ask(kPrompt));
  ASSERT_TRUE(recovered.has_value()) << recovered.error().message;
  EXPECT_EQ(recovered->message.content, "recovered");
  auto wrong = client->Complete(Ask(kPrompt));
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(server_.Requests().size(), 3u);
}

// Decided: a tool call of the wrong shape fails the answer (INTERNAL) rather
// than being skipped, which would turn an intended action into a final answer.
TEST_F(OpenAiClientTest, ReportsMalformedToolCallsAsInternal) {
  const std::vector<std::string> tool_calls = {
      R"("call")",
      R"({"id":"c"})",
      R"([null])",
      R"([{"id":"c","function":"search_documents"}])",
      R"([{"id":"c","function":{"arguments":"{}"}}])",
      R"([{"id":"c","function":{"name":"","arguments":"{}"}}])",
      R"([{"id":"c","function":{"name":7,"arguments":"{}"}}])",
      R"([{"id":"c","function":{"name":"a","arguments":[1]}}])",
      R"([{"id":"c","function":{"name":"a","arguments":12}}])",
      R"([{"id":5,"function":{"name":"a","arguments":"{}"}}])",
  };
  for (const std::string& calls : tool_calls) {
    server_.AnswerRaw(200, "application/json",
                      R"({"choices":[{"message":{"content":null,"tool_calls":)" + calls + "}}]}");
  }
  auto client = Client();
  for (const std::string& calls : tool_calls) {
    auto response = client->Complete(Ask(kPrompt));
    ASSERT_FALSE(response.has_value()) << calls;
    EXPECT_EQ(response.error().code, ErrorCode::kInternal) << calls;
    EXPECT_NE(response.error().message.find("tool_calls"), std::string::npos) << calls;
  }
}

TEST_F(OpenAiClientTest, RefusesAnOversizedAnswer) {
  server_.Answer(std::string(64 * 1024, 'a'));
  OpenAiClientOptions options = FastOptions();
  options.max_response_bytes = 16 * 1024;
  OpenAiChatModel client(ConfigFor(server_.BaseUrl()), options);
  auto response = client.Complete(Ask(kPrompt));
  ASSERT_FALSE(response.has_value());
  EXPECT_EQ(response.error().code, ErrorCode::kInternal);
  EXPECT_EQ(server_.Requests().size(), 1u);
}

// libcurl's own words for a header line over its limit are "Out of
// memory", which sends an operator hunting in the wrong place.
TEST_F(OpenAiClientTest, SaysAnAnswerWithHugeHeadersIsRefusedForItsHeaders) {
  server_.AnswerRaw(200, "application/json", R"({"choices":[]})",
                    {{"X-Padding", std::string(1 << 20, 'h')}});
  server_.Answer("not asked");
  auto response = Client()->Complete(Ask(kPrompt));
  ASSERT_FALSE(response.has_value());
  EXPECT_EQ(response.error().code, ErrorCode::kInternal);
  EXPECT_EQ(response.error().reason, FailureReason::kModelBadResponse);
  EXPECT_EQ(response.error().message,
            "DIAGNOSIS_AGENT model call: the endpoint sent response headers over 64 KiB");
  EXPECT_EQ(server_.Requests().size(), 1u);  // the same endpoint would send them again
}

TEST_F(OpenAiClientTest, RefusesAToolSchemaThatIsNotAnObjectWithoutCallingTheModel) {
  ChatRequest request = Ask(kPrompt);
  request.tools = MakeToolList({{"search_documents", "d", "[not json"}});
  auto response = Client()->Complete(request);
  ASSERT_FALSE(response.has_value());
  EXPECT_EQ(response.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(response.error().message.find("search_documents"), std::string::npos);
  EXPECT_TRUE(server_.Requests().empty());
}

TEST_F(OpenAiClientTest, RefusesAComponentConfiguredOffline) {
  config::ModelConfig config = ConfigFor(server_.BaseUrl());
  config.per_component[Component::kRouter].provider = config::ModelProvider::kOffline;
  OpenAiChatModel client(config, FastOptions());
  auto response = client.Complete(Ask(kPrompt, Component::kRouter));
  ASSERT_FALSE(response.has_value());
  EXPECT_EQ(response.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_TRUE(server_.Requests().empty());
}

// Every fault, with a configured key that the provider even echoes back: no
// message holds the key, the prompt or the URL.
TEST_F(OpenAiClientTest, NeverPutsTheKeyThePromptOrTheUrlInAnError) {
  const std::string echo = std::string("Incorrect API key provided: ") + kTestKey;
  server_.FailWithStatus(401, echo);
  server_.FailWithStatus(400, std::string(190, 'x') + kTestKey);  // cut inside the key
  server_.FailWithStatus(503, echo).FailWithStatus(503, echo).FailWithStatus(503, echo);
  // A 200 error object is retried: three times.
  for (int i = 0; i < 3; ++i) {
    server_.AnswerRaw(200, "application/json", R"({"error":{"message":")" + echo + "\"}}");
  }
  server_.AnswerHtml().AnswerHtml().AnswerHtml();  // not JSON: retried too
  server_.AnswerRaw(200, "application/json", std::string("{\"choices\":[]}"));
  server_.AnswerAfter(milliseconds(5000), "late");
  auto client = Client(kTestKey);
  std::vector<Error> errors;
  for (int i = 0; i < 7; ++i) {
    auto response = client->Complete(Ask(kPrompt));
    ASSERT_FALSE(response.has_value()) << i;
    errors.push_back(response.error());
  }
  std::string closed_url;
  {
    diagd::testing::ScriptedModelServer gone;
    closed_url = gone.BaseUrl();
  }
  auto refused =
      OpenAiChatModel(ConfigFor(closed_url, kTestKey), FastOptions()).Complete(Ask(kPrompt));
  ASSERT_FALSE(refused.has_value());
  errors.push_back(refused.error());

  EXPECT_EQ(errors[0].code, ErrorCode::kInvalidArgument);
  EXPECT_NE(errors[0].message.find("Incorrect API key provided: ***"), std::string::npos);
  EXPECT_EQ(errors[2].code, ErrorCode::kUnavailable);
  EXPECT_EQ(errors[6].code, ErrorCode::kDeadlineExceeded);
  const std::string key_prefix = std::string(kTestKey).substr(0, 8);
  for (const Error& error : errors) {
    EXPECT_EQ(error.message.find(key_prefix), std::string::npos) << error.message;
    EXPECT_EQ(error.message.find("PROMPT-MARKER"), std::string::npos) << error.message;
    EXPECT_EQ(error.message.find("127.0.0.1"), std::string::npos) << error.message;
    EXPECT_EQ(error.message.find("<html"), std::string::npos) << error.message;
    EXPECT_EQ(error.message.rfind("DIAGNOSIS_AGENT model call: ", 0), 0u) << error.message;
  }
}

}  // namespace
}  // namespace diagd::model
