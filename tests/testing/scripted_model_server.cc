#include "testing/scripted_model_server.h"

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

}  // namespace

ScriptedModelServer::ScriptedModelServer()
    : server_([this](const LoopbackHttpServer::Request& request) { return Play(request); }) {}

ScriptedModelServer& ScriptedModelServer::Answer(std::string content,
                                                 std::optional<ScriptedUsage> usage) {
  bj::object message{{"role", "assistant"}, {"content", content}};
  return Push(Json(200, Completion(std::move(message), usage)));
}

ScriptedModelServer& ScriptedModelServer::CallTools(std::vector<ScriptedToolCall> calls,
                                                    std::optional<ScriptedUsage> usage) {
  bj::array tool_calls;
  for (const ScriptedToolCall& call : calls) {
    bj::object function{{"name", call.name}};
    if (call.arguments_as_object) {
      function["arguments"] = json::Parse(call.arguments_json).value();  // test input: must parse
    } else {
      function["arguments"] = call.arguments_json;
    }
    bj::object out;
    if (!call.id.empty()) out["id"] = call.id;
    out["type"] = "function";
    out["function"] = std::move(function);
    tool_calls.push_back(std::move(out));
  }
  bj::object message{{"role", "assistant"}, {"content", nullptr}};
  message["tool_calls"] = std::move(tool_calls);
  return Push(Json(200, Completion(std::move(message), usage)));
}

ScriptedModelServer& ScriptedModelServer::AnswerAfter(std::chrono::milliseconds delay,
                                                      std::string content) {
  bj::object message{{"role", "assistant"}, {"content", content}};
  auto response = Json(200, Completion(std::move(message), ScriptedUsage{}));
  response.delay = delay;
  return Push(std::move(response));
}

ScriptedModelServer& ScriptedModelServer::FailWithStatus(int status, std::string error_message) {
  return Push(Json(status, ErrorBody(error_message)));
}

ScriptedModelServer& ScriptedModelServer::AnswerHtml() {
  return AnswerRaw(200, "text/html",
                   "<!DOCTYPE html><html><head><title>Welcome</title></head>"
                   "<body><h1>Sign in to continue</h1></body></html>");
}

ScriptedModelServer& ScriptedModelServer::AnswerRaw(int status, std::string content_type,
                                                    std::string body) {
  LoopbackHttpServer::Response response;
  response.status = status;
  response.content_type = std::move(content_type);
  response.body = std::move(body);
  return Push(std::move(response));
}

ScriptedModelServer& ScriptedModelServer::HangUp() {
  LoopbackHttpServer::Response response;
  response.hang_up = true;
  return Push(std::move(response));
}

std::vector<ScriptedModelServer::RecordedRequest> ScriptedModelServer::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

std::size_t ScriptedModelServer::Remaining() const {
  std::lock_guard<std::mutex> lock(mu_);
  return script_.size();
}

ScriptedModelServer& ScriptedModelServer::Push(LoopbackHttpServer::Response response) {
  std::lock_guard<std::mutex> lock(mu_);
  script_.push_back(std::move(response));
  return *this;
}

LoopbackHttpServer::Response ScriptedModelServer::Play(const LoopbackHttpServer::Request& request) {
  RecordedRequest recorded{request.method, request.target, request.headers, request.body, nullptr};
  if (auto parsed = json::Parse(request.body); parsed.has_value()) recorded.json = *parsed;

  std::lock_guard<std::mutex> lock(mu_);
  requests_.push_back(std::move(recorded));
  if (request.method != "POST" || request.target != "/v1/chat/completions") {
    return Json(404, ErrorBody("no such route"));
  }
  if (script_.empty()) return Json(500, ErrorBody("script exhausted"));
  LoopbackHttpServer::Response next = std::move(script_.front());
  script_.pop_front();
  return next;
}

}  // namespace diagd::testing
