// The misconfigurations `diagd check` knows by name (docs/check.md), and
// for each the one line of advice that says what to change. This is the one
// home of those texts: docs/check.md and docs/model-endpoints.md mirror the
// table, and the recognizers below are how a probe's answer is matched to
// an entry.
//
// Advice texts are templates: `{name}` stands for a value the check knows
// when it reports (the key to change, the model name, a suggested URL...),
// filled by `Advise`. A value never holds a secret: keys are named, never
// quoted.
//
// The recognizers match what the servers really send (their error texts are
// quoted in misconfigurations.cc, with the source of each): each server's
// own "no tools" words pick that server's advice, and any other refusal
// wiring::RefusesTools knows is the generic TOOLS_REFUSED.
//
// Thread safety: constant data and pure functions.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "http/http_client.h"
#include "tools/tool_check.h"

namespace diagd::check {

enum class Misconfiguration {
  // Stores
  kRunStoreUnusable,  // storage.runs cannot be opened: serve would stop on it
  kRedisUnreachable,  // storage.canonical's Redis does not answer
  // Model endpoints
  kVllmWithoutToolParser,    // vLLM started without --enable-auto-tool-choice / --tool-call-parser
  kLlamaCppWithoutJinja,     // llama-server without --jinja
  kOllamaModelWithoutTools,  // an Ollama model whose template has no tools
  kToolsRefused,             // another server's "tools are not supported"
  kToolCallAsText,           // a 200 whose tool call came back as text in `content`
  kNoToolCall,               // a 200 in plain text: the model did not call the function
  kModelNotServed,           // the endpoint does not know the configured model name
  kApiKeyMissing,            // 401/403 and no key configured
  kApiKeyRefused,            // 401/403 with a key configured
  kBaseUrlWithoutV1,         // 404 on {base_url}/chat/completions, base_url not ending in /v1
  kNothingListening,         // connection refused
  kHostNotFound,             // DNS
  kTlsFailed,                // TLS handshake or certificate
  kConnectionDropped,        // connected, closed without an answer
  kNoAnswerInTime,           // timeout
  kNotAChatCompletion,       // a 2xx that is no chat completion
  kEndpointFailed,           // any other error status
};

struct MisconfigurationEntry {
  Misconfiguration id;
  const char* code;     // stable name, e.g. "VLLM_WITHOUT_TOOL_PARSER"
  const char* part;     // "store" or "model"
  const char* symptom;  // what the check saw, for the docs
  const char* advice;   // the template `Advise` fills
};

// check's own entries (the stores and model endpoints), in the order of the
// enum and of docs/check.md, where they follow the tools' own.
std::span<const MisconfigurationEntry> Misconfigurations();
const MisconfigurationEntry& EntryFor(Misconfiguration id);

// Every misconfiguration `diagd check` can name: each registered tool's
// (its face's Advice, tool_check.h) in registration order, then check's own.
std::vector<tools::AdviceEntry> AllMisconfigurations();

using tools::AdviceValues;
// The advice of `id` with its placeholders filled (tools::FillAdvice).
std::string Advise(Misconfiguration id, const AdviceValues& values);

// --- Recognizers for the model probe -------------------------------------

// An error answer (any status, a 200 with an error object included), by the
// provider's message (wiring::ProviderErrorMessage) and the status:
// the no-tools refusals of vLLM, llama.cpp, Ollama and others; a model the
// endpoint does not serve (vLLM, Ollama, OpenAI, LiteLLM wordings); 401/403
// (`key_configured` picks missing or refused); a 404 with no model message
// when `base_url`'s path does not end in /v1. Nothing for anything else.
std::optional<Misconfiguration> RecognizeErrorAnswer(int status, std::string_view provider_message,
                                                     std::string_view base_url,
                                                     bool key_configured);

// Whether `id` is a refusal of the request's tools (the server knew the
// model and refused the tools).
bool IsToolRefusal(Misconfiguration id);

// Whether a 200's `content` holds a call of `function` written as text: a
// <tool_call> block (Hermes/Qwen templates), another template's tool-call
// marker, or a bare JSON object naming the function.
bool ToolCallInContent(std::string_view content, std::string_view function);

// A transport failure (http::Send's), by its kind and curl's description.
Misconfiguration RecognizeTransportFailure(const http::Failure& failure);

// `base_url` with /v1 appended to its path ("http://host:8000" ->
// "http://host:8000/v1"); nothing when its path already ends in /v1.
std::optional<std::string> WithV1(std::string_view base_url);

}  // namespace diagd::check
