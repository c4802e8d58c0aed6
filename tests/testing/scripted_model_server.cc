#include "testing/scripted_model_server.h"

#include <type_traits>
#include <utility>

#include "core/json.h"

namespace diagd::testing {
namespace {

namespace bj = boost::json;

bj::value UsageJson(const std::optional<ScriptedUsage>& usage) {
  if (!usage) return nullptr;
  bj::object out;
  out["prompt_tokens"] = usage->prompt_tokens;
  out["completion_tokens"] = usage->completion_tokens;
  if (usage->total_tokens) out["total_tokens"] = *usage->total_tokens;
  return out;
}

// A complete chat.completion object around `message`.
std::string Completion(bj::object message, const std::optional<ScriptedUsage>& usage) {
  bj::object choice;
  choice["index"] = 0;
  choice["message"] = std::move(message);
  choice["finish_reason"] =
      choice.at("message").as_object().contains("tool_calls") ? "tool_calls" : "stop";
  bj::object body;
  body["id"] = "chatcmpl-scripted";
  body["object"] = "chat.completion";
  body["created"] = 1700000000;
  body["model"] = "scripted";
  body["choices"] = bj::array{std::move(choice)};
  if (bj::value u = UsageJson(usage); !u.is_null()) body["usage"] = std::move(u);
  return json::Serialize(body);
}

bj::array ToolCallsJson(const std::vector<ScriptedToolCall>& calls) {
  bj::array out;
  for (const ScriptedToolCall& call : calls) {
    bj::object function{{"name", call.name}};
    if (call.arguments_as_object) {
      function["arguments"] = json::Parse(call.arguments_json).value();  // test input: must parse
    } else {
      function["arguments"] = call.arguments_json;
    }
    bj::object one;
    if (!call.id.empty()) one["id"] = call.id;
    one["type"] = "function";
    one["function"] = std::move(function);
    out.push_back(std::move(one));
  }
  return out;
}

std::string ErrorBody(std::string_view message) {
  bj::object error;
  error["message"] = message;
  error["type"] = "scripted_error";
  return json::Serialize(bj::object{{"error", std::move(error)}});
}

LoopbackHttpServer::Response Json(int status, std::string body) {
  LoopbackHttpServer::Response response;
  response.status = status;
  response.content_type = "application/json";
  response.body = std::move(body);
  return response;
}

// The one place a reply becomes HTTP, whether it came from the script or
// from a responder.
LoopbackHttpServer::Response ToResponse(const ScriptedReply& reply) {
  LoopbackHttpServer::Response response = std::visit(
      [](const auto& what) -> LoopbackHttpServer::Response {
        using What = std::decay_t<decltype(what)>;
        if constexpr (std::is_same_v<What, ScriptedAnswer>) {
          bj::object message{{"role", "assistant"}, {"content", what.content}};
          return Json(200, Completion(std::move(message), what.usage));
        } else if constexpr (std::is_same_v<What, ScriptedToolCalls>) {
          bj::object message{{"role", "assistant"}, {"content", nullptr}};
          message["tool_calls"] = ToolCallsJson(what.calls);
          return Json(200, Completion(std::move(message), what.usage));
        } else if constexpr (std::is_same_v<What, ScriptedFailure>) {
          return Json(what.status, ErrorBody(what.message));
        } else if constexpr (std::is_same_v<What, ScriptedRawAnswer>) {
          LoopbackHttpServer::Response raw;
          raw.status = what.status;
          raw.content_type = what.content_type;
          raw.body = what.body;
          raw.headers = what.headers;
          return raw;
        } else {
          static_assert(std::is_same_v<What, ScriptedHangUp>);
          LoopbackHttpServer::Response hang_up;
          hang_up.hang_up = true;
          return hang_up;
        }
      },
      reply.what);
  response.delay = reply.delay;
  return response;
}

}  // namespace

ScriptedModelServer::ScriptedModelServer() : ScriptedModelServer(Responder{}) {}

ScriptedModelServer::ScriptedModelServer(Responder responder)
    : responder_(std::move(responder)),
      server_([this](LoopbackHttpServer::Request&& request) { return Play(std::move(request)); }) {
  server_.set_record_requests(false);  // we keep our own, with the JSON parsed
}

ScriptedModelServer& ScriptedModelServer::Answer(std::string content,
                                                 std::optional<ScriptedUsage> usage) {
  return Then({ScriptedAnswer{std::move(content), usage}});
}

ScriptedModelServer& ScriptedModelServer::CallTools(std::vector<ScriptedToolCall> calls,
                                                    std::optional<ScriptedUsage> usage) {
  return Then({ScriptedToolCalls{std::move(calls), usage}});
}

ScriptedModelServer& ScriptedModelServer::AnswerAfter(std::chrono::milliseconds delay,
                                                      std::string content) {
  return Then({ScriptedAnswer{std::move(content)}, delay});
}

ScriptedModelServer& ScriptedModelServer::FailWithStatus(int status, std::string error_message) {
  return Then({ScriptedFailure{status, std::move(error_message)}});
}

ScriptedModelServer& ScriptedModelServer::AnswerHtml() {
  return AnswerRaw(200, "text/html",
                   "<!DOCTYPE html><html><head><title>Welcome</title></head>"
                   "<body><h1>Sign in to continue</h1></body></html>");
}

ScriptedModelServer& ScriptedModelServer::AnswerRaw(
    int status, std::string content_type, std::string body,
    std::vector<std::pair<std::string, std::string>> headers) {
  return Then(
      {ScriptedRawAnswer{status, std::move(content_type), std::move(body), std::move(headers)}});
}

ScriptedModelServer& ScriptedModelServer::HangUp() { return Then({ScriptedHangUp{}}); }

ScriptedModelServer& ScriptedModelServer::Then(ScriptedReply reply) {
  std::lock_guard<std::mutex> lock(mu_);
  script_.push_back(std::move(reply));
  return *this;
}

std::vector<ScriptedModelServer::RecordedRequest> ScriptedModelServer::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

std::size_t ScriptedModelServer::Remaining() const {
  std::lock_guard<std::mutex> lock(mu_);
  return script_.size();
}

void ScriptedModelServer::set_keep_alive(bool keep_alive) { server_.set_keep_alive(keep_alive); }

void ScriptedModelServer::set_record_requests(bool record) {
  std::lock_guard<std::mutex> lock(mu_);
  record_ = record;
}

LoopbackHttpServer::Response ScriptedModelServer::Play(LoopbackHttpServer::Request&& request) {
  RecordedRequest recorded{std::move(request.method), std::move(request.target),
                           std::move(request.headers), std::move(request.body), nullptr};
  bool record = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    record = record_;
  }
  // Parsing a long conversation costs more than answering it: a load driver
  // that does not record reads the body text instead.
  if (record) {
    if (auto parsed = json::Parse(recorded.body); parsed.has_value()) recorded.json = *parsed;
  }
  bool completion = recorded.method == "POST" && recorded.target == "/v1/chat/completions";

  ScriptedReply reply;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Kept before the responder sees it, so a test that finds a reply also
    // finds its request.
    if (record_) requests_.push_back(recorded);
    if (!completion) return Json(404, ErrorBody("no such route"));
    if (!responder_) {
      if (script_.empty()) return Json(500, ErrorBody("script exhausted"));
      reply = std::move(script_.front());
      script_.pop_front();
    }
  }
  // Outside the lock: the responder may read `Requests()` or add turns.
  if (responder_) reply = responder_(recorded);
  return ToResponse(reply);
}

}  // namespace diagd::testing
