// The default model provider: an OpenAI-compatible Chat Completions client
// (vLLM, SGLang, llama.cpp server, Ollama, LM Studio, DeepSeek, DashScope,
// OpenAI), as CONTRACT.md section 8 describes it. Each component is sent to
// its own endpoint and model name (`ModelConfig::For`).
//
// Retries: at most `max_attempts` exchanges when the endpoint is unreachable,
// hangs up, or answers 429 or 5xx, sleeping `initial_backoff * 2^n` between
// them. A timeout is not retried (the time is spent), nor is a 4xx (the same
// request would be refused again). `Retry-After` is not honoured: the HTTP
// client does not expose response headers.
//
// Errors (as ChatModel documents): UNAVAILABLE, DEADLINE_EXCEEDED,
// INVALID_ARGUMENT (4xx, or a tool schema that is not a JSON object),
// INTERNAL (not a chat completion, or larger than `max_response_bytes`), and
// FAILED_PRECONDITION when the component's endpoint is configured with the
// offline provider (the caller routes those elsewhere). Messages name the
// component and what went wrong; they may end with the provider's own
// explanation (at most 200 characters, the key scrubbed) and never hold the
// API key, the URL, the prompt or the response body.
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
  int max_attempts = 3;  // 1 = no retry
  std::chrono::milliseconds initial_backoff{250};
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

  Result<ChatResponse> Complete(const ChatRequest& request) override;
  // The configured model name of `component`.
  std::string Label(Component component) const override;

 private:
  const config::ModelConfig config_;
  const OpenAiClientOptions options_;
};

}  // namespace diagd::model
