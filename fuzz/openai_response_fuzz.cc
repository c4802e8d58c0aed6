// model::wire::DecodeResponse and ProviderErrorMessage: the body a model
// server sends back, success or error. The input is the body, optionally
// followed by a NUL byte and the API key to scrub from the error message.
//
// Checks: a decoded message is valid UTF-8 throughout (bad bytes become
// U+FFFD) and survives the way back: encoded into the next request as the
// assistant's turn and decoded again, it gives the same content and calls.
// The error message is valid UTF-8, at most kMaxProviderMessageChars code
// points, and never holds the key.
#include <boost/json.hpp>

#include "core/json.h"
#include "core/text.h"
#include "fuzz/fuzz_check.h"
#include "model/openai_wire.h"

namespace {

namespace text = diagd::text;
namespace wire = diagd::model::wire;
using diagd::model::Message;

void CheckUtf8(const Message& message) {
  FUZZ_CHECK(text::IsValidUtf8(message.content));
  for (const auto& call : message.tool_calls) {
    FUZZ_CHECK(text::IsValidUtf8(call.id));
    FUZZ_CHECK(!call.name.empty() && text::IsValidUtf8(call.name));
    FUZZ_CHECK(text::IsValidUtf8(call.arguments));
  }
}

// The assistant turn as the next request carries it, wrapped as a response.
void CheckRoundTrip(const Message& message) {
  diagd::model::ChatRequest request;
  request.messages.push_back(message);
  auto body = wire::EncodeRequest(request, "fuzz-model");
  FUZZ_CHECK(body.has_value());
  auto parsed = diagd::json::Parse(*body);
  FUZZ_CHECK(parsed.has_value());
  boost::json::value encoded = parsed->as_object().at("messages").as_array().at(0);
  boost::json::object response{{"choices", boost::json::array{{{"message", encoded}}}}};
  auto again = wire::DecodeResponse(diagd::json::Serialize(response));
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(again->message.content == message.content);
  FUZZ_CHECK(again->message.tool_calls.size() == message.tool_calls.size());
  for (std::size_t i = 0; i < message.tool_calls.size(); ++i) {
    FUZZ_CHECK(again->message.tool_calls[i].id == message.tool_calls[i].id);
    FUZZ_CHECK(again->message.tool_calls[i].name == message.tool_calls[i].name);
    FUZZ_CHECK(again->message.tool_calls[i].arguments == message.tool_calls[i].arguments);
  }
}

// A key the check can vouch for: no white space (collapsing could join its
// parts) and no '*' (the "***" that replaces it could spell it).
bool PlainSecret(std::string_view secret) {
  return !secret.empty() && text::IsValidUtf8(secret) &&
         secret.find_first_of(" *") == std::string_view::npos &&
         text::CollapseWhitespace(secret) == secret;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = diagd::fuzz::Bytes(data, size);
  std::size_t nul = input.find('\0');
  std::string_view body = input.substr(0, nul);
  std::string_view secret = nul == std::string_view::npos ? "sk-fuzz-key" : input.substr(nul + 1);

  auto response = wire::DecodeResponse(body);
  if (response) {
    FUZZ_CHECK(response->message.role == diagd::model::Role::kAssistant);
    CheckUtf8(response->message);
    CheckRoundTrip(response->message);
    if (response->usage) {
      FUZZ_CHECK(response->usage->input_tokens >= 0 && response->usage->output_tokens >= 0);
      FUZZ_CHECK(response->usage->total_tokens >= 0);
    }
  }

  std::string message = wire::ProviderErrorMessage(body, secret);
  FUZZ_CHECK(text::IsValidUtf8(message));
  FUZZ_CHECK(text::CodePointCount(message) <= wire::kMaxProviderMessageChars);
  if (PlainSecret(secret)) FUZZ_CHECK(message.find(secret) == std::string::npos);
  return 0;
}
