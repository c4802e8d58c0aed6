// The model seam: one chat completion with tools, as every component of
// diagd uses it (router, system chat, knowledge answer, diagnosis agent,
// evidence repair, semantic guard). Implementations: the OpenAI-compatible
// client (openai_client.h), the offline rule-based provider, and the scripted
// model of tests (testing/scripted_model.h).
//
// Thread safety: implementations are shared by concurrent runs and must be
// safe for concurrent use.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config.h"
#include "core/result.h"

namespace diagd::model {

using Component = config::ModelComponent;

// "ROUTER", "SYSTEM_CHAT", "KNOWLEDGE_ANSWER", "DIAGNOSIS_AGENT",
// "EVIDENCE_REPAIR", "SEMANTIC_GUARD": the wire and trace name.
const char* ComponentName(Component component);

enum class Role { kSystem, kUser, kAssistant, kTool };
const char* RoleName(Role role);

struct ToolCall {
  std::string id;         // may be empty or repeated as a provider sent it
  std::string name;
  std::string arguments;  // JSON text, as the model wrote it
};

// Where an assistant turn's reasoning came from (docs/model-endpoints.md).
enum class ReasoningSource {
  kNone,
  kReasoningContent,  // a `reasoning_content` field (DeepSeek, vLLM and SGLang parsers)
  kReasoning,         // a `reasoning` field (newer vLLM, Ollama, OpenRouter)
  kThinkBlock,        // a <think>...</think> block at the start of `content`
};

// Text held once however many requests carry it: a tool result, which
// every later request of the diagnosis loop sends again, and which at 30
// log events is most of a run's memory. Immutable; copies share it; safe for concurrent use.
//
// A model client that keeps a conversation between calls keeps each such
// text in the form its requests carry it (HeldAs): from then on the text is
// held in that form only, shared by the message and by the client, and read
// back from it. Plain text beside its written form would hold every tool
// result twice for as long as the run waits on the model.
class SharedText {
 public:
  // How a client writes a text in its own form, and reads it back.
  struct Form {
    std::string (*write)(std::string_view text);
    std::string (*read)(std::string_view written);
  };

  SharedText() = default;
  explicit SharedText(std::string text);

  explicit operator bool() const { return held_ != nullptr; }
  // The text (empty when none).
  std::string str() const;
  // The text written in `form` (a static object): written the first time,
  // and from then on held so in place of the text.
  std::shared_ptr<const std::string> HeldAs(const Form& form) const;

 private:
  struct Held;
  std::shared_ptr<Held> held_;
};

struct Message {
  Role role = Role::kUser;
  std::string content;               // may be empty for an assistant with tool calls
  std::vector<ToolCall> tool_calls;  // assistant only
  std::string tool_call_id;          // tool only
  // In place of `content`, which is then empty: a long text held once
  // (SharedText), as the diagnosis loop holds its tool results. ContentOf
  // reads either.
  SharedText shared_content;
  // Assistant only: the turn's reasoning, never part of `content`. It exists
  // only to be replayed within the diagnosis tool loop (model.replay_reasoning);
  // nothing stores, traces, shows or forwards it.
  std::string reasoning;
  ReasoningSource reasoning_source = ReasoningSource::kNone;
};

// The message's content: `content`, or its shared text.
std::string ContentOf(const Message& message);

// A function the model may call; `parameters_schema` is JSON Schema text.
struct FunctionTool {
  std::string name;
  std::string description;
  std::string parameters_schema;
};

// The tools a request offers. Shared, not copied: every diagnosis run offers
// the same ones, and their descriptions and schemas (about 5 KiB) would
// otherwise be held by each run for as long as it waits on the model.
using ToolList = std::shared_ptr<const std::vector<FunctionTool>>;
ToolList MakeToolList(std::vector<FunctionTool> tools);

struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t total_tokens = 0;
};

// One conversation that a caller grows call after call (the diagnosis
// loop). A model client keeps in it what it may reuse at the next call: the
// OpenAI client the request body so far, so that each turn encodes only the
// messages added since rather than the whole history (at 30-event tool
// results the history is most of the body). Opaque to the caller.
struct Conversation {
  struct State {
    virtual ~State() = default;
  };
  std::unique_ptr<State> state;  // the client's own, made at its first call
};

struct ChatRequest {
  Component component = Component::kDiagnosisAgent;
  std::vector<Message> messages;
  ToolList tools;  // null or empty: no tools offered (see OfferedTools)
  // When the run's time budget ends: no exchange or retry wait runs past it
  // (the call then fails with reason RUN_TIMEOUT). Unset: only the
  // endpoint's own timeout applies.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // The run's cancellation: once requested, a call in flight is abandoned
  // (the HTTP transfer aborted) and nothing is retried; the call fails
  // CANCELLED.
  std::stop_token cancel;
  // Set by a caller that only ever appends to `messages` between calls
  // (and keeps `tools` and `component`): the client may then reuse what it
  // kept of the previous call. Unset, every call stands alone. A change the
  // client notices (a message of another size, other tools) makes it start
  // the conversation afresh; an edit of the same size it would not notice,
  // hence the rule.
  std::shared_ptr<Conversation> conversation;
};

// The request's tools; none when `tools` is null.
std::span<const FunctionTool> OfferedTools(const ChatRequest& request);

struct ChatResponse {
  Message message;             // role kAssistant, reasoning already split off `content`
  std::optional<Usage> usage;  // absent when the provider reported none
  std::string finish_reason;   // as the provider sent it; empty when absent or null
};

// Why a call failed. Most failures got no completion. Some got one that is
// no usable answer (cut at the token limit before any content, a tool call
// of the wrong shape): the endpoint generated and billed it all the same, so
// the call was made, and its usage is accounted like any other's.
struct CallError : Error {
  CallError() = default;
  CallError(Error error) : Error(std::move(error)) {}  // NOLINT: every Error is one
  // A completion the endpoint answered, no usable answer, with its usage
  // (absent when the provider reported none).
  static CallError Unusable(Error error, std::optional<Usage> usage) {
    CallError unusable(std::move(error));
    unusable.completed = true;
    unusable.usage = usage;
    return unusable;
  }

  // The endpoint answered with a completion: the call was made.
  bool completed = false;
  std::optional<Usage> usage;  // only when `completed`
};

class ChatModel {
 public:
  virtual ~ChatModel() = default;
  // One completion. Errors: UNAVAILABLE (unreachable, or a retryable status
  // after the bounded retries), DEADLINE_EXCEEDED (no answer in time),
  // INVALID_ARGUMENT (the provider refused the request: 4xx), INTERNAL (the
  // answer is not a usable chat completion; `completed` when it was one, of
  // no use), CANCELLED (`request.cancel`). Each carries its
  // `FailureReason` (docs/model-endpoints.md) where the provider knows it; messages
  // say what happened in the provider's words and never hold the API key, a
  // bearer token, a prompt or a model output.
  virtual Result<ChatResponse, CallError> Complete(const ChatRequest& request) = 0;
  // How outputs name this model: "offline (rule-based, not an LLM)" or the
  // configured model name.
  virtual std::string Label(Component component) const = 0;
};

}  // namespace diagd::model
