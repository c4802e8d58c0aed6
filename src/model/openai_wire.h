// The JSON of the OpenAI-compatible Chat Completions API (CONTRACT.md section
// 8), kept apart from the transport so that the retry and error policy of
// openai_client.h reads on its own. Plain types in and out; Boost.JSON stays
// in the .cc file.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "model/chat_model.h"

namespace diagd::model::wire {

// The body of `POST {base_url}/chat/completions` for `request`, addressed to
// `model_name`. INVALID_ARGUMENT when a tool's parameters schema is not a
// JSON object (an empty schema stands for a function without parameters).
// Text that is not valid UTF-8 is sent with U+FFFD in place of bad bytes.
Result<std::string> EncodeRequest(const ChatRequest& request, std::string_view model_name);

// `choices[0].message` and `usage` of a successful answer. INTERNAL when the
// body is not a chat completion; the message names what is wrong and where,
// never a value taken from the body (the caller may add the provider's own
// explanation with `ProviderErrorMessage`). A tool call of the wrong shape
// fails the whole answer rather than being skipped: a dropped call would turn
// an intended action into a final answer.
Result<ChatResponse> DecodeResponse(std::string_view body);

// The provider's explanation in an error body (`error.message`, `error` as a
// string, `message` or `detail`): white space collapsed, every occurrence of
// `secret` replaced by "***", at most 200 code points. Empty when there is
// none.
std::string ProviderErrorMessage(std::string_view body, std::string_view secret);

inline constexpr std::size_t kMaxProviderMessageChars = 200;

// `message` with every occurrence of `secret` replaced by "***" (unchanged
// when `secret` is empty).
std::string ScrubSecret(std::string message, std::string_view secret);

}  // namespace diagd::model::wire
