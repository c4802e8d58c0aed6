// The default model provider: an OpenAI-compatible Chat Completions client
// (vLLM, SGLang, llama.cpp server, Ollama, LM Studio, DeepSeek, DashScope,
// OpenAI), as docs/model-endpoints.md describes it. Each component is sent to
// its own endpoint and model name (`ModelConfig::For`).
//
// Retries (docs/model-endpoints.md): at most `model.max_attempts` exchanges when the
// endpoint cannot be reached or hangs up, answers 408, 409, 429, 500, 502,
// 503 or 504, or sends a retryable bad body (wire::DecodeResponse). Before
// attempt n+1 it waits `initial_backoff * 2^(n-1)`, jittered to between half
// and all of it, and at least the `Retry-After` the endpoint sent. Nothing
// runs past the request's deadline: an attempt's timeout is cut to what is
// left of the run, and a wait that would not fit ends the call. A timeout is
// not retried (the time is spent), nor is any other 4xx (the same request
// would be refused again), nor a refusal of the tools, whatever its status.
//
// Errors (as ChatModel documents), each with its FailureReason:
// UNAVAILABLE (MODEL_UNREACHABLE, or MODEL_HTTP_ERROR / MODEL_BAD_RESPONSE
// after the retries), DEADLINE_EXCEEDED (MODEL_UNREACHABLE; RUN_TIMEOUT when
// the run's deadline cut it), INVALID_ARGUMENT (MODEL_HTTP_ERROR for a 4xx,
// MODEL_NO_TOOL_SUPPORT, or no reason for a tool schema that is not a JSON
// object), INTERNAL (MODEL_BAD_RESPONSE, MODEL_OUTPUT_TRUNCATED; `completed`,
// with its usage, when the endpoint answered a completion of no use), and
// FAILED_PRECONDITION when the component's endpoint is configured with the
// offline provider (the caller routes those elsewhere). Messages name the
// component, what went wrong and the HTTP status; they may end with the
// provider's own explanation (at most 200 characters) and never hold the API
// key or anything shaped like a credential, the URL, the prompt or the
// response body.
//
// Thread safety: `Complete` is safe for concurrent use; the `sleep` function
// of the options is called from the calling threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "config/config.h"
#include "model/chat_model.h"

namespace diagd::model {

struct OpenAiClientOptions {
  // Replaces every endpoint's `max_attempts` (1 = no retry).
  std::optional<int> max_attempts;
  std::chrono::milliseconds initial_backoff{250};
  // A number in [0, 1] that jitters each backoff; the default is random.
  // Tests pin it.
  std::function<double()> jitter;
  // Answers larger than this are refused (INTERNAL) rather than parsed.
  std::size_t max_response_bytes = 8 * 1024 * 1024;
  // Replaces every endpoint's `timeout_seconds`: tests need sub-second ones.
  std::optional<std::chrono::milliseconds> timeout;
  // Waits between attempts; the default sleeps the calling thread. Tests
  // inject a recorder so that backoff costs no time.
  std::function<void(std::chrono::milliseconds)> sleep;
};

class OpenAiChatModel final : public ChatModel {
 public:
  explicit OpenAiChatModel(config::ModelConfig config, OpenAiClientOptions options = {});

  Result<ChatResponse, CallError> Complete(const ChatRequest& request) override;
  // The configured model name of `component`.
  std::string Label(Component component) const override;

 private:
  const config::ModelConfig config_;
  const OpenAiClientOptions options_;
};

}  // namespace diagd::model
