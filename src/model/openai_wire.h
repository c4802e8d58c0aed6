// The JSON of the OpenAI-compatible Chat Completions API
// (docs/model-endpoints.md), kept apart from the transport so that the retry and error policy of
// openai_client.h reads on its own. Plain types in and out; Boost.JSON stays
// in the .cc file.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/config.h"
#include "core/result.h"
#include "model/chat_model.h"

namespace diagd::model::wire {

// The form a request body carries a message's shared text in
// (SharedText::HeldAs): a JSON string, quotes included, exactly sized;
// bytes that are not UTF-8 are replaced by U+FFFD, as in any other text.
extern const SharedText::Form kJsonString;

// The OpenAI client's record of a conversation between two of its calls
// (Conversation::State): the last request body, in parts, so that the next
// call encodes only the messages added since as one more part; nothing
// already encoded is copied again.
struct EncodedConversation final : Conversation::State {
  // Bytes the encoding wrote, or a shared text in its written form, shared
  // with the message (kJsonString).
  using Part = std::variant<std::string, std::shared_ptr<const std::string>>;
  static std::string_view BytesOf(const Part& part);

  // The body is these joined: everything but the messages (up to the
  // opening of the messages array, which comes last), then the messages
  // each call added, each shared text a part of its own; the last part is
  // written, not shared, and ends with the closing "]}". The client may
  // join parts (it keeps a short body in one).
  std::vector<Part> parts;
  std::uint64_t head = 0;             // what the body holds besides the messages
  std::vector<std::uint64_t> shapes;  // one per message encoded, to notice an edit

  std::size_t BodySize() const;
  std::string Body() const;
  // The body in one written part (a short one, which curl sends with the
  // headers).
  void Join();
};

// The body of `POST {base_url}/chat/completions` for `request`, addressed to
// `model_name`. INVALID_ARGUMENT when a tool's parameters schema is not a
// JSON object (an empty schema stands for a function without parameters).
// Text that is not valid UTF-8 is sent with U+FFFD in place of bad bytes.
// An assistant turn's reasoning goes out (as `reasoning_content`) only in a
// DIAGNOSIS_AGENT request, only beside tool calls, and only as `replay`
// allows (docs/model-endpoints.md); nothing else ever carries reasoning.
Result<std::string> EncodeRequest(const ChatRequest& request, std::string_view model_name,
                                  config::ReplayReasoning replay = config::ReplayReasoning::kAuto);

// The same body, left in `conversation.parts`, reusing the encoding of the
// conversation's previous call: when its model, tools, reasoning replay and
// earlier messages are as they were, only the messages added since are
// encoded, as one more part; otherwise the body is encoded whole. On an
// error `conversation` is left empty.
Result<void> EncodeRequestInto(const ChatRequest& request, std::string_view model_name,
                               config::ReplayReasoning replay, EncodedConversation& conversation);

// `choices[0].message`, `finish_reason` and `usage` of a successful answer,
// with the reasoning split off the content: a `reasoning_content` or
// `reasoning` field, and a <think>...</think> block at the start of the
// content (also one whose opening tag the chat template sent: content up
// to a `</think>` with no `<think>` before it), are reasoning, never the
// answer. Errors, all with reason MODEL_BAD_RESPONSE unless said:
//   UNAVAILABLE (a retry may help): not JSON (a cut-off body), an error
//     object instead of a completion, a zero-value completion (Ollama's
//     `created: -62135596800`, or no role, no finish reason, no content);
//   INTERNAL: a server-sent-events body (by `content_type` or by its
//     `data:` lines), a body of the wrong shape; and
//     with reason MODEL_OUTPUT_TRUNCATED, `finish_reason: "length"` with no
//     content and no tool call left (the tokens went to reasoning);
//   INVALID_ARGUMENT with reason MODEL_NO_TOOL_SUPPORT: an error object
//     saying the request's tools are refused (RefusesTools).
// An INTERNAL error of a body that holds `choices[0].message` or reports
// usage is `completed`, with that usage: the endpoint answered and billed
// the call, though with nothing usable (a retryable error never is).
// Messages name what is wrong and where, with the provider's own words
// only from its error message (scrubbed of `secret`), never the content. A
// tool call of the wrong shape fails the whole answer rather than being
// skipped: a dropped call would turn an intended action into a final answer.
Result<ChatResponse, CallError> DecodeResponse(std::string_view body,
                                               std::string_view secret = {},
                                               std::string_view content_type = {});

// Whether a provider's error message says it refuses tool calling for this
// model or server setup (vLLM without --enable-auto-tool-choice, llama.cpp
// without --jinja, an Ollama model whose template has no tools...).
bool RefusesTools(std::string_view provider_message);

// Whether `body` is a server-sent-events stream (`data: ...` lines), which
// is no answer to a request sent with `stream: false`.
bool LooksLikeEventStream(std::string_view content_type, std::string_view body);

// The provider's explanation in an error body (`error.message`, `error` as a
// string, `message` or `detail`): white space collapsed, every occurrence of
// `secret` replaced by "***", at most 200 code points. Empty when there is
// none.
std::string ProviderErrorMessage(std::string_view body, std::string_view secret);

inline constexpr std::size_t kMaxProviderMessageChars = 200;

}  // namespace diagd::model::wire
