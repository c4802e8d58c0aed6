// The table of known misconfigurations and the recognizers that pick an
// entry from what a server sent. Provider texts are the ones those servers
// really send; the source of each is named beside it.
#include "check/misconfigurations.h"
#include "tools/tool_registry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace diagd::check {
namespace {

using M = Misconfiguration;

constexpr const char* kV1 = "http://127.0.0.1:8000/v1";
constexpr const char* kNoV1 = "http://127.0.0.1:8000";

// Every placeholder the checks fill (model_checks.cc, each tool's NAME_check.cc).
const std::set<std::string> kKnownPlaceholders = {
    "path",   "cache",   "url",     "file",          "name",      "reason", "model",   "name_key",
    "served", "key_key", "url_key", "suggested_url", "host_port", "host",   "seconds", "status"};

TEST(MisconfigurationTable, OwnEntriesFollowTheEnum) {
  std::size_t index = 0;
  for (const MisconfigurationEntry& entry : Misconfigurations()) {
    EXPECT_EQ(static_cast<std::size_t>(entry.id), index++) << entry.code;
    EXPECT_EQ(&EntryFor(entry.id), &entry);
  }
  EXPECT_EQ(index, static_cast<std::size_t>(M::kEndpointFailed) + 1);
}

// The tools' entries and check's own: unique codes, known parts, one-line texts.
TEST(MisconfigurationTable, EveryEntryHasAUniqueCodeAndOneLineTexts) {
  std::set<std::string> codes;
  for (const tools::AdviceEntry& entry : AllMisconfigurations()) {
    EXPECT_TRUE(codes.insert(entry.code).second) << "duplicate " << entry.code;
    EXPECT_TRUE(std::regex_match(entry.code, std::regex("[A-Z0-9_]+"))) << entry.code;
    EXPECT_TRUE(
        std::set<std::string>({"documents", "logs", "datasource", "metrics", "store", "model"})
            .contains(entry.part))
        << entry.code;
    EXPECT_NE(std::string(entry.symptom), "") << entry.code;
    EXPECT_NE(std::string(entry.advice), "") << entry.code;
    EXPECT_EQ(std::string(entry.advice).find('\n'), std::string::npos) << entry.code;
  }
}

TEST(MisconfigurationTable, EveryPlaceholderIsOneTheChecksFill) {
  std::regex placeholder(R"(\{([a-z_]+)\})");
  for (const tools::AdviceEntry& entry : AllMisconfigurations()) {
    std::string advice = entry.advice;
    for (std::sregex_iterator it(advice.begin(), advice.end(), placeholder), end; it != end; ++it) {
      EXPECT_TRUE(kKnownPlaceholders.contains((*it)[1].str()))
          << entry.code << " uses {" << (*it)[1].str() << "}";
    }
  }
}

// docs/check.md lists every entry with its advice word for word.
TEST(MisconfigurationTable, IsMirroredByTheDocs) {
  std::ifstream in(std::string(DIAGD_SOURCE_DIR) + "/docs/check.md");
  ASSERT_TRUE(in) << "docs/check.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string docs = text.str();
  std::size_t previous = 0;
  for (const tools::AdviceEntry& entry : AllMisconfigurations()) {
    std::size_t at = docs.find(std::string("**`") + entry.code + "`**");
    EXPECT_GE(at, previous) << entry.code << " is listed in another order";
    if (at != std::string::npos) previous = at;
    EXPECT_NE(docs.find(std::string("**`") + entry.code + "`**"), std::string::npos) << entry.code;
    EXPECT_NE(docs.find(std::string("Advice: `` ") + entry.advice + " ``"), std::string::npos)
        << entry.code << ": " << entry.advice;
  }
  // ... and nothing more: an entry of the docs no check names was lost.
  std::regex code(R"(\*\*`([A-Z0-9_]+)`\*\*)");
  std::set<std::string> known;
  for (const tools::AdviceEntry& entry : AllMisconfigurations()) known.insert(entry.code);
  for (std::sregex_iterator it(docs.begin(), docs.end(), code), end; it != end; ++it) {
    EXPECT_TRUE(known.contains((*it)[1].str())) << (*it)[1].str() << " is in the docs only";
  }
}

TEST(Advise, FillsPlaceholdersAndLeavesJsonBracesAlone) {
  EXPECT_EQ(Advise(M::kBaseUrlWithoutV1,
                   {{"url_key", "model.base_url"}, {"suggested_url", "http://h:8000/v1"}}),
            "model.base_url probably needs /v1: http://h:8000/v1");
  EXPECT_EQ(tools::FillAdvice(tools::documents::SearchDocuments::Advice()[5].advice, {}),
            "make tools.documents.url answer POST {\"query\": ...} with {\"documents\": [...]} "
            "(docs/configuration.md), or fix the url");
  // A value the caller does not know stays visible rather than vanishing.
  EXPECT_EQ(Advise(M::kApiKeyMissing, {}), "the endpoint wants an API key: set {key_key}");
}

// The advice texts the contract's misconfigurations call for, word for word.
TEST(Advise, NamesWhatToChangeForEachKnownModelMisconfiguration) {
  AdviceValues values = {{"name_key", "model.name"},
                         {"model", "gemma:2b"},
                         {"key_key", "model.api_key or DIAGD_MODEL_API_KEY"},
                         {"url_key", "model.base_url"},
                         {"suggested_url", "http://127.0.0.1:11434/v1"},
                         {"served", " (it serves: qwen2.5:7b)"},
                         {"host_port", "127.0.0.1:8000"},
                         {"host", "llm.internal"},
                         {"seconds", "15"}};
  EXPECT_EQ(Advise(M::kVllmWithoutToolParser, values),
            "start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for your model, "
            "e.g. hermes for Qwen>");
  EXPECT_EQ(Advise(M::kLlamaCppWithoutJinja, values), "start llama-server with --jinja");
  EXPECT_EQ(Advise(M::kOllamaModelWithoutTools, values),
            "set model.name to an Ollama model with tool support (e.g. qwen2.5, llama3.1), or "
            "give gemma:2b a Modelfile TEMPLATE that handles tools");
  EXPECT_EQ(Advise(M::kToolCallAsText, values),
            "the server does not parse tool calls: start vLLM with --enable-auto-tool-choice "
            "--tool-call-parser <parser for your model>, or llama-server with --jinja");
  EXPECT_EQ(Advise(M::kModelNotServed, values),
            "set model.name to a model the endpoint serves (it serves: qwen2.5:7b)");
  EXPECT_EQ(Advise(M::kApiKeyRefused, values),
            "the endpoint refused the API key: set model.api_key or DIAGD_MODEL_API_KEY to a "
            "valid key");
  EXPECT_EQ(Advise(M::kBaseUrlWithoutV1, values),
            "model.base_url probably needs /v1: http://127.0.0.1:11434/v1");
  EXPECT_EQ(Advise(M::kNothingListening, values),
            "nothing listens at 127.0.0.1:8000: start the model server there, or fix "
            "model.base_url");
  EXPECT_EQ(Advise(M::kHostNotFound, values),
            "the host of model.base_url (llm.internal) does not resolve: fix the host name, or "
            "this machine's DNS");
  EXPECT_EQ(Advise(M::kNoAnswerInTime, values),
            "check that the model server at 127.0.0.1:8000 is up and has finished loading the "
            "model (the check waits 15 s)");
}

TEST(RecognizeErrorAnswer, KnowsEachServersNoToolsRefusal) {
  // vLLM without --enable-auto-tool-choice (langchain4j/langchain4j#3475).
  EXPECT_EQ(RecognizeErrorAnswer(400,
                                 "\"auto\" tool choice requires --enable-auto-tool-choice and "
                                 "--tool-call-parser to be set",
                                 kV1, false),
            M::kVllmWithoutToolParser);
  // llama.cpp server without --jinja (containers/ramalama#988), a 500.
  EXPECT_EQ(RecognizeErrorAnswer(500, "tools param requires --jinja flag", kV1, false),
            M::kLlamaCppWithoutJinja);
  // llama.cpp builds from before --jinja (ggml-org/llama.cpp#10920).
  EXPECT_EQ(RecognizeErrorAnswer(500, "Unsupported param: tools", kV1, false),
            M::kLlamaCppWithoutJinja);
  // Ollama, a model whose template has no tools (ollama/ollama#14795, #6027).
  EXPECT_EQ(RecognizeErrorAnswer(400, "registry.ollama.ai/library/gemma:2b does not support tools",
                                 kV1, false),
            M::kOllamaModelWithoutTools);
  EXPECT_EQ(RecognizeErrorAnswer(400, "Tool calling is not supported for this model", kV1, false),
            M::kToolsRefused);
  // Even in a 200's error object (some gateways answer so).
  EXPECT_EQ(RecognizeErrorAnswer(200, "tools param requires --jinja flag", kV1, false),
            M::kLlamaCppWithoutJinja);
  // Another server's words, as the model client knows them: the generic advice.
  EXPECT_EQ(
      RecognizeErrorAnswer(400, "Function calling is not supported by this model", kV1, false),
      M::kToolsRefused);
  EXPECT_TRUE(IsToolRefusal(M::kOllamaModelWithoutTools));
  EXPECT_TRUE(IsToolRefusal(M::kToolsRefused));
  EXPECT_FALSE(IsToolRefusal(M::kModelNotServed));
}

TEST(RecognizeErrorAnswer, KnowsAModelTheEndpointDoesNotServe) {
  // vLLM (vllm-project/vllm#3485).
  EXPECT_EQ(RecognizeErrorAnswer(404, "The model `Qwen1.5-14B-Chat` does not exist.", kV1, false),
            M::kModelNotServed);
  // Ollama (netease-youdao/QAnything#555).
  EXPECT_EQ(
      RecognizeErrorAnswer(404, "model \"ollama\" not found, try pulling it first", kV1, false),
      M::kModelNotServed);
  // OpenAI, and Groq with the same words (continuedev/continue#11567).
  EXPECT_EQ(RecognizeErrorAnswer(
                404, "The model `llama3.1-405b` does not exist or you do not have access to it.",
                kV1, true),
            M::kModelNotServed);
  // LiteLLM's proxy (forpublicai/platform.publicai.co#6).
  EXPECT_EQ(RecognizeErrorAnswer(400,
                                 "{'error': '/chat/completions: Invalid model name passed in "
                                 "model=qwen-max. Call `/v1/models` to view available models "
                                 "for your key.'}",
                                 kV1, true),
            M::kModelNotServed);
  // A model message wins over the missing /v1 guess.
  EXPECT_EQ(RecognizeErrorAnswer(404, "The model `x` does not exist.", kNoV1, false),
            M::kModelNotServed);
}

TEST(RecognizeErrorAnswer, KnowsAMissingOrRefusedKey) {
  EXPECT_EQ(RecognizeErrorAnswer(401, "Unauthorized", kV1, false), M::kApiKeyMissing);
  EXPECT_EQ(RecognizeErrorAnswer(401, "Incorrect API key provided: sk-abc***", kV1, true),
            M::kApiKeyRefused);
  EXPECT_EQ(RecognizeErrorAnswer(403, "", kV1, true), M::kApiKeyRefused);
}

TEST(RecognizeErrorAnswer, GuessesAMissingV1OnlyForA404WithoutOne) {
  // vLLM's FastAPI for an unknown path (vllm-project/vllm#4651); Ollama's Go router.
  EXPECT_EQ(RecognizeErrorAnswer(404, "Not Found", kNoV1, false), M::kBaseUrlWithoutV1);
  EXPECT_EQ(RecognizeErrorAnswer(404, "", "http://127.0.0.1:11434/", false), M::kBaseUrlWithoutV1);
  EXPECT_EQ(RecognizeErrorAnswer(404, "Not Found", kV1, false), std::nullopt);
  EXPECT_EQ(RecognizeErrorAnswer(404, "Not Found", "http://127.0.0.1:8000/v1/", false),
            std::nullopt);
  EXPECT_EQ(RecognizeErrorAnswer(400, "Not Found", kNoV1, false), std::nullopt);
  EXPECT_EQ(RecognizeErrorAnswer(500, "CUDA out of memory", kV1, false), std::nullopt);
}

TEST(ToolCallInContent, FindsACallWrittenAsText) {
  // Qwen2.5's chat template without a tool parser on the server.
  EXPECT_TRUE(
      ToolCallInContent("<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n"
                        "</tool_call>",
                        "get_time"));
  // Llama 3.1's JSON tool calling, bare and in a Markdown fence.
  EXPECT_TRUE(ToolCallInContent("{\"name\": \"get_time\", \"parameters\": {}}", "get_time"));
  EXPECT_TRUE(
      ToolCallInContent("```json\n{\"name\": \"get_time\", \"parameters\": {}}\n```", "get_time"));
  EXPECT_TRUE(ToolCallInContent("[{\"function\": {\"name\": \"get_time\"}}]", "get_time"));
  EXPECT_TRUE(
      ToolCallInContent("[TOOL_CALLS][{\"name\": \"get_time\", \"arguments\": {}}]", "get_time"));
}

TEST(ToolCallInContent, LeavesPlainAnswersAlone) {
  EXPECT_FALSE(ToolCallInContent("I cannot call get_time, but it is about noon.", "get_time"));
  EXPECT_FALSE(ToolCallInContent("{\"name\": \"other\", \"arguments\": {}}", "get_time"));
  EXPECT_FALSE(ToolCallInContent("<tool_call>{\"name\": \"other\"}</tool_call>", "get_time"));
  EXPECT_FALSE(ToolCallInContent("", "get_time"));
}

TEST(RecognizeTransportFailure, ReadsCurlsDescriptions) {
  using http::FailureKind;
  EXPECT_EQ(RecognizeTransportFailure({FailureKind::kConnect, "Couldn't connect to server"}),
            M::kNothingListening);
  EXPECT_EQ(RecognizeTransportFailure({FailureKind::kConnect, "Couldn't resolve host name"}),
            M::kHostNotFound);
  EXPECT_EQ(RecognizeTransportFailure({FailureKind::kConnect, "SSL connect error"}), M::kTlsFailed);
  EXPECT_EQ(RecognizeTransportFailure(
                {FailureKind::kConnect, "Server returned nothing (no headers, no data)"}),
            M::kConnectionDropped);
  EXPECT_EQ(RecognizeTransportFailure({FailureKind::kTimeout, "Timeout was reached"}),
            M::kNoAnswerInTime);
  EXPECT_EQ(RecognizeTransportFailure({FailureKind::kTooLarge, "response larger than allowed"}),
            M::kNotAChatCompletion);
}

TEST(WithV1, AppendsV1OnlyWhenThePathLacksIt) {
  EXPECT_EQ(WithV1("http://127.0.0.1:8000"), "http://127.0.0.1:8000/v1");
  EXPECT_EQ(WithV1("http://127.0.0.1:8000/"), "http://127.0.0.1:8000/v1");
  EXPECT_EQ(WithV1("https://gw.example/openai"), "https://gw.example/openai/v1");
  EXPECT_EQ(WithV1("http://127.0.0.1:8000/v1"), std::nullopt);
  EXPECT_EQ(WithV1("https://dashscope.aliyuncs.com/compatible-mode/v1/"), std::nullopt);
}

}  // namespace
}  // namespace diagd::check
