// A scripted OpenAI-compatible model server on a real loopback socket, for
// tests that drive the real model client over real HTTP. It answers
// `POST /v1/chat/completions` with the next scripted turn (an assistant
// reply, or a fault) and records every request with its JSON body parsed.
// It plays a script; it does not think.
//
// Anything but `POST /v1/chat/completions` gets a 404 and consumes no turn;
// a request after the script is exhausted gets a 500 "script exhausted".
//
// Thread safety: turns may be added and requests read from any thread while
// the client calls; turns are played in order.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "testing/loopback_http_server.h"

namespace diagd::testing {

struct ScriptedUsage {
  std::int64_t prompt_tokens = 100;
  std::int64_t completion_tokens = 20;
  std::optional<std::int64_t> total_tokens = 120;  // nullopt: the field is left out
};

struct ScriptedToolCall {
  std::string id;  // empty: the field is left out
  std::string name;
  std::string arguments_json;  // JSON text
  // Send `arguments` as a JSON object rather than as a string holding JSON
  // (some servers do); `arguments_json` must then be an object.
  bool arguments_as_object = false;
};

class ScriptedModelServer {
 public:
  struct RecordedRequest {
    std::string method;
    std::string target;
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
    boost::json::value json;  // the parsed body; null when it is not JSON
  };

  ScriptedModelServer();

  // "http://127.0.0.1:<port>/v1", the `base_url` a client is configured with.
  std::string BaseUrl() const { return server_.BaseUrl() + "/v1"; }
  int port() const { return server_.port(); }

  // A text answer; `usage` nullopt leaves `usage` out of the response.
  ScriptedModelServer& Answer(std::string content,
                              std::optional<ScriptedUsage> usage = ScriptedUsage{});
  // An assistant message with these tool calls and null content.
  ScriptedModelServer& CallTools(std::vector<ScriptedToolCall> calls,
                                 std::optional<ScriptedUsage> usage = ScriptedUsage{});
  // A text answer sent only after `delay` (longer than the client's timeout
  // makes a timeout; the server's destructor cuts the wait short).
  ScriptedModelServer& AnswerAfter(std::chrono::milliseconds delay, std::string content);
  // An error status with an OpenAI-style error body {"error":{"message":...}}.
  ScriptedModelServer& FailWithStatus(int status, std::string error_message);
  // A 200 with an HTML page, as a misconfigured proxy sends.
  ScriptedModelServer& AnswerHtml();
  // Any status, content type and body: non-JSON text, JSON without
  // `choices`, `choices: []`, malformed tool calls...
  ScriptedModelServer& AnswerRaw(int status, std::string content_type, std::string body);
  // Closes the connection without answering.
  ScriptedModelServer& HangUp();

  std::vector<RecordedRequest> Requests() const;
  std::size_t Remaining() const;

 private:
  LoopbackHttpServer::Response Play(const LoopbackHttpServer::Request& request);
  ScriptedModelServer& Push(LoopbackHttpServer::Response response);

  mutable std::mutex mu_;
  std::deque<LoopbackHttpServer::Response> script_;
  std::vector<RecordedRequest> requests_;
  // Last: its threads call `Play`, so it must stop before the script dies.
  LoopbackHttpServer server_;
};

}  // namespace diagd::testing
