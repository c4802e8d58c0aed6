#include "model/openai_wire.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "core/json.h"
#include "core/json_writer.h"
#include "core/text.h"

namespace diagd::model::wire {
namespace {

namespace bj = boost::json;

// Provider and caller text may hold bad bytes; the wire must be valid UTF-8
// (a strict server refuses the request otherwise).
bj::string Utf8(std::string_view s) {
  if (text::IsValidUtf8(s)) return bj::string(s);
  return bj::string(text::SanitizeUtf8(s));
}

// The same rule, written straight into a request being streamed.
void WriteText(json::JsonWriter& w, std::string_view s) {
  if (text::IsValidUtf8(s)) {
    w.String(s);
  } else {
    w.String(text::SanitizeUtf8(s));
  }
}

void WriteToolCall(json::JsonWriter& w, const ToolCall& call) {
  w.BeginObject().Key("id");
  WriteText(w, call.id);
  w.Key("type").String("function").Key("function").BeginObject().Key("name");
  WriteText(w, call.name);
  w.Key("arguments");
  WriteText(w, call.arguments);
  w.EndObject().EndObject();
}

void WriteMessage(json::JsonWriter& w, const Message& message) {
  w.BeginObject().Key("role").String(RoleName(message.role)).Key("content");
  if (message.role == Role::kAssistant && !message.tool_calls.empty()) {
    // OpenAI's own shape: an assistant that only calls tools has null content.
    if (message.content.empty()) {
      w.Null();
    } else {
      WriteText(w, message.content);
    }
    w.Key("tool_calls").BeginArray();
    for (const ToolCall& call : message.tool_calls) WriteToolCall(w, call);
    w.EndArray().EndObject();
    return;
  }
  // Every other message carries a string, even an empty one: null content
  // without tool calls is refused by strict servers.
  WriteText(w, message.content);
  if (message.role == Role::kTool) {
    w.Key("tool_call_id");
    WriteText(w, message.tool_call_id);
  }
  w.EndObject();
}

// About the size of the encoded request: its text, and room for escaping
// (tool results are JSON, whose quotes double up).
std::size_t EncodedSizeHint(const ChatRequest& request) {
  std::size_t size = 1024;
  for (const Message& message : request.messages) {
    size += 64 + message.content.size() + message.content.size() / 4;
    for (const ToolCall& call : message.tool_calls) size += 96 + 2 * call.arguments.size();
  }
  for (const FunctionTool& tool : request.tools) {
    size += 64 + tool.description.size() + 2 * tool.parameters_schema.size();
  }
  return size;
}

Result<bj::object> EncodeTool(const FunctionTool& tool) {
  bj::value parameters = bj::object{{"type", "object"}, {"properties", bj::object()}};
  if (!text::IsBlank(tool.parameters_schema)) {
    auto parsed = json::Parse(tool.parameters_schema);
    if (!parsed.has_value() || !parsed->is_object()) {
      return Error::InvalidArgument("tool " + std::string(Utf8(tool.name)) +
                                    ": parameters schema is not a JSON object");
    }
    parameters = std::move(*parsed);
  }
  bj::object function;
  function["name"] = Utf8(tool.name);
  function["description"] = Utf8(tool.description);
  function["parameters"] = std::move(parameters);
  bj::object out;
  out["type"] = "function";
  out["function"] = std::move(function);
  return out;
}

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

}  // namespace

Result<std::string> EncodeRequest(const ChatRequest& request, std::string_view model_name) {
  // Streamed, not built as a document first: a late turn carries every
  // earlier tool result, and copying it into a tree costs as much again.
  json::JsonWriter w(EncodedSizeHint(request));
  w.BeginObject().Key("model");
  WriteText(w, model_name);
  w.Key("messages").BeginArray();
  for (const Message& message : request.messages) WriteMessage(w, message);
  w.EndArray();
  if (!request.tools.empty()) {
    w.Key("tools").BeginArray();
    for (const FunctionTool& tool : request.tools) {
      auto encoded = EncodeTool(tool);
      if (!encoded.has_value()) return encoded.error();
      w.Raw(json::Serialize(*encoded));
    }
    // The harness runs one tool at a time (progress protocol); a server that
    // would batch calls must not.
    w.EndArray().Key("tool_choice").String("auto").Key("parallel_tool_calls").Bool(false);
  }
  w.Key("stream").Bool(false).EndObject();
  std::string body = w.Take();
  // The body lives while the model answers, once per waiting run: the
  // hint's slack (it guesses high, to grow at most once) goes back first.
  if (body.capacity() - body.size() > body.size() / 16) body.shrink_to_fit();
  return body;
}

Result<ChatResponse> DecodeResponse(std::string_view body) {
  auto parsed = ParseLenient(body);
  if (!parsed.has_value()) {
    return Error::Internal("response is not JSON (" + std::to_string(body.size()) + " bytes)");
  }
  if (!parsed->is_object()) {
    return Error::Internal(std::string("response: expected a JSON object, got ") +
                           json::KindName(*parsed));
  }
  const bj::object& root = parsed->get_object();
  const bj::value* choices = root.if_contains("choices");
  if (choices == nullptr || !choices->is_array() || choices->get_array().empty()) {
    return Error::Internal("response has no choices");
  }
  const bj::value& first = choices->get_array().front();
  const bj::value* message =
      first.is_object() ? first.get_object().if_contains("message") : nullptr;
  if (message == nullptr || !message->is_object()) {
    return Error::Internal("response choices[0].message: expected an object");
  }
  const bj::object& message_object = message->get_object();

  ChatResponse response;
  response.message.role = Role::kAssistant;
  auto content = DecodeContent(message_object.if_contains("content"));
  if (!content.has_value()) return content.error();
  response.message.content = std::move(*content);

  const bj::value* tool_calls = message_object.if_contains("tool_calls");
  if (tool_calls != nullptr && !tool_calls->is_null()) {
    if (!tool_calls->is_array()) {
      return Error::Internal(std::string("response tool_calls: expected an array, got ") +
                             json::KindName(*tool_calls));
    }
    const bj::array& calls = tool_calls->get_array();
    response.message.tool_calls.reserve(calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i) {
      auto call = DecodeToolCall(calls[i], i);
      if (!call.has_value()) return call.error();
      response.message.tool_calls.push_back(std::move(*call));
    }
  }
  response.usage = DecodeUsage(root);
  return response;
}

std::string ProviderErrorMessage(std::string_view body, std::string_view secret) {
  auto parsed = ParseLenient(body);
  if (!parsed.has_value() || !parsed->is_object()) return "";
  const bj::object& root = parsed->get_object();
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

  // Scrub before collapsing and cutting, so that no part of the key survives
  // at the cut.
  std::string message = ScrubSecret(std::string(*found), secret);
  return text::TruncateCodePoints(text::CollapseWhitespace(message), kMaxProviderMessageChars);
}

std::string ScrubSecret(std::string message, std::string_view secret) {
  if (secret.empty()) return message;
  for (std::size_t at = message.find(secret); at != std::string::npos;
       at = message.find(secret, at + 3)) {
    message.replace(at, secret.size(), "***");
  }
  return message;
}

}  // namespace diagd::model::wire
