// A scripted OpenAI-compatible model server on a real loopback socket, for
// tests that drive the real model client over real HTTP. It answers
// `POST /v1/chat/completions` with a `ScriptedReply` (an assistant reply, or
// a fault) and records every request with its JSON body parsed. It plays a
// script; it does not think.
//
// Two modes:
// - a script (default constructor): replies are queued with `Answer`,
//   `CallTools`... and played in order, one per request; a request after the
//   script is exhausted gets a 500 "script exhausted".
// - a responder (constructed with a `Responder`): it is asked for the reply
//   to every request, so that many concurrent conversations each get answers
//   that depend on their own request; queued turns are then never played.
//
// Anything but `POST /v1/chat/completions` gets a 404 and consumes no turn.
//
// Thread safety: turns may be added and requests read from any thread while
// the client calls. The responder runs on the server's I/O thread, one
// request at a time: it must be quick and must not block (use
// `ScriptedReply::delay` to answer late).
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <variant>
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

// The replies a scripted model server can give.
struct ScriptedAnswer {  // an assistant message with text content
  std::string content;
  std::optional<ScriptedUsage> usage = ScriptedUsage{};  // nullopt: left out
};
struct ScriptedToolCalls {  // an assistant message with tool calls and null content
  std::vector<ScriptedToolCall> calls;
  std::optional<ScriptedUsage> usage = ScriptedUsage{};  // nullopt: left out
};
struct ScriptedFailure {  // an OpenAI-style error body {"error":{"message":...}}
  int status = 500;
  std::string message;
};
struct ScriptedRawAnswer {  // any status, content type, body and extra headers
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // Extra response headers, for example {"Retry-After", "2"} on a 429.
  std::vector<std::pair<std::string, std::string>> headers = {};
};
struct ScriptedHangUp {};  // the connection closes without an answer

struct ScriptedReply {
  std::variant<ScriptedAnswer, ScriptedToolCalls, ScriptedFailure, ScriptedRawAnswer,
               ScriptedHangUp>
      what;
  std::chrono::milliseconds delay{0};  // before answering; the destructor cuts it short
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

  // Asked for the reply to every `POST /v1/chat/completions`.
  using Responder = std::function<ScriptedReply(const RecordedRequest&)>;

  // Plays the queued script.
  ScriptedModelServer();
  // Answers every request with `responder`.
  explicit ScriptedModelServer(Responder responder);

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
  // `choices`, `choices: []`, malformed tool calls... `headers` are sent
  // besides Content-Type (a `Retry-After` on a 429 or 503).
  ScriptedModelServer& AnswerRaw(int status, std::string content_type, std::string body,
                                 std::vector<std::pair<std::string, std::string>> headers = {});
  // Closes the connection without answering.
  ScriptedModelServer& HangUp();
  // A turn of any kind, with any delay.
  ScriptedModelServer& Then(ScriptedReply reply);

  std::vector<RecordedRequest> Requests() const;
  std::size_t Remaining() const;
  // On by default; a benchmark sending thousands of requests turns it off so
  // as not to keep (or parse) every body: the responder still sees each
  // request, with `json` null, and reads `body`.
  void set_record_requests(bool record);
  // LoopbackHttpServer::set_keep_alive: off by default.
  void set_keep_alive(bool keep_alive);

 private:
  LoopbackHttpServer::Response Play(LoopbackHttpServer::Request&& request);

  const Responder responder_;  // empty: play the script
  mutable std::mutex mu_;
  std::deque<ScriptedReply> script_;
  bool record_ = true;
  std::vector<RecordedRequest> requests_;
  // Last: its I/O thread calls `Play`, so it must stop before the script and
  // the responder die.
  LoopbackHttpServer server_;
};

}  // namespace diagd::testing
