#include "check/misconfigurations.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cctype>

#include "core/json.h"
#include "core/text.h"
#include "tools/tool_registry.h"
#include "wiring/model_probe.h"

namespace diagd::check {
namespace {

using M = Misconfiguration;

// The table. Advice says what to change, in one line; docs/check.md
// mirrors it (and docs/model-endpoints.md the model part).
constexpr std::array<MisconfigurationEntry, 19> kEntries{{
    {M::kRunStoreUnusable, "RUN_STORE_UNUSABLE", "store",
     "the SQLite file or its folder cannot be opened or written, the file is no run store this "
     "diagd may use, or PostgreSQL cannot be reached or refuses the login: diagd serve would stop",
     "fix storage.runs, or the database it points at, as the detail says"},
    {M::kRedisUnreachable, "REDIS_UNREACHABLE", "store",
     "the Redis of storage.canonical does not answer PING: instances would not see each other's "
     "runs",
     "start Redis at {url}, or fix storage.canonical"},
    {M::kVllmWithoutToolParser, "VLLM_WITHOUT_TOOL_PARSER", "model",
     "400: \"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser",
     "start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for your model, "
     "e.g. hermes for Qwen>"},
    {M::kLlamaCppWithoutJinja, "LLAMACPP_WITHOUT_JINJA", "model",
     "tools param requires --jinja flag (or an older build's \"Unsupported param: tools\")",
     "start llama-server with --jinja"},
    {M::kOllamaModelWithoutTools, "OLLAMA_MODEL_WITHOUT_TOOLS", "model",
     "400: <model> does not support tools",
     "set {name_key} to an Ollama model with tool support (e.g. qwen2.5, llama3.1), or give "
     "{model} a Modelfile TEMPLATE that handles tools"},
    {M::kToolsRefused, "TOOLS_REFUSED", "model", "another server's refusal of the request's tools",
     "enable tool calling on the model server for {model}, or set {name_key} to a model that "
     "supports it"},
    {M::kToolCallAsText, "TOOL_CALL_AS_TEXT", "model",
     "200, but the tool call came back as text in content (<tool_call>{...}</tool_call>, or a "
     "bare JSON object naming the function)",
     "the server does not parse tool calls: start vLLM with --enable-auto-tool-choice "
     "--tool-call-parser <parser for your model>, or llama-server with --jinja"},
    {M::kNoToolCall, "NO_TOOL_CALL", "model",
     "200 in plain text: the model did not call the function it was asked to call",
     "set {name_key} to a model that supports tool calling"},
    {M::kModelNotServed, "MODEL_NOT_SERVED", "model",
     "404 or 400: the model does not exist / is not found / invalid model name",
     "set {name_key} to a model the endpoint serves{served}"},
    {M::kApiKeyMissing, "API_KEY_MISSING", "model", "401 or 403 with no key configured",
     "the endpoint wants an API key: set {key_key}"},
    {M::kApiKeyRefused, "API_KEY_REFUSED", "model", "401 or 403 with a key configured",
     "the endpoint refused the API key: set {key_key} to a valid key"},
    {M::kBaseUrlWithoutV1, "BASE_URL_WITHOUT_V1", "model",
     "404 on {base_url}/chat/completions, and base_url's path does not end in /v1",
     "{url_key} probably needs /v1: {suggested_url}"},
    {M::kNothingListening, "NOTHING_LISTENING", "model", "connection refused",
     "nothing listens at {host_port}: start the model server there, or fix {url_key}"},
    {M::kHostNotFound, "HOST_NOT_FOUND", "model", "the host name does not resolve",
     "the host of {url_key} ({host}) does not resolve: fix the host name, or this machine's DNS"},
    {M::kTlsFailed, "TLS_FAILED", "model", "the TLS handshake or the certificate failed",
     "check the scheme of {url_key} (http:// or https://) and the server's certificate"},
    {M::kConnectionDropped, "CONNECTION_DROPPED", "model",
     "the server closed the connection without an answer",
     "check that {url_key} points at the model server's HTTP port"},
    {M::kNoAnswerInTime, "NO_ANSWER_IN_TIME", "model", "no answer within the probe's timeout",
     "check that the model server at {host_port} is up and has finished loading the model "
     "(the check waits {seconds} s)"},
    {M::kNotAChatCompletion, "NOT_A_CHAT_COMPLETION", "model",
     "a 2xx answer that is no chat completion (an HTML page, another API)",
     "set {url_key} to the server's OpenAI-compatible base URL (usually ending in /v1)"},
    {M::kEndpointFailed, "ENDPOINT_FAILED", "model", "any other error status",
     "the endpoint answered HTTP {status}: see the detail and the model server's log"},
}};

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

bool ContainsAny(std::string_view haystack, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view needle) { return Contains(haystack, needle); });
}

// The provider texts, lower-cased, each with where it comes from.
//
// vLLM, serving_chat.py (langchain4j/langchain4j#3475): 400
//   "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"
// llama.cpp server (containers/ramalama#988, defilantech/LLMKube#126): 500
//   "tools param requires --jinja flag"; builds before --jinja (ggml-org/llama.cpp#10920):
//   "Unsupported param: tools"
// Ollama (ollama/ollama#6027, #14795): 400
//   "registry.ollama.ai/library/gemma:2b does not support tools"
// Any other refusal the model client knows (wiring::RefusesTools) has
// the generic advice.
std::optional<M> ToolRefusal(std::string_view folded) {
  if (ContainsAny(folded, {"--enable-auto-tool-choice", "--tool-call-parser"})) {
    return M::kVllmWithoutToolParser;
  }
  if (ContainsAny(folded, {"--jinja", "unsupported param: tools"})) {
    return M::kLlamaCppWithoutJinja;
  }
  if (Contains(folded, "does not support tools")) return M::kOllamaModelWithoutTools;
  if (wiring::RefusesTools(folded)) return M::kToolsRefused;
  return std::nullopt;
}

// vLLM (vllm-project/vllm#3485): 404 "The model `x` does not exist."
// Ollama (netease-youdao/QAnything#555): 404 "model \"x\" not found, try pulling it first"
// OpenAI and Groq (continuedev/continue#11567): 404
//   "The model `x` does not exist or you do not have access to it."
// LiteLLM (forpublicai/platform.publicai.co#6): 400
//   "{'error': '/chat/completions: Invalid model name passed in model=x. Call `/v1/models` ...'}"
// A path that does not exist is "Not Found" too ({"detail":"Not Found"}, vLLM's FastAPI;
// "404 page not found", Ollama): without the word "model" it is no model message.
bool SaysModelNotFound(std::string_view folded) {
  if (ContainsAny(folded,
                  {"invalid model name", "model_not_found", "unknown model", "no such model"})) {
    return true;
  }
  return Contains(folded, "model") &&
         ContainsAny(folded, {"does not exist", "not found", "not exist"});
}

// The path of an http(s) URL, without trailing slashes.
std::string_view UrlPath(std::string_view url) {
  std::size_t scheme = url.find("://");
  std::size_t host = scheme == std::string_view::npos ? 0 : scheme + 3;
  std::size_t slash = url.find('/', host);
  std::string_view path = slash == std::string_view::npos ? std::string_view{} : url.substr(slash);
  if (std::size_t query = path.find_first_of("?#"); query != std::string_view::npos) {
    path = path.substr(0, query);
  }
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  return path;
}

// The text a model wrote, without a Markdown code fence around it.
std::string_view Unfenced(std::string_view text) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  if (text.starts_with("```")) {
    std::size_t line = text.find('\n');
    std::size_t close = text.rfind("```");
    if (line != std::string_view::npos && close > line)
      text = trim(text.substr(line, close - line));
  }
  return text;
}

bool NamesFunction(const boost::json::value& value, std::string_view function) {
  if (const auto* array = value.if_array()) {
    return std::any_of(array->begin(), array->end(),
                       [&](const auto& item) { return NamesFunction(item, function); });
  }
  const auto* object = value.if_object();
  if (object == nullptr) return false;
  for (std::string_view key : {"name", "function", "tool", "tool_name"}) {
    auto it = object->find(key);
    if (it == object->end()) continue;
    if (it->value().is_string() && it->value().as_string() == function) return true;
    if (it->value().is_object() && NamesFunction(it->value(), function)) return true;
  }
  return false;
}

}  // namespace

std::span<const MisconfigurationEntry> Misconfigurations() { return kEntries; }

const MisconfigurationEntry& EntryFor(Misconfiguration id) {
  const auto& entry = kEntries[static_cast<std::size_t>(id)];
  assert(entry.id == id);  // the table follows the enum's order
  return entry;
}

std::string Advise(Misconfiguration id, const AdviceValues& values) {
  return tools::FillAdvice(EntryFor(id).advice, values);
}

std::vector<tools::AdviceEntry> AllMisconfigurations() {
  std::vector<tools::AdviceEntry> all;
  tools::RegisteredTools::ForEach([&](auto face) {
    for (const tools::AdviceEntry& entry : decltype(face)::Advice()) all.push_back(entry);
  });
  for (const MisconfigurationEntry& own : kEntries) {
    all.push_back({own.code, own.part, own.symptom, own.advice});
  }
  return all;
}

std::optional<Misconfiguration> RecognizeErrorAnswer(int status, std::string_view provider_message,
                                                     std::string_view base_url,
                                                     bool key_configured) {
  std::string folded = text::AsciiLower(provider_message);
  if (auto refusal = ToolRefusal(folded)) return refusal;
  if (status == 401 || status == 403) {
    return key_configured ? M::kApiKeyRefused : M::kApiKeyMissing;
  }
  if (status >= 200 && status <= 499 && SaysModelNotFound(folded)) return M::kModelNotServed;
  if (status == 404 && WithV1(base_url)) return M::kBaseUrlWithoutV1;
  return std::nullopt;
}

bool IsToolRefusal(Misconfiguration id) {
  return id == M::kVllmWithoutToolParser || id == M::kLlamaCppWithoutJinja ||
         id == M::kOllamaModelWithoutTools || id == M::kToolsRefused;
}

// The markers chat templates write around a call when the server does not
// parse them: Hermes / Qwen2.5 and Qwen3 (<tool_call>{"name": ..., "arguments": ...}</tool_call>,
// Qwen's tokenizer_config.json chat template), Mistral ([TOOL_CALLS]), Llama 3.1
// (<|python_tag|>, <function=...>), DeepSeek V3 (<｜tool▁call▁begin｜>).
bool ToolCallInContent(std::string_view content, std::string_view function) {
  if (!Contains(content, function)) return false;
  if (ContainsAny(content, {"<tool_call>", "[TOOL_CALLS]", "<|python_tag|>",
                            "<function=", "<｜tool▁call▁begin｜>"})) {
    return true;
  }
  // Llama 3.1/3.2's JSON tool calling, as Meta's prompt format writes it:
  // {"name": "get_time", "parameters": {}}.
  std::string_view text = Unfenced(content);
  if (!text.starts_with('{') && !text.starts_with('[')) return false;
  auto parsed = json::Parse(text);
  return parsed.has_value() && NamesFunction(*parsed, function);
}

Misconfiguration RecognizeTransportFailure(const http::Failure& failure) {
  std::string folded = text::AsciiLower(failure.message);
  // curl_easy_strerror's texts: "Couldn't resolve host name", "Couldn't
  // connect to server", "SSL connect error", "Server returned nothing (no
  // headers, no data)", "Failure when receiving data from the peer".
  if (Contains(folded, "ssl") || Contains(folded, "certificate")) return M::kTlsFailed;
  switch (failure.kind) {
    case http::FailureKind::kTimeout:
      return M::kNoAnswerInTime;
    case http::FailureKind::kTooLarge:
    case http::FailureKind::kHeadersTooLarge:
      return M::kNotAChatCompletion;
    case http::FailureKind::kConnect:
      if (Contains(folded, "resolve")) return M::kHostNotFound;
      if (Contains(folded, "connect")) return M::kNothingListening;
      return M::kConnectionDropped;
    case http::FailureKind::kOther:
      break;
  }
  return M::kConnectionDropped;
}

std::optional<std::string> WithV1(std::string_view base_url) {
  std::string_view path = UrlPath(base_url);
  if (path.ends_with("/v1")) return std::nullopt;
  std::string_view trimmed = base_url;
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.remove_suffix(1);
  if (trimmed.find_first_of("?#") != std::string_view::npos) return std::nullopt;
  return std::string(trimmed) + "/v1";
}

}  // namespace diagd::check
