// The OpenAI-compatible wire as `diagd check` speaks it for its one probe
// request: the chat client's own encoding and decoding, without the
// client's retries and error folding, which would hide the status and the
// provider's words that the check's advice is chosen from.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "model/chat_model.h"

namespace diagd::wiring {

// The body of `POST {base_url}/chat/completions` for `request`, addressed
// to `model_name`; INVALID_ARGUMENT for a tool schema that is not a JSON
// object.
Result<std::string> EncodeChatRequest(const model::ChatRequest& request,
                                      std::string_view model_name);

// A 2xx body read as the client reads it; the error's message holds no
// `secret`.
Result<model::ChatResponse, model::CallError> DecodeChatResponse(std::string_view body,
                                                                 std::string_view secret);

// The provider's error message in `body` (scrubbed of `secret`, at most
// 200 code points), empty when there is none.
std::string ProviderErrorMessage(std::string_view body, std::string_view secret);

// Whether a provider's message says it refuses tool calling.
bool RefusesTools(std::string_view provider_message);


}  // namespace diagd::wiring
