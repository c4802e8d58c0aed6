#include "model/openai_wire.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "core/json.h"
#include "core/json_writer.h"
#include "core/secrets.h"
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

// docs/model-endpoints.md: reasoning goes back only within the diagnosis tool loop,
// beside the tool calls it led to, and only as `replay` allows.
bool ReplaysReasoning(const ChatRequest& request, config::ReplayReasoning replay,
                      const Message& message) {
  if (request.component != Component::kDiagnosisAgent || message.role != Role::kAssistant ||
      message.tool_calls.empty() || message.reasoning.empty()) {
    return false;
  }
  switch (replay) {
    case config::ReplayReasoning::kAuto:
      return message.reasoning_source == ReasoningSource::kReasoningContent;
    case config::ReplayReasoning::kAlways:
      return message.reasoning_source != ReasoningSource::kNone;
    case config::ReplayReasoning::kNever:
      return false;
  }
  return false;
}

std::string WriteJsonString(std::string_view text) {
  std::string sanitized;
  if (!text::IsValidUtf8(text)) text = sanitized = text::SanitizeUtf8(text);
  // Written once with room to spare (a tool result's quotes grow it by a
  // tenth or so), then copied to its exact size: the written form is held
  // for the rest of the run, and a copy costs less than a pass counting
  // what escaping will add.
  std::string escaped;
  escaped.reserve(text.size() + text.size() / 4 + 16);
  json::AppendEscaped(text, escaped);
  return std::string(escaped);
}

std::string ReadJsonString(std::string_view written) {
  std::string text;
  if (json::ReadEscaped(written, text)) return text;
  // Not as WriteJsonString writes: read as any JSON string.
  auto parsed = json::Parse(written);
  if (!parsed.has_value() || !parsed->is_string()) return {};
  return std::string(parsed->get_string());
}

// A part's slack goes back: the parts live as long as the run.
std::string Fit(std::string part) {
  if (part.capacity() - part.size() > part.size() / 16) part.shrink_to_fit();
  return part;
}

// The messages a call adds, after the parts kept: streamed into written
// parts, but for shared texts (Message::shared_content), each of which goes
// in as a part of its own, shared with its message rather than copied.
class MessagesWriter {
 public:
  // `after_messages`: the kept parts already hold messages.
  MessagesWriter(std::vector<EncodedConversation::Part>& parts, std::size_t reserve,
                 bool after_messages)
      : parts_(parts), w_(Reserved(reserve), 1, after_messages) {}

  json::JsonWriter& w() { return w_; }

  // The message's content, as the value of the key just written.
  void Content(const Message& message) {
    if (!message.shared_content) {
      WriteText(w_, message.content);
      return;
    }
    // The writer goes on in a new part, inside the same containers, after
    // a value.
    const std::size_t depth = w_.depth();
    parts_.emplace_back(Fit(w_.Take()));
    parts_.emplace_back(message.shared_content.HeldAs(kJsonString));
    w_ = json::JsonWriter(std::string(), depth, true);
  }

  // The last part, written, `end` after what was written.
  void Finish(std::string_view end) {
    std::string last = w_.Take();
    last.append(end);
    parts_.emplace_back(Fit(std::move(last)));
  }

 private:
  static std::string Reserved(std::size_t reserve) {
    std::string out;
    out.reserve(reserve);
    return out;
  }

  std::vector<EncodedConversation::Part>& parts_;
  json::JsonWriter w_;
};

void WriteMessage(MessagesWriter& out, const Message& message, bool with_reasoning) {
  json::JsonWriter& w = out.w();
  w.BeginObject().Key("role").String(RoleName(message.role)).Key("content");
  if (message.role == Role::kAssistant && !message.tool_calls.empty()) {
    // OpenAI's own shape: an assistant that only calls tools has null content.
    if (!message.shared_content && message.content.empty()) {
      w.Null();
    } else {
      out.Content(message);
    }
    if (with_reasoning) {
      w.Key("reasoning_content");
      WriteText(w, message.reasoning);
    }
    w.Key("tool_calls").BeginArray();
    for (const ToolCall& call : message.tool_calls) WriteToolCall(w, call);
    w.EndArray().EndObject();
    return;
  }
  // Every other message carries a string, even an empty one: null content
  // without tool calls is refused by strict servers.
  out.Content(message);
  if (message.role == Role::kTool) {
    w.Key("tool_call_id");
    WriteText(w, message.tool_call_id);
  }
  w.EndObject();
}

// About the size of `messages` encoded: their text, and room for escaping
// (tool results are JSON, whose quotes double up).
std::size_t EncodedSizeHint(std::span<const Message> messages) {
  std::size_t size = 0;
  for (const Message& message : messages) {
    // A shared text is a part of its own.
    size += 64 + message.content.size() + message.content.size() / 4 + message.reasoning.size();
    for (const ToolCall& call : message.tool_calls) size += 96 + 2 * call.arguments.size();
  }
  return size;
}

std::size_t EncodedSizeHint(std::span<const FunctionTool> tools) {
  std::size_t size = 1024;
  for (const FunctionTool& tool : tools) {
    size += 64 + tool.description.size() + 2 * tool.parameters_schema.size();
  }
  return size;
}

// boost::hash_combine's step, for the fingerprints below.
std::uint64_t Mix(std::uint64_t seed, std::uint64_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4));
}

std::uint64_t Hash(std::string_view s) { return std::hash<std::string_view>{}(s); }

// What a body holds besides its messages. The tools are hashed (a few
// KiB, once a call); a new model, tools or replay rule means a new body.
std::uint64_t HeadFingerprint(const ChatRequest& request, std::string_view model_name,
                              config::ReplayReasoning replay) {
  std::uint64_t h = Mix(static_cast<std::uint64_t>(request.component),
                        static_cast<std::uint64_t>(replay));
  h = Mix(h, Hash(model_name));
  for (const FunctionTool& tool : OfferedTools(request)) {
    h = Mix(Mix(Mix(h, Hash(tool.name)), Hash(tool.description)), Hash(tool.parameters_schema));
  }
  return h;
}

// A message told apart by its role and sizes only: hashing its text would
// cost about what encoding it does, which is what reuse saves. Hence the
// append-only rule of ChatRequest::conversation.
std::uint64_t ShapeOf(const Message& message, bool with_reasoning) {
  const std::uint64_t content_size = message.shared_content
                                         ? message.shared_content.HeldAs(kJsonString)->size() + 1
                                         : message.content.size();
  std::uint64_t h = Mix(static_cast<std::uint64_t>(message.role), content_size);
  h = Mix(Mix(h, message.tool_call_id.size()), message.tool_calls.size());
  h = Mix(h, with_reasoning ? message.reasoning.size() + 1 : 0);
  for (const ToolCall& call : message.tool_calls) {
    h = Mix(Mix(Mix(h, call.id.size()), call.name.size()), call.arguments.size());
  }
  return h;
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

// The elements of the body's "tools" array, encoded once per shared list
// and kept for the next request that offers the same one: every run offers
// the list its agent built for the catalog (ToolList), and parsing and
// serializing its schemas for each run's first request was about 200
// allocations a run. The one list kept is the last one encoded; a request
// with another list encodes and keeps that one.
class EncodedToolsCache {
 public:
  static EncodedToolsCache& Instance() {
    static auto* cache = new EncodedToolsCache;  // never destroyed: used until exit
    return *cache;
  }

  // Writes the encoded tools of `tools` (non-empty) as array elements.
  Result<void> Write(const ToolList& tools, json::JsonWriter& w) {
    {
      std::lock_guard lock(mu_);
      if (list_.lock() == tools) {
        for (const std::string& tool : encoded_) w.Raw(tool);
        return {};
      }
    }
    std::vector<std::string> encoded;
    encoded.reserve(tools->size());
    for (const FunctionTool& tool : *tools) {
      auto object = EncodeTool(tool);
      if (!object.has_value()) return object.error();
      encoded.push_back(json::Serialize(*object));
    }
    for (const std::string& tool : encoded) w.Raw(tool);
    std::lock_guard lock(mu_);
    list_ = tools;
    encoded_ = std::move(encoded);
    return {};
  }

 private:
  std::mutex mu_;
  std::weak_ptr<const std::vector<FunctionTool>> list_;  // guarded by mu_
  std::vector<std::string> encoded_;                     // guarded by mu_: list_'s tools
};

// Everything before the messages, the messages array left open: the body
// is `head m1,m2,...]}`, so that a turn's messages are appended to it.
Result<std::string> EncodeHead(const ChatRequest& request, std::string_view model_name) {
  const std::span<const FunctionTool> tools = OfferedTools(request);
  json::JsonWriter w(EncodedSizeHint(tools));
  w.BeginObject().Key("model");
  WriteText(w, model_name);
  if (!tools.empty()) {
    w.Key("tools").BeginArray();
    if (auto written = EncodedToolsCache::Instance().Write(request.tools, w); !written) {
      return written.error();
    }
    // The harness runs one tool at a time (progress protocol); a server that
    // would batch calls must not.
    w.EndArray().Key("tool_choice").String("auto").Key("parallel_tool_calls").Bool(false);
  }
  w.Key("stream").Bool(false).Key("messages").BeginArray();
  return w.Take();
}

constexpr std::string_view kBodyEnd = "]}";  // the messages array, the body

// How many of the messages `conversation` already holds, as they are now;
// 0 when its body cannot be reused.
std::size_t ReusableMessages(const ChatRequest& request, config::ReplayReasoning replay,
                             std::uint64_t head, const EncodedConversation& conversation) {
  if (conversation.parts.empty() ||
      !EncodedConversation::BytesOf(conversation.parts.back()).ends_with(kBodyEnd) ||
      conversation.head != head || conversation.shapes.size() > request.messages.size()) {
    return 0;
  }
  for (std::size_t i = 0; i < conversation.shapes.size(); ++i) {
    const Message& message = request.messages[i];
    if (conversation.shapes[i] != ShapeOf(message, ReplaysReasoning(request, replay, message))) {
      return 0;
    }
  }
  return conversation.shapes.size();
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

const SharedText::Form kJsonString{&WriteJsonString, &ReadJsonString};

std::string_view EncodedConversation::BytesOf(const Part& part) {
  if (const auto* shared = std::get_if<std::shared_ptr<const std::string>>(&part)) {
    return **shared;
  }
  return std::get<std::string>(part);
}

std::size_t EncodedConversation::BodySize() const {
  std::size_t size = 0;
  for (const Part& part : parts) size += BytesOf(part).size();
  return size;
}

std::string EncodedConversation::Body() const {
  std::string body;
  body.reserve(BodySize());
  for (const Part& part : parts) body += BytesOf(part);
  return body;
}

void EncodedConversation::Join() {
  if (parts.size() < 2) return;
  // One copy of the body, exactly sized: `parts = {Body()}` made a second
  // (the initializer list is copied from), and a run joins every turn.
  std::string body = Body();
  parts.clear();
  parts.push_back(std::move(body));
}

Result<void> EncodeRequestInto(const ChatRequest& request, std::string_view model_name,
                               config::ReplayReasoning replay, EncodedConversation& conversation) {
  // Streamed, not built as a document first: a late turn carries every
  // earlier tool result, and copying it into a tree costs as much again.
  const std::uint64_t head = HeadFingerprint(request, model_name, replay);
  const std::size_t reused = ReusableMessages(request, replay, head, conversation);
  EncodedConversation next;
  next.parts = std::move(conversation.parts);
  next.head = head;
  next.shapes = std::move(conversation.shapes);
  conversation.parts.clear();
  conversation.shapes.clear();
  if (reused > 0) {
    // The closing "]}" goes after the new messages.
    std::string& last = std::get<std::string>(next.parts.back());
    last.resize(last.size() - kBodyEnd.size());
  } else {
    auto encoded_head = EncodeHead(request, model_name);
    if (!encoded_head.has_value()) return encoded_head.error();
    next.parts.clear();
    next.parts.emplace_back(std::move(*encoded_head));
    next.shapes.clear();
  }
  const std::span<const Message> added = std::span(request.messages).subspan(reused);
  if (added.empty()) {
    std::get<std::string>(next.parts.back()).append(kBodyEnd);
  } else {
    // Inside the messages array, after the messages earlier parts hold.
    MessagesWriter out(next.parts, EncodedSizeHint(added) + kBodyEnd.size(), reused > 0);
    for (const Message& message : added) {
      const bool with_reasoning = ReplaysReasoning(request, replay, message);
      WriteMessage(out, message, with_reasoning);
      next.shapes.push_back(ShapeOf(message, with_reasoning));
    }
    out.Finish(kBodyEnd);
  }
  conversation.parts = std::move(next.parts);
  conversation.head = next.head;
  conversation.shapes = std::move(next.shapes);
  return {};
}

Result<std::string> EncodeRequest(const ChatRequest& request, std::string_view model_name,
                                  config::ReplayReasoning replay) {
  EncodedConversation conversation;
  if (auto encoded = EncodeRequestInto(request, model_name, replay, conversation); !encoded) {
    return encoded.error();
  }
  return conversation.Body();
}

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
