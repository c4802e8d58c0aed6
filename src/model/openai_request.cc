// The request side of the Chat Completions wire (openai_wire.h): a
// request's body, written whole or grown from the conversation's last one.
#include "model/openai_wire.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

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

}  // namespace diagd::model::wire
