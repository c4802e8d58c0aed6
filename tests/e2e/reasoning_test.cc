// docs/model-endpoints.md end to end through the diagd binary, against the
// scripted model server (it plays scripted turns; it is no model): a
// reasoning model's thoughts are never the answer, never stored, shown or
// sent to another component, and DeepSeek's thinking mode gets its
// reasoning_content back within the diagnosis tool loop.
#include "e2e/cli_fixture.h"
#include "testing/scripted_diagnosis.h"

namespace diagd {
namespace {

using namespace e2e;  // NOLINT: the fixture's names

constexpr char kThought[] = "PRIVATE-THOUGHT";

// A chat.completion body with `content` (a JSON string literal's inside)
// and the given extra message members.
std::string Completion(const std::string& content_json, const std::string& extra = "",
                       const std::string& finish = "stop") {
  return R"({"id":"c","object":"chat.completion","created":1765000000,"model":"m",)"
         R"("choices":[{"index":0,"message":{"role":"assistant","content":)" +
         content_json + extra + R"(},"finish_reason":")" + finish +
         R"("}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}})";
}

std::string JsonString(const std::string& s) { return boost::json::serialize(boost::json::value(s)); }

const std::string kLogsCall =
    R"(,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"query_logs",)"
    R"("arguments":"{\"input\":{\"topic\":\"payment-service\",\"query\":\"level:ERROR HikariPool\"}}"}}])";

std::string Draft() {
  return std::string(R"({"conclusion":{"root_cause":"payment-service 数据库连接池耗尽",)") +
         R"("confidence":"MEDIUM","evidence":[{"tool_call_id":"call_1","quote":")" +
         testing::kScriptedDiagnosisQuote + R"("}]}})";
}

void ExpectNoThought(const std::string& text, const std::string& where) {
  EXPECT_EQ(text.find(kThought), std::string::npos) << "a thought reached " << where;
  EXPECT_EQ(text.find("<think>"), std::string::npos) << "a think block reached " << where;
}

// Qwen3 or DeepSeek-R1 served without a reasoning parser: every answer
// starts with a <think> block (R1's template sends the opening tag itself,
// so its answers carry only the closing one).
TEST_F(CliTest, AReasoningModelWithoutAParserStillReleasesItsVerifiedDiagnosis) {
  const std::string think = std::string("<think>\n") + kThought + " weighing the logs\n</think>\n\n";
  server_.AnswerRaw(200, "application/json", Completion(JsonString(think + R"({"route":"DIAGNOSIS"})")))
      .AnswerRaw(200, "application/json", Completion(JsonString(think), kLogsCall, "tool_calls"))
      .AnswerRaw(200, "application/json",
                 Completion(JsonString(std::string(kThought) + " so it is the pool</think>" + Draft())))
      .AnswerRaw(200, "application/json", Completion(JsonString(think + R"({"verdict":"SUPPORTED"})")));
  auto ask = Ask("订单服务为什么大量 500？");
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  EXPECT_EQ(result.at("route"), "DIAGNOSIS");
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS") << ask.out;
  ExpectNoThought(ask.out, "stdout");
  ExpectNoThought(ask.err, "stderr");
  auto record = RunRecord(std::string(result.at("run_id").as_string()));
  ExpectNoThought(boost::json::serialize(record), "the run record");
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 4u);
  for (const auto& request : requests) ExpectNoThought(request.body, "a request");
}

// DeepSeek's thinking mode with tools: the tool-calling turn's
// reasoning_content goes back within the loop (else DeepSeek answers 400),
// and nowhere else.
TEST_F(CliTest, DeepSeekThinkingGetsItsReasoningBackWithinTheToolLoopOnly) {
  const std::string reasoning = std::string(R"(,"reasoning_content":")") + kThought + R"(-1")";
  server_.AnswerRaw(200, "application/json", Completion("\"\"", reasoning + kLogsCall, "tool_calls"))
      .AnswerRaw(200, "application/json",
                 Completion(JsonString(Draft()), std::string(R"(,"reasoning_content":")") + kThought + R"(-2")"))
      .AnswerRaw(200, "application/json",
                 Completion(R"("{\"verdict\":\"SUPPORTED\"}")",
                            std::string(R"(,"reasoning_content":")") + kThought + R"(-3")"));
  auto ask = Ask("订单服务为什么大量 500？", {"--route", "diagnosis"});
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  auto result = boost::json::parse(ask.out).as_object();
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS") << ask.out;
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  // The agent's second request replays the first turn with its reasoning.
  const auto& messages = requests[1].json.at("messages").as_array();
  bool replayed = false;
  for (const auto& message : messages) {
    const auto& object = message.as_object();
    if (object.at("role") == "assistant" && object.contains("tool_calls")) {
      EXPECT_EQ(object.at("reasoning_content"), boost::json::value(std::string(kThought) + "-1"));
      replayed = true;
    }
  }
  EXPECT_TRUE(replayed) << requests[1].body;
  EXPECT_EQ(requests[2].headers.at("x-diagd-component"), "SEMANTIC_GUARD");
  ExpectNoThought(requests[2].body, "the semantic guard");
  ExpectNoThought(ask.out, "stdout");
  auto record = RunRecord(std::string(result.at("run_id").as_string()));
  ExpectNoThought(boost::json::serialize(record), "the run record");
}

TEST_F(CliTest, ReplayReasoningNeverSendsTheReasoningBack) {
  std::string config = ReadFile(dir_ / "diagd.toml");
  config.replace(config.find("timeout_seconds = 5\n"), 20,
                 "timeout_seconds = 5\nreplay_reasoning = \"never\"\n");
  std::ofstream(dir_ / "diagd.toml") << config;
  const std::string reasoning = std::string(R"(,"reasoning_content":")") + kThought + R"(-1")";
  server_.AnswerRaw(200, "application/json", Completion("\"\"", reasoning + kLogsCall, "tool_calls"))
      .AnswerRaw(200, "application/json", Completion(JsonString(Draft())))
      .Answer(R"({"verdict":"SUPPORTED"})");
  auto ask = Ask("订单服务为什么大量 500？", {"--route", "diagnosis"});
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  ExpectNoThought(requests[1].body, "the agent's second request");
}

}  // namespace
}  // namespace diagd
