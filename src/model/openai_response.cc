// The response side of the Chat Completions wire (openai_wire.h): an
// answer read into a completion, or into an error that says why it is none.
#include "model/openai_wire.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "core/json.h"
#include "core/secrets.h"
#include "core/text.h"

namespace diagd::model::wire {
namespace {

namespace bj = boost::json;

// A token count: a non-negative integer (a whole double is accepted, as some
// gateways written in JavaScript send them).
std::optional<std::int64_t> TokenCount(const bj::value* value) {
  if (value == nullptr) return std::nullopt;
  if (value->is_int64()) {
    std::int64_t n = value->get_int64();
    return n >= 0 ? std::optional<std::int64_t>(n) : std::nullopt;
  }
  if (value->is_uint64()) {
    std::uint64_t n = value->get_uint64();
    if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return std::nullopt;
    return static_cast<std::int64_t>(n);
  }
  if (value->is_double()) {
    double d = value->get_double();
    if (!std::isfinite(d) || d < 0 || d != std::floor(d) || d > 9.0e15) return std::nullopt;
    return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

// Usage is reported only when it is really there: a missing or malformed
// usage is "unavailable", never zeros (zeros would pass the token audit).
std::optional<Usage> DecodeUsage(const bj::object& root) {
  const bj::value* usage = root.if_contains("usage");
  if (usage == nullptr || !usage->is_object()) return std::nullopt;
  const bj::object& object = usage->get_object();
  auto input = TokenCount(object.if_contains("prompt_tokens"));
  auto output = TokenCount(object.if_contains("completion_tokens"));
  if (!input || !output) return std::nullopt;
  Usage out{*input, *output, 0};
  const bj::value* total = object.if_contains("total_tokens");
  if (total == nullptr || total->is_null()) {
    if (__builtin_add_overflow(*input, *output, &out.total_tokens)) return std::nullopt;
    return out;
  }
  auto total_count = TokenCount(total);
  if (!total_count) return std::nullopt;
  out.total_tokens = *total_count;
  return out;
}

// `content` is a string, null, or (some servers) an array of parts whose
// text parts are joined.
Result<std::string> DecodeContent(const bj::value* content) {
  if (content == nullptr || content->is_null()) return std::string();
  if (content->is_string()) return std::string(content->get_string());
  if (content->is_array()) {
    std::string joined;
    for (const bj::value& part : content->get_array()) {
      if (!part.is_object()) continue;
      auto type = json::GetString(part.get_object(), "type");
      auto text = json::GetString(part.get_object(), "text");
      if (type && *type == "text" && text) joined += *text;
    }
    return joined;
  }
  return Error::Internal(std::string("response message content: expected a string, got ") +
                         json::KindName(*content));
}

Result<ToolCall> DecodeToolCall(const bj::value& value, std::size_t index) {
  const std::string where = "response tool_calls[" + std::to_string(index) + "]";
  if (!value.is_object()) {
    return Error::Internal(where + ": expected an object, got " + json::KindName(value));
  }
  const bj::object& object = value.get_object();
  ToolCall call;
  if (const bj::value* id = object.if_contains("id"); id != nullptr && !id->is_null()) {
    if (!id->is_string()) {
      return Error::Internal(where + ".id: expected a string, got " + json::KindName(*id));
    }
    call.id = std::string(id->get_string());
  }
  const bj::value* function = object.if_contains("function");
  if (function == nullptr || !function->is_object()) {
    return Error::Internal(where + ".function: expected an object");
  }
  auto name = json::GetString(function->get_object(), "name");
  if (!name || name->empty()) {
    return Error::Internal(where + ".function.name: expected a non-empty string");
  }
  call.name = std::string(*name);
  const bj::value* arguments = function->get_object().if_contains("arguments");
  if (arguments == nullptr || arguments->is_null()) {
    call.arguments = "{}";  // a call without arguments
  } else if (arguments->is_string()) {
    call.arguments = std::string(arguments->get_string());
  } else if (arguments->is_object()) {
    call.arguments = json::Serialize(*arguments);
  } else {
    return Error::Internal(where + ".function.arguments: expected a string or an object, got " +
                           json::KindName(*arguments));
  }
  return call;
}

Result<bj::value> ParseLenient(std::string_view body) {
  // Boost.JSON refuses bad UTF-8; a stray byte in a long answer should not
  // cost the whole call, so it becomes U+FFFD first (structure is ASCII and
  // survives).
  if (text::IsValidUtf8(body)) return json::Parse(body);
  return json::Parse(text::SanitizeUtf8(body));
}

std::string AsciiLower(std::string_view s) {
  std::string lower(s);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

Error BadBody(ErrorCode code, std::string message) {
  return Error(code, std::move(message), FailureReason::kModelBadResponse);
}

Error EventStreamError() {
  return BadBody(ErrorCode::kInternal,
                 "the endpoint streamed its answer (text/event-stream) although stream: false "
                 "was asked");
}

// The provider's explanation in an error object (`error.message`, `error`
// as a string, `message` or `detail`), scrubbed, collapsed and bounded.
std::string ProviderMessageOf(const bj::object& root, std::string_view secret) {
  std::optional<std::string_view> found;
  if (const bj::value* error = root.if_contains("error"); error != nullptr) {
    if (error->is_string()) {
      found = error->get_string();
    } else if (error->is_object()) {
      found = json::GetString(error->get_object(), "message");
    }
  }
  if (!found) found = json::GetString(root, "message");  // vLLM's older ErrorResponse
  if (!found) found = json::GetString(root, "detail");   // FastAPI-based servers
  if (!found) return "";
  // Scrub before collapsing and cutting, so that no part of a key survives
  // at the cut.
  std::string message = ScrubCredentials(std::string(*found), secret);
  return text::TruncateCodePoints(text::CollapseWhitespace(message), kMaxProviderMessageChars);
}

// Ollama answers a failed generation with Go's zero value: year 1 as
// `created`, an empty role, a null finish reason.
bool IsZeroValue(const bj::object& root, const bj::object& message,
                 const std::string& finish_reason) {
  constexpr std::int64_t kYearOne = -62135596800;
  if (const bj::value* created = root.if_contains("created");
      created != nullptr && created->is_int64() && created->get_int64() == kYearOne) {
    return true;
  }
  auto role = json::GetString(message, "role");
  return (!role || role->empty()) && finish_reason.empty();
}

std::string_view TrimLeft(std::string_view s) {
  std::size_t start = s.find_first_not_of(" \t\r\n");
  return start == std::string_view::npos ? std::string_view() : s.substr(start);
}

// docs/model-endpoints.md: the reasoning channel, wherever the server put it,
// leaves the content before anything reads it as the answer.
void SplitReasoning(const bj::object& message, std::string content, Message& out) {
  constexpr std::string_view kOpen = "<think>";
  constexpr std::string_view kClose = "</think>";
  std::string think;
  std::string_view rest = TrimLeft(content);
  if (rest.starts_with(kOpen)) {
    std::size_t close = rest.find(kClose);
    // An unclosed block is all reasoning: the answer never started.
    think = std::string(rest.substr(kOpen.size(), close == std::string_view::npos
                                                      ? std::string_view::npos
                                                      : close - kOpen.size()));
    rest = close == std::string_view::npos ? std::string_view() : rest.substr(close + kClose.size());
    content = std::string(TrimLeft(rest));
  } else if (std::size_t close = content.find(kClose);
             close != std::string::npos && content.rfind(kOpen, close) == std::string::npos) {
    // The chat template sent the opening tag (DeepSeek-R1, QwQ): what comes
    // before the closing one is reasoning.
    think = content.substr(0, close);
    content = std::string(TrimLeft(std::string_view(content).substr(close + kClose.size())));
  }
  out.content = std::move(content);
  if (auto field = json::GetString(message, "reasoning_content"); field && !field->empty()) {
    out.reasoning = std::string(*field);
    out.reasoning_source = ReasoningSource::kReasoningContent;
  } else if (auto other = json::GetString(message, "reasoning"); other && !other->empty()) {
    out.reasoning = std::string(*other);
    out.reasoning_source = ReasoningSource::kReasoning;
  } else if (!text::IsBlank(think)) {
    out.reasoning = std::move(think);
    out.reasoning_source = ReasoningSource::kThinkBlock;
  }
}

// `choices[0].message` of a body that is no error object.
const bj::object* FirstMessage(const bj::object& root) {
  const bj::value* choices = root.if_contains("choices");
  if (choices == nullptr || !choices->is_array() || choices->get_array().empty()) return nullptr;
  const bj::value& first = choices->get_array().front();
  const bj::value* message =
      first.is_object() ? first.get_object().if_contains("message") : nullptr;
  return message != nullptr && message->is_object() ? &message->get_object() : nullptr;
}

// The answer in `choices[0]`, without the usage (DecodeResponse's errors).
Result<ChatResponse> DecodeChoice(const bj::object& root) {
  const bj::value* choices = root.if_contains("choices");
  if (choices == nullptr || !choices->is_array() || choices->get_array().empty()) {
    return BadBody(ErrorCode::kInternal, "response has no choices");
  }
  const bj::object* message_object = FirstMessage(root);
  if (message_object == nullptr) {
    return BadBody(ErrorCode::kInternal, "response choices[0].message: expected an object");
  }
  const bj::object& first = choices->get_array().front().get_object();

  ChatResponse response;
  if (auto finish = json::GetString(first, "finish_reason")) {
    response.finish_reason = std::string(*finish);
  }
  response.message.role = Role::kAssistant;
  auto content = DecodeContent(message_object->if_contains("content"));
  if (!content.has_value()) return Error(content.error()).Because(FailureReason::kModelBadResponse);
  SplitReasoning(*message_object, std::move(*content), response.message);

  const bj::value* tool_calls = message_object->if_contains("tool_calls");
  if (tool_calls != nullptr && !tool_calls->is_null()) {
    if (!tool_calls->is_array()) {
      return BadBody(ErrorCode::kInternal,
                     std::string("response tool_calls: expected an array, got ") +
                         json::KindName(*tool_calls));
    }
    const bj::array& calls = tool_calls->get_array();
    response.message.tool_calls.reserve(calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i) {
      auto call = DecodeToolCall(calls[i], i);
      if (!call.has_value()) return Error(call.error()).Because(FailureReason::kModelBadResponse);
      response.message.tool_calls.push_back(std::move(*call));
    }
  }
  const bool nothing = response.message.content.empty() && response.message.tool_calls.empty();
  if (nothing && IsZeroValue(root, *message_object, response.finish_reason)) {
    return BadBody(ErrorCode::kUnavailable,
                   "the endpoint sent an empty zero-value completion (no role, no finish reason)");
  }
  if (nothing && response.finish_reason == "length") {
    return Error(ErrorCode::kInternal,
                 "the answer was cut at the token limit before any content or tool call" +
                     std::string(response.message.reasoning.empty()
                                     ? ""
                                     : " (the tokens went to reasoning)"),
                 FailureReason::kModelOutputTruncated);
  }
  return response;
}

}  // namespace

Result<ChatResponse, CallError> DecodeResponse(std::string_view body, std::string_view secret,
                                               std::string_view content_type) {
  if (LooksLikeEventStream(content_type, body)) return EventStreamError();
  auto parsed = ParseLenient(body);
  if (!parsed.has_value()) {
    // Most often a body cut off by a proxy or a crashing server.
    return BadBody(ErrorCode::kUnavailable,
                   "response is not JSON (" + std::to_string(body.size()) + " bytes)");
  }
  if (!parsed->is_object()) {
    return BadBody(ErrorCode::kInternal,
                   std::string("response: expected a JSON object, got ") + json::KindName(*parsed));
  }
  const bj::object& root = parsed->get_object();
  const bj::value* choices = root.if_contains("choices");
  if (choices == nullptr || choices->is_null()) {
    // Gateways (LiteLLM, DashScope) and some servers answer 200 with an
    // error object: the provider's words say why.
    if (std::string said = ProviderMessageOf(root, secret); !said.empty()) {
      if (RefusesTools(said)) {
        return Error(ErrorCode::kInvalidArgument, "the endpoint refused the tools: " + said,
                     FailureReason::kModelNoToolSupport);
      }
      return BadBody(ErrorCode::kUnavailable, "the endpoint answered 200 with an error: " + said);
    }
  }
  const std::optional<Usage> usage = DecodeUsage(root);
  auto choice = DecodeChoice(root);
  if (choice.has_value()) {
    choice->usage = usage;
    return std::move(*choice);
  }
  // A body that says it was billed, or that holds an answer, is a completion
  // of no use: the call was made. Not one that is retried (the attempt that
  // replaces it is the call) nor Go's zero value (nothing was generated).
  const bool completed = usage.has_value() || FirstMessage(root) != nullptr;
  if (completed && choice.error().code != ErrorCode::kUnavailable) {
    return CallError::Unusable(std::move(choice).error(), usage);
  }
  return std::move(choice).error();
}

std::string ProviderErrorMessage(std::string_view body, std::string_view secret) {
  auto parsed = ParseLenient(body);
  if (!parsed.has_value() || !parsed->is_object()) return "";
  return ProviderMessageOf(parsed->get_object(), secret);
}

bool RefusesTools(std::string_view provider_message) {
  // What the servers say (docs/model-endpoints.md): vLLM without a tool
  // parser, llama.cpp without --jinja, Ollama and LM Studio models whose
  // template has no tools, OpenAI models without function calling.
  static constexpr std::string_view kPhrases[] = {
      "--enable-auto-tool-choice", "--tool-call-parser",      "requires --jinja",
      "does not support tools",    "tools is not supported",  "tools are not supported",
      "does not support tool",     "tool calling is not supported",
      "function calling is not supported", "tool use is not supported",
  };
  std::string lower = AsciiLower(provider_message);
  for (std::string_view phrase : kPhrases) {
    if (lower.find(phrase) != std::string::npos) return true;
  }
  return false;
}

bool LooksLikeEventStream(std::string_view content_type, std::string_view body) {
  if (AsciiLower(content_type).find("text/event-stream") != std::string::npos) return true;
  std::size_t start = body.find_first_not_of(" \t\r\n");
  return start != std::string_view::npos && body.substr(start).starts_with("data:");
}

}  // namespace diagd::model::wire
