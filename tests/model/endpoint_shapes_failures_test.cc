// Recorded shapes, failures and retries (docs/model-endpoints.md): each family's
// real refusals and broken answers end the call with the right
// FailureReason, in the provider's own words and never with the key; the
// statuses that may pass are retried with jittered backoff that honours
// Retry-After, up to model.max_attempts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/endpoint_shape_fixture.h"

namespace diagd::model::shapes {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

class FailureShapeTest : public EndpointShapeTest {
 protected:
  // The error of one call by a client holding the test key, after `body`
  // was scripted `times` times; checks that the message holds no secret.
  CallError FailWith(int status, const std::string& body, int times = 1,
                     const std::string& content_type = "application/json") {
    Repeat(status, content_type, body, times);
    auto response = Client(kTestKey)->Complete(AskWithTools());
    CallError error = FailureOf(response);
    ExpectNothingSecretIn(error);
    return error;
  }
};

// ------------------------------------------ the endpoint refuses the tools

TEST_F(FailureShapeTest, VllmWithoutAutoToolChoiceIsNoToolSupportAndNotRetried) {
  Error error = FailWith(400, kVllmAutoToolChoiceRefused, 2);
  EXPECT_EQ(ReasonOf(error), "MODEL_NO_TOOL_SUPPORT");
  EXPECT_THAT(error.message,
              HasSubstr("requires --enable-auto-tool-choice and --tool-call-parser to be set"));
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_TRUE(Sleeps().empty());
}

// A 500, but no retry can help; whether the client retries it or not, the
// reason is the same.
TEST_F(FailureShapeTest, LlamaCppToolsWithoutJinjaAs500IsNoToolSupport) {
  Error error = FailWith(500, kLlamaCppNeedsJinja500, 3);
  EXPECT_EQ(ReasonOf(error), "MODEL_NO_TOOL_SUPPORT");
  EXPECT_THAT(error.message, HasSubstr("tools param requires --jinja flag"));
}

TEST_F(FailureShapeTest, LlamaCppToolsWithoutJinjaAs400IsNoToolSupportAndNotRetried) {
  Error error = FailWith(400, kLlamaCppNeedsJinja400, 2);
  EXPECT_EQ(ReasonOf(error), "MODEL_NO_TOOL_SUPPORT");
  EXPECT_THAT(error.message, HasSubstr("tools param requires --jinja flag"));
  EXPECT_EQ(server_.Requests().size(), 1u);
}

TEST_F(FailureShapeTest, OllamaModelWithoutToolTemplateIsNoToolSupportAndNotRetried) {
  Error error = FailWith(400, kOllamaDoesNotSupportTools, 2);
  EXPECT_EQ(ReasonOf(error), "MODEL_NO_TOOL_SUPPORT");
  EXPECT_THAT(error.message, HasSubstr("gemma:2b does not support tools"));
  EXPECT_EQ(server_.Requests().size(), 1u);
}

// ------------------------------------------ the endpoint refuses the request

TEST_F(FailureShapeTest, LmStudioBareStringErrorIsHttpErrorInItsOwnWords) {
  Error error = FailWith(400, kLmStudioBareStringError, 2);
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_THAT(error.message, HasSubstr("'response_format.type' must be 'json_schema' or 'text'"));
  EXPECT_THAT(error.message, HasSubstr("400"));
  EXPECT_EQ(server_.Requests().size(), 1u);
}

TEST_F(FailureShapeTest, LlamaCppContextSizeExceededIsHttpErrorAndNotRetried) {
  Error error = FailWith(400, kLlamaCppContextExceeded, 2);
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_THAT(error.message, HasSubstr("exceeds the available context size"));
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_TRUE(Sleeps().empty());
}

TEST_F(FailureShapeTest, VllmUnknownModel404IsHttpErrorInItsOwnWords) {
  Error error = FailWith(404, kVllmModelNotFound, 2);
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_THAT(error.message, HasSubstr("The model `qwen2.5-72b-instruct` does not exist."));
  EXPECT_THAT(error.message, HasSubstr("404"));
  EXPECT_EQ(server_.Requests().size(), 1u);
}

TEST_F(FailureShapeTest, OpenAiUnknownModel404IsHttpErrorInItsOwnWords) {
  Error error = FailWith(404, kOpenAiModelNotFound, 2);
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_THAT(error.message, HasSubstr("does not exist or you do not have access to it"));
  EXPECT_EQ(server_.Requests().size(), 1u);
}

TEST_F(FailureShapeTest, OpenAiInvalidKey401IsHttpErrorNotRetriedAndWithoutTheKey) {
  Error error = FailWith(401, kOpenAiInvalidKey, 2);
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_THAT(error.message, HasSubstr("Incorrect API key provided"));
  EXPECT_THAT(error.message, HasSubstr("401"));
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_TRUE(Sleeps().empty());
}

// A gateway that echoes the whole key back: it is scrubbed all the same.
TEST_F(FailureShapeTest, InvalidKey401EchoingTheWholeKeyNeverShowsIt) {
  Error error = FailWith(401,
                         std::string(R"({"error":{"message":"Authentication Error, Invalid proxy )"
                                     R"(server token passed. Received API Key = )") +
                             kTestKey + R"(","type":"auth_error","param":"None","code":"401"}})",
                         2);
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_THAT(error.message, HasSubstr("Invalid proxy server token passed"));
}

TEST_F(FailureShapeTest, DashScopeQwen3ThinkingWithoutStreamingIsHttpErrorInItsOwnWords) {
  Error error = FailWith(400, kDashScopeThinkingNeedsStream, 2);
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_THAT(error.message,
              HasSubstr("parameter.enable_thinking must be set to false for non-streaming calls"));
  EXPECT_EQ(server_.Requests().size(), 1u);
}

TEST_F(FailureShapeTest, DeepSeekMissingReasoningContentIsHttpErrorInItsOwnWords) {
  Error error = FailWith(400, kDeepSeekMissingReasoningContent, 2);
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_THAT(error.message, HasSubstr("Missing `reasoning_content` field"));
  EXPECT_EQ(server_.Requests().size(), 1u);
}

// ------------------------------------------ a 2xx that is no completion

TEST_F(FailureShapeTest, LiteLlmErrorObjectWithStatus200IsBadResponseInItsOwnWords) {
  Error error = FailWith(200, kLiteLlmErrorWith200, 3);
  EXPECT_EQ(ReasonOf(error), "MODEL_BAD_RESPONSE");
  EXPECT_THAT(error.message, HasSubstr("Invalid model name passed in model=diagd-agent"));
}

TEST_F(FailureShapeTest, DashScopeStyleErrorObjectWithStatus200IsBadResponseInItsOwnWords) {
  Error error = FailWith(200, kDashScopeStyleErrorWith200, 3);
  EXPECT_EQ(ReasonOf(error), "MODEL_BAD_RESPONSE");
  EXPECT_THAT(error.message, HasSubstr("Input data may contain inappropriate content."));
}

TEST_F(FailureShapeTest, OllamaZeroValueCompletionIsBadResponse) {
  Error error = FailWith(200, kOllamaZeroValue, 3);
  EXPECT_EQ(ReasonOf(error), "MODEL_BAD_RESPONSE");
}

TEST_F(FailureShapeTest, EventStreamAnswerToANonStreamingRequestIsBadResponse) {
  Error error = FailWith(200, kEventStreamInsteadOfJson, 3, "text/event-stream");
  EXPECT_EQ(ReasonOf(error), "MODEL_BAD_RESPONSE");
}

TEST_F(FailureShapeTest, EventStreamLabelledAsJsonIsBadResponse) {
  Error error = FailWith(200, kEventStreamInsteadOfJson, 3, "application/json");
  EXPECT_EQ(ReasonOf(error), "MODEL_BAD_RESPONSE");
}

TEST_F(FailureShapeTest, CutOffJsonBodyIsBadResponse) {
  const std::string body(kOpenAiToolCall);
  Error error = FailWith(200, body.substr(0, body.size() / 2), 3);
  EXPECT_EQ(ReasonOf(error), "MODEL_BAD_RESPONSE");
}

// A proxy's own text where the model's JSON should be.
TEST_F(FailureShapeTest, ProxyTextInsteadOfJsonIsBadResponse) {
  Error error = FailWith(
      200, "upstream connect error or disconnect/reset before headers. reset reason: overflow", 3,
      "text/plain");
  EXPECT_EQ(ReasonOf(error), "MODEL_BAD_RESPONSE");
}

// ------------------------------------------ out of tokens

// The endpoint billed the tokens it spent on reasoning: the failed call
// was made, and carries its usage to be accounted.
TEST_F(FailureShapeTest, DeepSeekTokensSpentOnReasoningIsOutputTruncatedWithItsUsage) {
  CallError error = FailWith(200, kDeepSeekReasoningOnlyLength, 3);
  EXPECT_EQ(ReasonOf(error), "MODEL_OUTPUT_TRUNCATED");
  EXPECT_THAT(error.message, ::testing::Not(HasSubstr("First, the timeline")));
  EXPECT_TRUE(error.completed);
  ASSERT_TRUE(error.usage.has_value());
  EXPECT_EQ(error.usage->input_tokens, 3000);
  EXPECT_EQ(error.usage->output_tokens, 1024);
  EXPECT_EQ(error.usage->total_tokens, 4024);
  EXPECT_EQ(server_.Requests().size(), 1u);
}

TEST_F(FailureShapeTest, OllamaTokensSpentOnReasoningFieldIsOutputTruncatedWithItsUsage) {
  CallError error = FailWith(200, kOllamaReasoningOnlyLength, 3);
  EXPECT_EQ(ReasonOf(error), "MODEL_OUTPUT_TRUNCATED");
  EXPECT_TRUE(error.completed);
  ASSERT_TRUE(error.usage.has_value());
  EXPECT_EQ(error.usage->total_tokens, 1820);
}

// Which failed answers were made calls: a completion of no use, with or
// without usage, and any final answer that reports usage; not an attempt
// that is retried, nor Go's zero value (nothing was generated).
TEST_F(FailureShapeTest, AFailedCallIsCompletedOnlyWhenTheEndpointAnsweredACompletion) {
  const std::string usage = R"("usage":{"prompt_tokens":40,"completion_tokens":9,"total_tokens":49})";
  const std::string bad_call = R"({"choices":[{"message":{"role":"assistant","content":null,)"
                               R"("tool_calls":[{"id":"c","function":{"name":""}}]},)"
                               R"("finish_reason":"tool_calls"}])";
  struct Case {
    std::string body;
    bool completed;
    std::optional<std::int64_t> total_tokens;
  };
  const std::vector<Case> cases = {
      {bad_call + "," + usage + "}", true, 49},
      {bad_call + "}", true, std::nullopt},
      {R"({"choices":[{"message":{"content":42},"finish_reason":"stop"}],)" + usage + "}", true, 49},
      {R"({"choices":[],)" + usage + "}", true, 49},
      {R"({"choices":[]})", false, std::nullopt},
      {R"({"error":{"message":"upstream failed"},)" + usage + "}", false, std::nullopt},
      {kOllamaZeroValue, false, std::nullopt},
      {R"({"choices":[{"message":{"cont)", false, std::nullopt},
  };
  for (const Case& c : cases) {
    server_.AnswerRaw(200, "application/json", c.body);
    OpenAiClientOptions options = FastOptions();
    options.max_attempts = 1;
    OpenAiChatModel client(ConfigFor(server_.BaseUrl()), options);
    CallError error = FailureOf(client.Complete(AskWithTools()));
    EXPECT_EQ(error.completed, c.completed) << c.body;
    EXPECT_EQ(error.usage.has_value(), c.total_tokens.has_value()) << c.body;
    if (error.usage && c.total_tokens) {
      EXPECT_EQ(error.usage->total_tokens, *c.total_tokens) << c.body;
    }
  }
}

// DeepSeek-R1 without a reasoning parser, cut off inside its think block:
// the content is all reasoning, nothing usable (an interpretation of
// docs/model-endpoints.md: an unclosed block at the start is reasoning when
// the answer stopped for length).
TEST_F(FailureShapeTest, R1CutOffInsideAnUnclosedThinkBlockIsOutputTruncated) {
  const std::string body = R"json({"id":"chatcmpl-9a8b7c6d5e4f4a3b2c1d0e9f8a7b6c5d",
    "object":"chat.completion","created":1746000500,
    "model":"deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
    "choices":[{"index":0,"message":{"role":"assistant",
      "content":"<think>\nFirst the timeline: errors start at 09:58, before the deploy at",
      "tool_calls":[]},
      "logprobs":null,"finish_reason":"length","stop_reason":null}],
    "usage":{"prompt_tokens":3000,"total_tokens":4024,"completion_tokens":1024}})json";
  Error error = FailWith(200, body, 3);
  EXPECT_EQ(ReasonOf(error), "MODEL_OUTPUT_TRUNCATED");
}

// "length" with an answer left is an answer: the caller sees the finish
// reason and judges it (the strict draft parse stays strict).
TEST_F(FailureShapeTest, LengthWithContentLeftIsReturnedWithItsFinishReason) {
  server_.AnswerRaw(200, "application/json",
                    R"json({"id":"chatcmpl-1","object":"chat.completion","created":1746000600,
      "model":"qwen2.5:14b","choices":[{"index":0,"message":{"role":"assistant",
      "content":"{\"status\":\"DIAGNOSED\",\"cause\":\"pool"},"finish_reason":"length"}],
      "usage":{"prompt_tokens":900,"completion_tokens":512,"total_tokens":1412}})json");
  auto response = Client()->Complete(AskWithTools());
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->finish_reason, "length");
  EXPECT_EQ(response->message.content, R"({"status":"DIAGNOSED","cause":"pool)");
}

// ------------------------------------------ the endpoint is not there

TEST_F(FailureShapeTest, ConnectionRefusedIsUnreachableAfterTheRetries) {
  std::string closed_url;
  {
    diagd::testing::ScriptedModelServer gone;
    closed_url = gone.BaseUrl();
  }
  OpenAiChatModel client(ConfigFor(closed_url, kTestKey), FastOptions());
  Error error = FailureOf(client.Complete(AskWithTools()));
  EXPECT_EQ(ReasonOf(error), "MODEL_UNREACHABLE");
  EXPECT_EQ(Sleeps().size(), 2u);  // max_attempts 3: two waits
  ExpectNothingSecretIn(error);
}

TEST_F(FailureShapeTest, AnswerSlowerThanTheTimeoutIsUnreachable) {
  for (int i = 0; i < 3; ++i) server_.AnswerAfter(milliseconds(5000), "too late");
  Error error = FailureOf(Client(kTestKey)->Complete(AskWithTools()));
  EXPECT_EQ(ReasonOf(error), "MODEL_UNREACHABLE");
  ExpectNothingSecretIn(error);
}

// ------------------------------------------ retries

std::string StatusName(const ::testing::TestParamInfo<int>& info) {
  return "Http" + std::to_string(info.param);
}

class RetriedStatusTest : public EndpointShapeTest, public ::testing::WithParamInterface<int> {};

TEST_P(RetriedStatusTest, GivesUpAfterMaxAttemptsWithHttpError) {
  const int status = GetParam();
  for (int i = 0; i < 3; ++i) server_.FailWithStatus(status, "busy, try later");
  server_.Answer("never reached");
  Error error = FailureOf(Client()->Complete(AskWithTools()));
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_THAT(error.message, HasSubstr(std::to_string(status)));
  EXPECT_THAT(error.message, HasSubstr("busy, try later"));
  EXPECT_EQ(server_.Requests().size(), 3u);
  EXPECT_EQ(server_.Remaining(), 1u);
  // Two waits, the second after a doubled step, each jittered within
  // [step/2, step] of initial_backoff 250 ms.
  auto sleeps = Sleeps();
  ASSERT_EQ(sleeps.size(), 2u);
  EXPECT_GE(sleeps[0], milliseconds(125));
  EXPECT_LE(sleeps[0], milliseconds(250));
  EXPECT_GE(sleeps[1], milliseconds(250));
  EXPECT_LE(sleeps[1], milliseconds(500));
}

TEST_P(RetriedStatusTest, SucceedsOnTheLastAttemptModelMaxAttemptsAllows) {
  const int status = GetParam();
  config::ModelConfig config = ConfigFor(server_.BaseUrl());
  config.per_component[Component::kDiagnosisAgent].max_attempts = 4;
  for (int i = 0; i < 3; ++i) server_.FailWithStatus(status, "busy, try later");
  server_.Answer("fourth time");
  OpenAiChatModel client(config, FastOptions());
  auto response = client.Complete(AskWithTools());
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "fourth time");
  EXPECT_EQ(server_.Requests().size(), 4u);
  EXPECT_EQ(Sleeps().size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Contract, RetriedStatusTest,
                         ::testing::Values(408, 409, 429, 500, 502, 503, 504), StatusName);

class NotRetriedStatusTest : public EndpointShapeTest, public ::testing::WithParamInterface<int> {};

TEST_P(NotRetriedStatusTest, FailsAtOnceWithHttpError) {
  const int status = GetParam();
  server_.FailWithStatus(status, "refused as sent");
  server_.Answer("never reached");
  Error error = FailureOf(Client()->Complete(AskWithTools()));
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_THAT(error.message, HasSubstr(std::to_string(status)));
  EXPECT_THAT(error.message, HasSubstr("refused as sent"));
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_TRUE(Sleeps().empty());
}

INSTANTIATE_TEST_SUITE_P(Contract, NotRetriedStatusTest,
                         ::testing::Values(400, 401, 403, 404, 422, 501), StatusName);

TEST_F(EndpointShapeTest, MaxAttemptsOneMeansASingleExchange) {
  config::ModelConfig config = ConfigFor(server_.BaseUrl());
  config.per_component[Component::kDiagnosisAgent].max_attempts = 1;
  server_.FailWithStatus(503, "overloaded").Answer("never reached");
  OpenAiChatModel client(config, FastOptions());
  Error error = FailureOf(client.Complete(AskWithTools()));
  EXPECT_EQ(ReasonOf(error), "MODEL_HTTP_ERROR");
  EXPECT_EQ(server_.Requests().size(), 1u);
  EXPECT_TRUE(Sleeps().empty());
}

// OpenAI's rate limit answer with `Retry-After: 2`: the wait is at least
// two seconds (recorded, not slept).
TEST_F(EndpointShapeTest, OpenAiRateLimitRetryAfterTwoSecondsIsHonoured) {
  server_.AnswerRaw(429, "application/json",
                    kOpenAiRateLimited, {{"Retry-After", "2"}});
  server_.Answer("after the wait");
  auto response = Client()->Complete(AskWithTools());
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "after the wait");
  auto sleeps = Sleeps();
  ASSERT_EQ(sleeps.size(), 1u);
  EXPECT_GE(sleeps[0], milliseconds(2000));
}

// A gateway's 503 with Retry-After.
TEST_F(EndpointShapeTest, GatewayUnavailableRetryAfterIsHonoured) {
  server_.AnswerRaw(503, "application/json",
                    kGatewayNoDeployments, {{"Retry-After", "3"}});
  server_.Answer("ok");
  auto response = Client()->Complete(AskWithTools());
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  auto sleeps = Sleeps();
  ASSERT_EQ(sleeps.size(), 1u);
  EXPECT_GE(sleeps[0], milliseconds(3000));
}

// A wait that would outlast the run's time budget is not waited: the call
// ends with RUN_TIMEOUT.
TEST_F(EndpointShapeTest, RetryAfterBeyondTheRunDeadlineEndsTheCallWithRunTimeout) {
  server_.AnswerRaw(429, "application/json", R"json({"error":{"message":"slow down"}})json",
                    {{"Retry-After", "30"}});
  server_.Answer("never reached");
  ChatRequest request = AskWithTools();
  request.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  Error error = FailureOf(Client()->Complete(request));
  EXPECT_EQ(ReasonOf(error), "RUN_TIMEOUT");
  EXPECT_EQ(server_.Requests().size(), 1u);
  for (milliseconds sleep : Sleeps()) EXPECT_LT(sleep, milliseconds(1000));
}

TEST_F(EndpointShapeTest, LiteLlmErrorObjectWithStatus200IsRetriedThenSucceeds) {
  server_.AnswerRaw(200, "application/json", kLiteLlmErrorWith200);
  server_.Answer("second time");
  auto response = Client()->Complete(AskWithTools());
  ASSERT_TRUE(response.has_value()) << response.error().ToString();
  EXPECT_EQ(response->message.content, "second time");
  EXPECT_EQ(server_.Requests().size(), 2u);
  EXPECT_EQ(Sleeps().size(), 1u);
}

// Without a pinned jitter (the default is random), each wait lies within
// [step/2, step], and clients do not all wait the same: several clients
// retrying at once do not come back in step.
TEST_F(EndpointShapeTest, DefaultBackoffIsJitteredWithinHalfToAllOfTheStep) {
  constexpr int kClients = 8;
  auto sleeps = std::make_shared<std::vector<milliseconds>>();
  OpenAiClientOptions options;
  options.timeout = milliseconds(300);
  options.sleep = [sleeps](milliseconds delay) { sleeps->push_back(delay); };
  for (int i = 0; i < kClients * 3; ++i) server_.FailWithStatus(429, "slow down");
  for (int i = 0; i < kClients; ++i) {
    OpenAiChatModel client(ConfigFor(server_.BaseUrl()), options);
    EXPECT_FALSE(client.Complete(AskWithTools()).has_value());
  }
  ASSERT_EQ(sleeps->size(), static_cast<std::size_t>(2 * kClients));
  std::vector<milliseconds> first_waits;
  for (int i = 0; i < kClients; ++i) {
    const milliseconds first = (*sleeps)[2 * i];
    const milliseconds second = (*sleeps)[2 * i + 1];
    EXPECT_GE(first, milliseconds(125)) << "client " << i;
    EXPECT_LE(first, milliseconds(250)) << "client " << i;
    EXPECT_GE(second, milliseconds(250)) << "client " << i;
    EXPECT_LE(second, milliseconds(500)) << "client " << i;
    first_waits.push_back(first);
  }
  EXPECT_NE(std::count(first_waits.begin(), first_waits.end(), first_waits[0]), kClients)
      << "every client waited exactly " << first_waits[0].count() << " ms";
}

}  // namespace
}  // namespace diagd::model::shapes
