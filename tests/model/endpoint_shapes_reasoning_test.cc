// Recorded shapes, reasoning (docs/model-endpoints.md): how each family sends a
// reasoning model's thoughts, that the client always splits them off the
// answer (message.reasoning and reasoning_source, never content), and what
// it sends back within the diagnosis tool loop (model.replay_reasoning).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/json.h"
#include "model/endpoint_shape_fixture.h"

namespace diagd::model::shapes {
namespace {

namespace bj = boost::json;
using ::testing::HasSubstr;
using ::testing::Not;

// A chat completion of the shape vLLM (or llama-server) sends when no
// reasoning parser runs: the model's whole output in `content`, and the
// given tool calls (JSON array text) if any.
std::string CompletionWithContent(const std::string& content,
                                  const std::string& tool_calls = "",
                                  const std::string& finish_reason = "stop") {
  bj::object message{{"role", "assistant"}, {"content", content}};
  if (!tool_calls.empty()) message["tool_calls"] = json::Parse(tool_calls).value();
  bj::object choice{{"index", 0}, {"message", std::move(message)}, {"logprobs", nullptr},
                    {"finish_reason", finish_reason}};
  bj::object body{{"id", "chatcmpl-3e4f5a6b7c8d49e0a1b2c3d4e5f6a7b8"},
                  {"object", "chat.completion"},
                  {"created", 1746000000},
                  {"model", "Qwen/Qwen3-32B"},
                  {"choices", bj::array{std::move(choice)}},
                  {"usage", bj::object{{"prompt_tokens", 900},
                                       {"completion_tokens", 150},
                                       {"total_tokens", 1050}}}};
  return json::Serialize(body);
}

constexpr char kAnswer[] = R"({"status":"DIAGNOSED","cause":"pool size"})";
constexpr char kOneLogsCall[] =
    R"([{"id":"chatcmpl-tool-1f2e3d4c5b6a4978","type":"function",
         "function":{"name":"query_logs","arguments":"{\"topic\":\"orders\"}"}}])";

class ReasoningShapeTest : public EndpointShapeTest {
 protected:
  // The body's answer; fails the test when the call failed.
  ChatResponse Read(const std::string& body) {
    auto response = PlayOnce(body);
    EXPECT_TRUE(response.has_value()) << response.error().ToString();
    return response.has_value() ? *response : ChatResponse{};
  }
};

// ------------------------------------------ reasoning in a field of its own

TEST_F(ReasoningShapeTest, DeepSeekReasonerReasoningContentBesideTheAnswer) {
  ChatResponse response = Read(kDeepSeekReasonerAnswer);
  EXPECT_EQ(response.message.content, R"({"status":"DIAGNOSED","cause":"expired certificate"})");
  EXPECT_EQ(response.message.reasoning,
            "The TLS errors begin at midnight; the certificate expired then.");
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kReasoningContent);
}

TEST_F(ReasoningShapeTest, DeepSeekThinkingModeReasoningContentBesideToolCalls) {
  ChatResponse response = Read(kDeepSeekThinkingToolCall);
  EXPECT_EQ(response.message.content, "");
  ASSERT_EQ(response.message.tool_calls.size(), 1u);
  EXPECT_EQ(response.message.tool_calls[0].id, "call_00_Xo3kF8sQ2mB7vL1nP9dR4tYw");
  EXPECT_EQ(response.message.reasoning, "I need the gateway logs around 10:00 before deciding.");
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kReasoningContent);
}

TEST_F(ReasoningShapeTest, VllmReasoningParserSendsReasoningContent) {
  ChatResponse response = Read(kVllmReasoningContent);
  EXPECT_EQ(response.message.content, R"({"status":"DIAGNOSED","cause":"pool size"})");
  EXPECT_EQ(response.message.reasoning, "The pool errors start at 10:02, right after the deploy.");
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kReasoningContent);
}

TEST_F(ReasoningShapeTest, NewerVllmReasoningParserSendsTheReasoningField) {
  ChatResponse response = Read(kVllmReasoningField);
  EXPECT_EQ(response.message.content, R"({"status":"DIAGNOSED","cause":"one pod"})");
  EXPECT_EQ(response.message.reasoning,
            "Errors cluster on one pod; the pool there is at its limit.");
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kReasoning);
}

// Both names with one text: the reasoning once, not twice. Which source it
// counts as is the client's choice; it is one of the two fields.
TEST_F(ReasoningShapeTest, VllmSendingBothReasoningFieldsKeepsTheReasoningOnce) {
  ChatResponse response = Read(kVllmBothReasoningFields);
  EXPECT_EQ(response.message.reasoning, "Check the logs of the order service first.");
  EXPECT_THAT(response.message.reasoning_source,
              ::testing::AnyOf(ReasoningSource::kReasoningContent, ReasoningSource::kReasoning));
  ASSERT_EQ(response.message.tool_calls.size(), 1u);
  EXPECT_EQ(response.message.content, "");
}

TEST_F(ReasoningShapeTest, SglangReasoningParserReasoningContentBesideToolCall) {
  ChatResponse response = Read(kSglangReasoningBesideToolCall);
  EXPECT_EQ(response.message.content, "");
  ASSERT_EQ(response.message.tool_calls.size(), 1u);
  EXPECT_EQ(response.message.tool_calls[0].name, "query_mysql");
  EXPECT_EQ(response.message.reasoning,
            "The database is the likely cause; look at its slow queries.");
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kReasoningContent);
}

TEST_F(ReasoningShapeTest, LlamaCppReasoningContentBesideAToolCallWithoutId) {
  ChatResponse response = Read(kLlamaCppToolCallWithoutId);
  EXPECT_EQ(response.message.reasoning, "I should search the runbooks for this error first.");
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kReasoningContent);
  ASSERT_EQ(response.message.tool_calls.size(), 1u);
}

TEST_F(ReasoningShapeTest, OllamaThinkingModelSendsTheReasoningField) {
  ChatResponse response = Read(kOllamaReasoningField);
  EXPECT_EQ(response.message.content, R"({"status":"DIAGNOSED"})");
  EXPECT_EQ(response.message.reasoning,
            "The error rate rose with the new config; the pool is too small.");
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kReasoning);
}

// ------------------------------------------ reasoning inside the content

// Qwen3 served by vLLM or llama-server without a reasoning parser (vLLM
// docs features/reasoning_outputs: without `--reasoning-parser` the tags
// stay in the text; ggml-org/llama.cpp#14894: `--reasoning-format none`).
TEST_F(ReasoningShapeTest, Qwen3WithoutReasoningParserThinkBlockIsSplitOffTheAnswer) {
  ChatResponse response = Read(CompletionWithContent(
      std::string("<think>\nThe pool is exhausted after the deploy.\n</think>\n\n") + kAnswer));
  EXPECT_EQ(response.message.content, kAnswer);
  EXPECT_THAT(response.message.reasoning, HasSubstr("The pool is exhausted after the deploy."));
  EXPECT_THAT(response.message.reasoning, Not(HasSubstr("think>")));
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kThinkBlock);
}

// Templates that end the prompt with a newline make some models start with
// white space before the tag (seen with R1 distills on llama-server and
// Ollama; unsure which templates exactly).
TEST_F(ReasoningShapeTest, ThinkBlockAfterLeadingNewlinesIsSplitOffTheAnswer) {
  ChatResponse response = Read(CompletionWithContent(
      std::string("\n\n  <think>\nLook at the gateway first.\n</think>\n") + kAnswer));
  EXPECT_EQ(response.message.content, kAnswer);
  EXPECT_THAT(response.message.reasoning, HasSubstr("Look at the gateway first."));
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kThinkBlock);
}

// DeepSeek-R1's template sends the opening `<think>` itself, so the output
// starts inside the block and only the closing tag shows (SGLang docs
// separate_reasoning: "DeepSeek-R1: No <think> start tag, jumps directly to
// thinking content").
TEST_F(ReasoningShapeTest, DeepSeekR1WithPrefilledThinkOnlyTheClosingTagIsSplitOff) {
  ChatResponse response = Read(CompletionWithContent(
      std::string("The 502s come from one upstream; its certificate expired.\n</think>\n\n") +
      kAnswer));
  EXPECT_EQ(response.message.content, kAnswer);
  EXPECT_THAT(response.message.reasoning, HasSubstr("its certificate expired."));
  EXPECT_THAT(response.message.reasoning, Not(HasSubstr("think>")));
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kThinkBlock);
}

// Qwen3 with thinking switched off still writes an empty block (Qwen3 model
// card, "Switching Between Thinking and Non-Thinking Modes": the block's
// content "may be empty if thinking is disabled").
TEST_F(ReasoningShapeTest, Qwen3EmptyThinkBlockOfNonThinkingModeIsSplitOff) {
  ChatResponse response =
      Read(CompletionWithContent(std::string("<think>\n\n</think>\n\n") + kAnswer));
  EXPECT_EQ(response.message.content, kAnswer);
  EXPECT_THAT(response.message.reasoning, Not(HasSubstr("think>")));
}

// Only a block at the start is reasoning: a tag later on is the answer's.
TEST_F(ReasoningShapeTest, ThinkTagInTheMiddleOfContentIsNotStripped) {
  const std::string content =
      R"({"status":"DIAGNOSED","note":"the model wrote <think>x</think> in a log line"})";
  ChatResponse response = Read(CompletionWithContent(content));
  EXPECT_EQ(response.message.content, content);
  EXPECT_EQ(response.message.reasoning, "");
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kNone);
}

TEST_F(ReasoningShapeTest, TextBeforeAThinkBlockKeepsTheBlockInTheAnswer) {
  const std::string content = "Answer first. <think>afterthought</think> " + std::string(kAnswer);
  ChatResponse response = Read(CompletionWithContent(content));
  EXPECT_EQ(response.message.content, content);
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kNone);
}

// Qwen3 on llama-server with `--reasoning-format none` and tools: the block
// beside a tool call leaves no content.
TEST_F(ReasoningShapeTest, Qwen3ThinkBlockBesideToolCallsLeavesEmptyContent) {
  ChatResponse response = Read(CompletionWithContent(
      "<think>\nI need the order logs.\n</think>\n\n", kOneLogsCall, "tool_calls"));
  EXPECT_EQ(response.message.content, "");
  ASSERT_EQ(response.message.tool_calls.size(), 1u);
  EXPECT_EQ(response.message.tool_calls[0].name, "query_logs");
  EXPECT_THAT(response.message.reasoning, HasSubstr("I need the order logs."));
  EXPECT_EQ(response.message.reasoning_source, ReasoningSource::kThinkBlock);
}

// ------------------------------------------ what goes back to the model

constexpr char kTurnReasoning[] = "I need the gateway logs before deciding.";

// An earlier assistant turn that called query_logs, with its reasoning.
Message ToolTurn(ReasoningSource source) {
  Message turn;
  turn.role = Role::kAssistant;
  turn.tool_calls = {{"call_1", "query_logs", R"({"topic":"gateway"})"}};
  turn.reasoning = kTurnReasoning;
  turn.reasoning_source = source;
  return turn;
}

class ReplayReasoningTest : public EndpointShapeTest {
 protected:
  // Sends the conversation so far (ending with `turn` and its tool result)
  // from `component` under `replay`, and returns the assistant turn as the
  // server received it.
  bj::object SentTurn(const Message& turn, config::ReplayReasoning replay,
                      Component component = Component::kDiagnosisAgent) {
    server_.Answer("done");
    config::ModelConfig config = ConfigFor(server_.BaseUrl());
    config.per_component[component].replay_reasoning = replay;
    OpenAiChatModel client(config, FastOptions());
    ChatRequest request = AskWithTools(component);
    request.messages.push_back(turn);
    request.messages.push_back({Role::kTool, R"({"events":3})", {}, "call_1"});
    auto response = client.Complete(request);
    EXPECT_TRUE(response.has_value()) << response.error().ToString();
    auto seen = server_.Requests();
    if (seen.empty()) return {};
    last_body_ = seen.back().body;
    return seen.back().json.at("messages").at(2).as_object();
  }

  std::string last_body_;
};

TEST_F(ReplayReasoningTest, AutoSendsADeepSeekToolTurnBackWithItsReasoningContent) {
  bj::object turn = SentTurn(ToolTurn(ReasoningSource::kReasoningContent),
                             config::ReplayReasoning::kAuto);
  ASSERT_TRUE(turn.contains("reasoning_content")) << json::Serialize(turn);
  EXPECT_EQ(turn.at("reasoning_content"), bj::value(kTurnReasoning));
  EXPECT_TRUE(turn.at("content").is_null());
  EXPECT_EQ(turn.at("tool_calls").at(0).at("function").at("name"), bj::value("query_logs"));
}

TEST_F(ReplayReasoningTest, AlwaysSendsADeepSeekToolTurnBackWithItsReasoningContent) {
  bj::object turn = SentTurn(ToolTurn(ReasoningSource::kReasoningContent),
                             config::ReplayReasoning::kAlways);
  ASSERT_TRUE(turn.contains("reasoning_content")) << json::Serialize(turn);
  EXPECT_EQ(turn.at("reasoning_content"), bj::value(kTurnReasoning));
}

TEST_F(ReplayReasoningTest, NeverSendsNoReasoningBack) {
  for (ReasoningSource source : {ReasoningSource::kReasoningContent, ReasoningSource::kReasoning,
                                 ReasoningSource::kThinkBlock}) {
    bj::object turn = SentTurn(ToolTurn(source), config::ReplayReasoning::kNever);
    EXPECT_FALSE(turn.contains("reasoning_content")) << json::Serialize(turn);
    EXPECT_FALSE(turn.contains("reasoning")) << json::Serialize(turn);
    EXPECT_THAT(last_body_, Not(HasSubstr(kTurnReasoning)));
  }
}

TEST_F(ReplayReasoningTest, AlwaysSendsAReasoningFieldTurnBackAsReasoningContent) {
  bj::object turn =
      SentTurn(ToolTurn(ReasoningSource::kReasoning), config::ReplayReasoning::kAlways);
  ASSERT_TRUE(turn.contains("reasoning_content")) << json::Serialize(turn);
  EXPECT_EQ(turn.at("reasoning_content"), bj::value(kTurnReasoning));
  EXPECT_FALSE(turn.contains("reasoning")) << json::Serialize(turn);
}

TEST_F(ReplayReasoningTest, AlwaysSendsAThinkBlockTurnBackAsReasoningContentWithoutTags) {
  bj::object turn =
      SentTurn(ToolTurn(ReasoningSource::kThinkBlock), config::ReplayReasoning::kAlways);
  ASSERT_TRUE(turn.contains("reasoning_content")) << json::Serialize(turn);
  EXPECT_EQ(turn.at("reasoning_content"), bj::value(kTurnReasoning));
  EXPECT_TRUE(turn.at("content").is_null());
  EXPECT_THAT(last_body_, Not(HasSubstr("think>")));
}

TEST_F(ReplayReasoningTest, AutoSendsNeitherAReasoningFieldNorAThinkBlockTurnBack) {
  for (ReasoningSource source : {ReasoningSource::kReasoning, ReasoningSource::kThinkBlock}) {
    bj::object turn = SentTurn(ToolTurn(source), config::ReplayReasoning::kAuto);
    EXPECT_FALSE(turn.contains("reasoning_content")) << json::Serialize(turn);
    EXPECT_THAT(last_body_, Not(HasSubstr(kTurnReasoning)));
  }
}

// Only within the diagnosis tool loop: no other component's request ever
// carries reasoning, even with `always`.
TEST_F(ReplayReasoningTest, NoComponentButTheDiagnosisAgentEverSendsReasoning) {
  for (Component component : config::kAllModelComponents) {
    if (component == Component::kDiagnosisAgent) continue;
    SentTurn(ToolTurn(ReasoningSource::kReasoningContent), config::ReplayReasoning::kAlways,
             component);
    EXPECT_THAT(last_body_, Not(HasSubstr("reasoning"))) << ComponentName(component);
    EXPECT_THAT(last_body_, Not(HasSubstr(kTurnReasoning))) << ComponentName(component);
  }
}

// A turn is replayed for its tool calls; a final answer's reasoning never
// goes back.
TEST_F(ReplayReasoningTest, ATurnWithoutToolCallsIsNeverSentBackWithReasoning) {
  Message answer = ToolTurn(ReasoningSource::kReasoningContent);
  answer.tool_calls.clear();
  answer.content = kAnswer;
  bj::object turn = SentTurn(answer, config::ReplayReasoning::kAlways);
  EXPECT_FALSE(turn.contains("reasoning_content")) << json::Serialize(turn);
  EXPECT_THAT(last_body_, Not(HasSubstr(kTurnReasoning)));
}

// The whole round trip with DeepSeek's thinking mode: what came as
// `reasoning_content` beside tool calls goes back verbatim on the next
// request of the loop, as DeepSeek's docs demand.
TEST_F(ReplayReasoningTest, DeepSeekThinkingToolTurnRoundTripsItsReasoningContentUnderAuto) {
  boost::json::array messages = FedBackTurn(kDeepSeekThinkingToolCall);
  ASSERT_EQ(messages.size(), 4u);
  const bj::object& turn = messages.at(2).as_object();
  ASSERT_TRUE(turn.contains("reasoning_content")) << json::Serialize(turn);
  EXPECT_EQ(turn.at("reasoning_content"),
            bj::value("I need the gateway logs around 10:00 before deciding."));
  EXPECT_EQ(turn.at("tool_calls").at(0).at("id"), bj::value("call_00_Xo3kF8sQ2mB7vL1nP9dR4tYw"));
  // The first request had no earlier turn: nothing to replay.
  EXPECT_THAT(server_.Requests().at(0).body, Not(HasSubstr("reasoning")));
}

// A think block that came inside the content never goes back inside it,
// whatever the mode: no request carries a <think> tag.
TEST_F(ReplayReasoningTest, AThinkBlockTurnFedBackNeverCarriesAThinkTag) {
  for (config::ReplayReasoning replay :
       {config::ReplayReasoning::kAuto, config::ReplayReasoning::kAlways,
        config::ReplayReasoning::kNever}) {
    server_.AnswerRaw(200, "application/json",
                      CompletionWithContent("<think>\nI need the order logs.\n</think>\n\n",
                                            kOneLogsCall, "tool_calls"));
    server_.Answer("done");
    config::ModelConfig config = ConfigFor(server_.BaseUrl());
    config.per_component[Component::kDiagnosisAgent].replay_reasoning = replay;
    OpenAiChatModel client(config, FastOptions());
    ChatRequest request = AskWithTools();
    auto first = client.Complete(request);
    ASSERT_TRUE(first.has_value()) << first.error().ToString();
    request.messages.push_back(first->message);
    request.messages.push_back(
        {Role::kTool, R"({"events":[]})", {}, "chatcmpl-tool-1f2e3d4c5b6a4978"});
    ASSERT_TRUE(client.Complete(request).has_value());
    const std::string sent = server_.Requests().back().body;
    EXPECT_THAT(sent, Not(HasSubstr("<think>"))) << static_cast<int>(replay);
    EXPECT_THAT(sent, Not(HasSubstr("</think>"))) << static_cast<int>(replay);
    if (replay == config::ReplayReasoning::kAlways) {
      EXPECT_THAT(sent, HasSubstr("I need the order logs.")) << "sent as reasoning_content";
    } else {
      EXPECT_THAT(sent, Not(HasSubstr("I need the order logs."))) << static_cast<int>(replay);
    }
  }
}

}  // namespace
}  // namespace diagd::model::shapes
