// The `diagd check` driver (RunChecks) against the scripted model server, a
// real loopback HTTP server that answers each probe with the body a real
// server sends for the misconfiguration at hand (it plays scripted bodies;
// it is no model). Each fixture names where its shape comes from.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "check/check.h"
#include "check/check_workspace.h"
#include "testing/free_port.h"
#include "testing/loopback_http_server.h"
#include "testing/scripted_model_server.h"

namespace diagd::check {
namespace {

using diagd::testing::LoopbackHttpServer;
using diagd::testing::ScriptedModelServer;
using std::chrono::milliseconds;
using testing::CheckWorkspace;
using testing::OpenAiModelToml;

constexpr const char* kJson = "application/json";
constexpr const char* kKey = "sk-diagd-check-7f3a9c1d";

// vLLM with --enable-auto-tool-choice --tool-call-parser hermes
// --reasoning-parser qwen3: the non-streaming ChatCompletionResponse of
// vllm/entrypoints/openai/protocol.py (content null beside tool_calls,
// reasoning_content, stop_reason, prompt_logprobs).
constexpr const char* kVllmToolCall = R"({"id":"chatcmpl-8c1f","object":"chat.completion",
"created":1752000000,"model":"qwen2.5-7b","choices":[{"index":0,"message":{"role":"assistant",
"reasoning_content":"The user asks for the time; I should call get_time.","content":null,
"tool_calls":[{"id":"chatcmpl-tool-5e2a","type":"function","function":{"name":"get_time",
"arguments":"{}"}}]},"logprobs":null,"finish_reason":"tool_calls","stop_reason":null}],
"usage":{"prompt_tokens":152,"total_tokens":190,"completion_tokens":38,
"prompt_tokens_details":null},"prompt_logprobs":null})";

// vLLM started without --enable-auto-tool-choice (the body quoted in
// langchain4j/langchain4j#3475, vLLM's ErrorResponse).
constexpr const char* kVllmNoToolParser =
    R"({"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice )"
    R"(and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400})";

// llama-server without --jinja: a 500 (containers/ramalama#988,
// defilantech/LLMKube#126).
constexpr const char* kLlamaCppNoJinja =
    R"({"error":{"code":500,"message":"tools param requires --jinja flag",)"
    R"("type":"server_error"}})";

// Ollama's /v1 endpoint, a model whose template has no tools
// (ollama/ollama#6027 for the wrapper, #14795 for the registry name).
constexpr const char* kOllamaNoTools =
    R"({"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools",)"
    R"("type":"api_error","param":null,"code":null}})";

// A 200 whose call came back as text: Qwen2.5's chat template writes
// <tool_call> blocks, which the server leaves in content without a parser.
std::string TextCompletion(const std::string& content) {
  boost::json::object message{{"role", "assistant"}, {"content", content}};
  boost::json::object choice{{"index", 0}, {"message", message}, {"finish_reason", "stop"}};
  boost::json::object body{
      {"id", "chatcmpl-1"},
      {"object", "chat.completion"},
      {"created", 1752000000},
      {"model", "qwen2.5-7b"},
      {"choices", boost::json::array{choice}},
      {"usage", {{"prompt_tokens", 150}, {"completion_tokens", 20}, {"total_tokens", 170}}}};
  return boost::json::serialize(body);
}

// vLLM for a model it does not serve (vllm-project/vllm#3485), and its
// model list (GET /v1/models, vLLM's ModelList).
constexpr const char* kVllmNoSuchModel =
    R"({"object":"error","message":"The model `qwen2.5-7b` does not exist.",)"
    R"("type":"NotFoundError","param":null,"code":404})";
constexpr const char* kVllmModelList =
    R"({"object":"list","data":[{"id":"Qwen/Qwen2.5-7B-Instruct","object":"model",)"
    R"("created":1752000000,"owned_by":"vllm","root":"Qwen/Qwen2.5-7B-Instruct",)"
    R"("parent":null,"max_model_len":32768}]})";

// Ollama for a model never pulled (netease-youdao/QAnything#555).
constexpr const char* kOllamaNoSuchModel =
    R"({"error":{"message":"model \"qwen2.5-7b\" not found, try pulling it first",)"
    R"("type":"api_error","param":null,"code":null}})";

// LiteLLM's proxy (forpublicai/platform.publicai.co#6): a 400.
constexpr const char* kLiteLlmNoSuchModel =
    R"({"error":{"message":"{'error': '/chat/completions: Invalid model name passed in )"
    R"(model=qwen2.5-7b. Call `/v1/models` to view available models for your key.'}",)"
    R"("type":"None","param":"None","code":"400"}})";

// OpenAI for a wrong key. OpenAI masks most of the key it echoes; this one
// echoes all of it, to prove no output carries it.
std::string OpenAiBadKey(const std::string& key) {
  return R"({"error":{"message":"Incorrect API key provided: )" + key +
         R"(. You can find your API key at https://platform.openai.com/account/api-keys.",)"
         R"("type":"invalid_request_error","param":null,"code":"invalid_api_key"}})";
}

// vLLM started with --api-key, asked without one (its auth middleware).
constexpr const char* kVllmUnauthorized = R"({"error":"Unauthorized"})";

// vLLM's FastAPI for a path it does not have (vllm-project/vllm#4651).
constexpr const char* kFastApiNotFound = R"({"detail":"Not Found"})";

class RecordingProgress final : public CheckProgress {
 public:
  void OnChecking(std::string_view part, std::string_view name) override {
    lines.push_back(std::string(part) + " " + std::string(name));
  }
  std::vector<std::string> lines;
};

class ModelCheckTest : public ::testing::Test {
 protected:
  CheckReport Check(const std::string& tables, const config::Environment& env = {},
                    milliseconds max_timeout = milliseconds(3000), bool probe = true) {
    auto config = workspace_.Load(tables, env);
    if (!config) {
      ADD_FAILURE() << config.error().message;
      return {};
    }
    CheckOptions options;
    options.config_source = workspace_.config_file().string();
    options.environment = env;
    options.max_model_timeout = max_timeout;
    options.probe_models = probe;
    CheckReport report = RunChecks(*config, options, SystemClock::Instance(), &progress_);
    for (const CheckItem& item : report.checks) {
      if (item.part != "model") {
        EXPECT_TRUE(item.ok) << item.part << " " << item.name << ": " << item.detail;
      }
    }
    return report;
  }

  CheckReport CheckScripted(const std::string& name = "qwen2.5-7b", const std::string& key = "") {
    return Check(OpenAiModelToml(server_.BaseUrl(), name, key));
  }

  static std::vector<CheckItem> ModelRows(const CheckReport& report) {
    std::vector<CheckItem> rows;
    for (const CheckItem& item : report.checks) {
      if (item.part == "model") rows.push_back(item);
    }
    return rows;
  }

  // The one model row, which must be a problem with exactly `advice`.
  static CheckItem ExpectProblem(const CheckReport& report, const std::string& advice) {
    auto rows = ModelRows(report);
    EXPECT_EQ(rows.size(), 1u);
    if (rows.empty()) return {};
    EXPECT_FALSE(rows[0].ok) << rows[0].detail;
    EXPECT_FALSE(report.ok());
    EXPECT_EQ(rows[0].advice, advice) << rows[0].detail;
    return rows[0];
  }

  CheckWorkspace workspace_;
  ScriptedModelServer server_;
  RecordingProgress progress_;
};

TEST_F(ModelCheckTest, AToolCallWithUsageAndReasoningIsAllWell) {
  server_.AnswerRaw(200, kJson, kVllmToolCall);
  CheckReport report = CheckScripted("qwen2.5-7b", kKey);
  ASSERT_TRUE(report.ok()) << ReportTable(report);
  auto rows = ModelRows(report);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "qwen2.5-7b @ " + server_.BaseUrl());
  EXPECT_EQ(rows[0].advice, "");
  for (const char* fact :
       {"reachable", "model served", "tool calls supported", "usage reported (190 tokens)",
        "reasoning present (reasoning_content)", " ms", "used by every component"}) {
    EXPECT_NE(rows[0].detail.find(fact), std::string::npos) << fact << " in " << rows[0].detail;
  }

  // One probe, with the client's headers, offering the one function.
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "/v1/chat/completions");
  EXPECT_EQ(requests[0].headers.at("authorization"), std::string("Bearer ") + kKey);
  EXPECT_EQ(requests[0].headers.at("x-diagd-component"), "ROUTER");
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json");
  const auto& body = requests[0].json.as_object();
  EXPECT_EQ(body.at("model"), "qwen2.5-7b");
  EXPECT_EQ(body.at("tool_choice"), "auto");
  ASSERT_EQ(body.at("tools").as_array().size(), 1u);
  EXPECT_EQ(body.at("tools").at(0).at("function").at("name"), "get_time");

  // The key went out in the header and nowhere else.
  EXPECT_EQ(ReportJson(report).find(kKey), std::string::npos);
  EXPECT_EQ(ReportTable(report).find(kKey), std::string::npos);
  for (const auto& line : progress_.lines) EXPECT_EQ(line.find(kKey), std::string::npos);
  EXPECT_EQ(progress_.lines.back(), "model qwen2.5-7b @ " + server_.BaseUrl());
}

TEST_F(ModelCheckTest, VllmWithoutToolParsingSaysHowToStartIt) {
  server_.AnswerRaw(400, kJson, kVllmNoToolParser);
  CheckItem row =
      ExpectProblem(CheckScripted(),
                    "start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for "
                    "your model, e.g. hermes for Qwen>");
  EXPECT_NE(row.detail.find("HTTP 400"), std::string::npos) << row.detail;
  EXPECT_NE(row.detail.find("requires --enable-auto-tool-choice"), std::string::npos);
  EXPECT_NE(row.detail.find("model served"), std::string::npos);
}

TEST_F(ModelCheckTest, LlamaCppWithoutJinjaIsOneAttemptDespiteItsFiveHundred) {
  server_.AnswerRaw(500, kJson, kLlamaCppNoJinja).AnswerRaw(500, kJson, kLlamaCppNoJinja);
  CheckItem row = ExpectProblem(CheckScripted(), "start llama-server with --jinja");
  EXPECT_NE(row.detail.find("HTTP 500"), std::string::npos) << row.detail;
  EXPECT_EQ(server_.Requests().size(), 1u) << "the probe is not retried";
}

TEST_F(ModelCheckTest, AnOllamaModelWithoutToolsNamesTheModelKey) {
  server_.AnswerRaw(400, kJson, kOllamaNoTools);
  ExpectProblem(CheckScripted("gemma:2b"),
                "set model.name to an Ollama model with tool support (e.g. qwen2.5, llama3.1), or "
                "give gemma:2b a Modelfile TEMPLATE that handles tools");
}

TEST_F(ModelCheckTest, AToolCallInContentMeansTheServerDoesNotParseThem) {
  server_.AnswerRaw(200, kJson,
                    TextCompletion("<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n"
                                   "</tool_call>"));
  CheckItem row =
      ExpectProblem(CheckScripted(),
                    "the server does not parse tool calls: start vLLM with "
                    "--enable-auto-tool-choice --tool-call-parser <parser for your model>, or "
                    "llama-server with --jinja");
  EXPECT_NE(row.detail.find("tool call came back as text"), std::string::npos) << row.detail;
  EXPECT_EQ(row.detail.find("<tool_call>"), std::string::npos) << "no model output is quoted";
}

TEST_F(ModelCheckTest, ABareJsonCallInContentIsATextToolCallToo) {
  // Llama 3.1's JSON tool calling as Meta's prompt format writes it.
  server_.AnswerRaw(200, kJson, TextCompletion(R"({"name": "get_time", "parameters": {}})"));
  CheckItem row =
      ExpectProblem(CheckScripted(),
                    "the server does not parse tool calls: start vLLM with "
                    "--enable-auto-tool-choice --tool-call-parser <parser for your model>, or "
                    "llama-server with --jinja");
  EXPECT_NE(row.detail.find("usage reported (170 tokens)"), std::string::npos) << row.detail;
}

TEST_F(ModelCheckTest, APlainTextAnswerIsNoToolSupport) {
  server_.AnswerRaw(200, kJson, TextCompletion("It is about noon."));
  CheckItem row =
      ExpectProblem(CheckScripted(), "set model.name to a model that supports tool calling");
  EXPECT_NE(row.detail.find("no tool call"), std::string::npos) << row.detail;
}

TEST_F(ModelCheckTest, AModelVllmDoesNotServeIsNamedWithWhatItServes) {
  LoopbackHttpServer vllm([](const LoopbackHttpServer::Request& request) {
    LoopbackHttpServer::Response response;
    if (request.method == "GET" && request.target == "/v1/models") {
      response.body = kVllmModelList;
    } else {
      response.status = 404;
      response.body = kVllmNoSuchModel;
    }
    return response;
  });
  CheckReport report = Check(OpenAiModelToml(vllm.BaseUrl() + "/v1", "qwen2.5-7b", kKey));
  CheckItem row = ExpectProblem(
      report,
      "set model.name to a model the endpoint serves (it serves: Qwen/Qwen2.5-7B-Instruct)");
  EXPECT_NE(row.detail.find("model not served"), std::string::npos) << row.detail;
  EXPECT_NE(row.detail.find("The model `qwen2.5-7b` does not exist."), std::string::npos);
  auto requests = vllm.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].headers.at("authorization"), std::string("Bearer ") + kKey);
}

TEST_F(ModelCheckTest, AModelOllamaNeverPulledIsNamedWithoutAList) {
  // The scripted server has no GET /v1/models: nothing to list.
  server_.AnswerRaw(404, kJson, kOllamaNoSuchModel);
  ExpectProblem(CheckScripted(), "set model.name to a model the endpoint serves");
}

TEST_F(ModelCheckTest, LiteLlmsInvalidModelNameIsAModelNotServed) {
  server_.AnswerRaw(400, kJson, kLiteLlmNoSuchModel);
  ExpectProblem(CheckScripted(), "set model.name to a model the endpoint serves");
}

TEST_F(ModelCheckTest, AComponentsOwnModelNameIsTheKeyToChange) {
  // The router and the guard get different names; only the guard's is wrong.
  ScriptedModelServer server([](const ScriptedModelServer::RecordedRequest& request) {
    if (request.json.at("model") == "wrong-guard") {
      return diagd::testing::ScriptedReply{diagd::testing::ScriptedRawAnswer{
          404, kJson,
          R"({"object":"error","message":"The model `wrong-guard` does not exist.",)"
          R"("type":"NotFoundError","param":null,"code":404})"}};
    }
    return diagd::testing::ScriptedReply{
        diagd::testing::ScriptedRawAnswer{200, kJson, kVllmToolCall}};
  });
  CheckReport report = Check(OpenAiModelToml(server.BaseUrl()) +
                             "[model.semantic_guard]\nname = \"wrong-guard\"\n"
                             "[model.router]\nprovider = \"offline\"\n");
  auto rows = ModelRows(report);
  ASSERT_EQ(rows.size(), 3u) << ReportTable(report);
  EXPECT_TRUE(rows[0].ok) << rows[0].detail;
  EXPECT_NE(rows[0].detail.find("used by system_chat, knowledge_answer, diagnosis_agent, "
                                "evidence_repair"),
            std::string::npos)
      << rows[0].detail;
  EXPECT_FALSE(rows[1].ok);
  EXPECT_EQ(rows[1].name, "wrong-guard @ " + server.BaseUrl());
  EXPECT_EQ(rows[1].advice, "set model.semantic_guard.name to a model the endpoint serves");
  EXPECT_EQ(rows[2].name, "offline");
  EXPECT_TRUE(rows[2].ok);
  EXPECT_EQ(rows[2].detail, "offline provider, nothing to check (used by router)");
  // One probe per distinct endpoint, none for offline; then the model list
  // for the name it does not serve (the scripted server has none).
  auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].headers.at("x-diagd-component"), "SYSTEM_CHAT");
  EXPECT_EQ(requests[1].headers.at("x-diagd-component"), "SEMANTIC_GUARD");
  EXPECT_EQ(requests[2].method + " " + requests[2].target, "GET /v1/models");
}

TEST_F(ModelCheckTest, ANameFromTheEnvironmentNamesTheVariable) {
  server_.AnswerRaw(404, kJson, kOllamaNoSuchModel);
  config::Environment env{{"DIAGD_MODEL_NAME", "qwen2.5-7b"}};
  ExpectProblem(Check(OpenAiModelToml(server_.BaseUrl(), "ignored"), env),
                "set DIAGD_MODEL_NAME to a model the endpoint serves");
}

TEST_F(ModelCheckTest, ARefusedKeyIsNamedButNeverPrinted) {
  server_.AnswerRaw(401, kJson, OpenAiBadKey(kKey));
  CheckReport report = CheckScripted("gpt-4o-mini", kKey);
  CheckItem row = ExpectProblem(
      report,
      "the endpoint refused the API key: set model.api_key or DIAGD_MODEL_API_KEY to a valid key");
  EXPECT_NE(row.detail.find("HTTP 401"), std::string::npos) << row.detail;
  EXPECT_EQ(ReportJson(report).find(kKey), std::string::npos) << ReportJson(report);
  EXPECT_EQ(ReportTable(report).find(kKey), std::string::npos);
  EXPECT_EQ(ReportJson(report).find("sk-diagd"), std::string::npos);
}

TEST_F(ModelCheckTest, AMissingKeySaysWhereToSetOne) {
  server_.AnswerRaw(401, kJson, kVllmUnauthorized);
  ExpectProblem(CheckScripted(),
                "the endpoint wants an API key: set model.api_key or DIAGD_MODEL_API_KEY");
  EXPECT_EQ(server_.Requests()[0].headers.count("authorization"), 0u);
}

TEST_F(ModelCheckTest, ABaseUrlWithoutV1GetsTheUrlToUse) {
  LoopbackHttpServer vllm([](const LoopbackHttpServer::Request&) {
    LoopbackHttpServer::Response response;
    response.status = 404;
    response.body = kFastApiNotFound;
    return response;
  });
  CheckItem row = ExpectProblem(Check(OpenAiModelToml(vllm.BaseUrl())),
                                "model.base_url probably needs /v1: " + vllm.BaseUrl() + "/v1");
  ASSERT_EQ(vllm.Requests().size(), 1u);
  EXPECT_EQ(vllm.Requests()[0].target, "/chat/completions");
  EXPECT_NE(row.detail.find("HTTP 404"), std::string::npos);
}

TEST_F(ModelCheckTest, NothingListeningSaysWhere) {
  int port = diagd::testing::FreeLoopbackPort();
  ASSERT_NE(port, 0);
  std::string base = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  CheckItem row = ExpectProblem(Check(OpenAiModelToml(base)),
                                "nothing listens at 127.0.0.1:" + std::to_string(port) +
                                    ": start the model server there, or fix model.base_url");
  EXPECT_NE(row.detail.find("not reachable"), std::string::npos) << row.detail;
}

TEST_F(ModelCheckTest, AHostThatDoesNotResolveSaysSo) {
  // .invalid never resolves (RFC 6761).
  ExpectProblem(Check(OpenAiModelToml("http://diagd-check.invalid:8000/v1")),
                "the host of model.base_url (diagd-check.invalid) does not resolve: fix the host "
                "name, or this machine's DNS");
}

TEST_F(ModelCheckTest, NoAnswerInTimeUsesTheProbesShortTimeout) {
  server_.AnswerAfter(milliseconds(5000), "late");
  auto started = std::chrono::steady_clock::now();
  CheckReport report =
      Check(OpenAiModelToml(server_.BaseUrl()), {}, /*max_timeout=*/milliseconds(700));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
  ExpectProblem(report,
                "check that the model server at 127.0.0.1:" + std::to_string(server_.port()) +
                    " is up and has finished loading the model (the check waits 1 s)");
}

TEST_F(ModelCheckTest, AnHtmlPageIsNoChatCompletion) {
  server_.AnswerHtml();
  ExpectProblem(CheckScripted(),
                "set model.base_url to the server's OpenAI-compatible base URL "
                "(usually ending in /v1)");
}

TEST_F(ModelCheckTest, NoModelSendsNothing) {
  CheckReport report =
      Check(OpenAiModelToml(server_.BaseUrl()), {}, milliseconds(3000), /*probe=*/false);
  EXPECT_TRUE(report.ok());
  auto rows = ModelRows(report);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "(skipped)");
  EXPECT_TRUE(server_.Requests().empty());
}

TEST_F(ModelCheckTest, TheJsonReportIsOneDocumentWithEveryRow) {
  server_.AnswerRaw(400, kJson, kVllmNoToolParser);
  CheckReport report = CheckScripted();
  auto parsed = boost::json::parse(ReportJson(report)).as_object();
  EXPECT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed.at("ok"), false);
  const auto& checks = parsed.at("checks").as_array();
  ASSERT_EQ(checks.size(), report.checks.size());
  for (const auto& check : checks) {
    const auto& row = check.as_object();
    EXPECT_EQ(row.size(), 5u);
    for (const char* key : {"part", "name", "detail", "advice"}) {
      EXPECT_TRUE(row.at(key).is_string()) << key;
    }
    EXPECT_TRUE(row.at("ok").is_bool());
  }
  EXPECT_EQ(checks.front().at("part"), "config");
  EXPECT_EQ(checks.back().at("part"), "model");
  EXPECT_EQ(checks.back().at("ok"), false);
}

}  // namespace
}  // namespace diagd::check
