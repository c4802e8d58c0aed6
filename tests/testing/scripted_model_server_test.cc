#include "testing/scripted_model_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/json.h"
#include "http/http_client.h"

namespace diagd::testing {
namespace {

namespace bj = boost::json;
using std::chrono::milliseconds;

// A chat-completions request from `component` whose conversation already
// holds `tool_messages` tool results.
http::Request Chat(const ScriptedModelServer& server, const std::string& component,
                   int tool_messages) {
  bj::array messages{bj::object{{"role", "user"}, {"content", "why is checkout slow?"}}};
  for (int i = 0; i < tool_messages; ++i) {
    messages.push_back(bj::object{
        {"role", "tool"}, {"tool_call_id", "c" + std::to_string(i)}, {"content", "rows"}});
  }
  http::Request request;
  request.url = server.BaseUrl() + "/chat/completions";
  request.headers = {{"Content-Type", "application/json"}, {"X-Diagd-Component", component}};
  request.body = json::Serialize(bj::object{{"model", "m"}, {"messages", std::move(messages)}});
  request.timeout = milliseconds(60000);
  return request;
}

int ToolMessages(const ScriptedModelServer::RecordedRequest& request) {
  int count = 0;
  for (const bj::value& message : request.json.at("messages").as_array()) {
    if (message.at("role") == "tool") ++count;
  }
  return count;
}

bj::object FirstMessage(const http::Response& response) {
  return json::Parse(response.body).value().at("choices").at(0).at("message").as_object();
}

// What the assistant said: its text, or "tool <arguments>" for a tool call.
// Never throws: it runs on client threads.
std::string Said(const http::Response& response) {
  if (response.status != 200 || !json::Parse(response.body).has_value()) {
    return std::to_string(response.status) + ": " + response.body;
  }
  bj::object message = FirstMessage(response);
  if (!message.contains("tool_calls")) return std::string(message.at("content").as_string());
  const bj::value& function = message.at("tool_calls").at(0).at("function");
  return "tool " + std::string(function.at("arguments").as_string());
}

TEST(ScriptedModelServer, ResponderAnswersEachConcurrentConversationFromItsOwnRequest) {
  ScriptedModelServer server([](const ScriptedModelServer::RecordedRequest& request) {
    int tools = ToolMessages(request);
    if (request.headers.at("x-diagd-component") == "ROUTER") {
      return ScriptedReply{ScriptedAnswer{R"({"route":"DIAGNOSIS"})"}};
    }
    if (tools < 2) {
      std::string arguments = R"({"round":)" + std::to_string(tools) + "}";
      return ScriptedReply{
          ScriptedToolCalls{{{"call-" + std::to_string(tools), "search_logs", arguments}}},
          milliseconds(100)};
    }
    return ScriptedReply{ScriptedAnswer{"diagnosed after " + std::to_string(tools) + " tools",
                                        ScriptedUsage{7, 3, 10}},
                         milliseconds(100)};
  });

  constexpr int kConversations = 60;
  std::vector<std::string> seen(kConversations);
  std::vector<std::thread> threads;
  for (int i = 0; i < kConversations; ++i) {
    threads.emplace_back([&, i] {
      auto response = http::Send(Chat(server, i % 4 == 0 ? "ROUTER" : "DIAGNOSIS_AGENT", i % 3));
      seen[i] = response.has_value() ? Said(*response) : "failed: " + response.error().message;
    });
  }
  for (auto& t : threads) t.join();

  for (int i = 0; i < kConversations; ++i) {
    std::string expected = i % 4 == 0  ? R"({"route":"DIAGNOSIS"})"
                           : i % 3 < 2 ? R"(tool {"round":)" + std::to_string(i % 3) + "}"
                                       : "diagnosed after 2 tools";
    EXPECT_EQ(seen[i], expected) << "conversation " << i;
  }
  EXPECT_EQ(server.Requests().size(), static_cast<std::size_t>(kConversations));
}

TEST(ScriptedModelServer, ScriptAndResponderBuildTheSameAnswer) {
  ScriptedModelServer scripted;
  scripted.Answer("同一个答案", ScriptedUsage{1, 2, std::nullopt})
      .Then({ScriptedToolCalls{{{"c1", "search_logs", R"({"q":"timeout"})"}}}});
  ScriptedModelServer responding([](const ScriptedModelServer::RecordedRequest& request) {
    if (ToolMessages(request) == 0) {
      return ScriptedReply{ScriptedAnswer{"同一个答案", ScriptedUsage{1, 2, std::nullopt}}};
    }
    return ScriptedReply{ScriptedToolCalls{{{"c1", "search_logs", R"({"q":"timeout"})"}}}};
  });
  for (int tools : {0, 1}) {
    auto from_script = http::Send(Chat(scripted, "ROUTER", tools));
    auto from_responder = http::Send(Chat(responding, "ROUTER", tools));
    ASSERT_TRUE(from_script.has_value() && from_responder.has_value());
    EXPECT_EQ(from_script->body, from_responder->body);
  }
  EXPECT_EQ(scripted.Remaining(), 0u);
}

TEST(ScriptedModelServer, ResponderHangsUpAndFailsOnRequest) {
  ScriptedModelServer server([](const ScriptedModelServer::RecordedRequest& request) {
    if (request.headers.at("x-diagd-component") == "ROUTER") return ScriptedReply{ScriptedHangUp{}};
    return ScriptedReply{ScriptedFailure{429, "slow down"}};
  });
  EXPECT_FALSE(http::Send(Chat(server, "ROUTER", 0)).has_value());
  auto failed = http::Send(Chat(server, "DIAGNOSIS_AGENT", 0));
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->status, 429);
  EXPECT_EQ(json::Parse(failed->body).value().at("error").at("message"), "slow down");
}

TEST(ScriptedModelServer, KeepsNoRequestsOnceRecordingIsOffButStillAnswersFromTheBody) {
  std::atomic<int> asked{0};
  ScriptedModelServer server([&](const ScriptedModelServer::RecordedRequest& request) {
    ++asked;
    // Not recording, the server does not parse the body either.
    EXPECT_TRUE(request.json.is_null());
    int tools = 0;
    for (auto at = request.body.find(R"("role":"tool")"); at != std::string::npos;
         at = request.body.find(R"("role":"tool")", at + 1)) {
      ++tools;
    }
    return ScriptedReply{ScriptedAnswer{std::to_string(tools)}};
  });
  server.set_record_requests(false);
  auto response = http::Send(Chat(server, "ROUTER", 3));
  ASSERT_TRUE(response.has_value()) << response.error().message;
  EXPECT_EQ(FirstMessage(*response).at("content"), "3");
  EXPECT_EQ(asked, 1);
  EXPECT_TRUE(server.Requests().empty());
}

// The raw bytes of the answer to one POST to /v1/chat/completions: the
// project's HTTP client keeps only some headers, and this test is about all
// of them.
std::string RawExchange(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "socket failed";
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return "connect failed";
  }
  const std::string request =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
  if (::send(fd, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return "send failed";
  }
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0;) answer.append(buffer, n);
  ::close(fd);
  return answer;
}

TEST(ScriptedModelServer, RawAnswerSendsItsExtraHeaders) {
  ScriptedModelServer server;
  server.AnswerRaw(429, "application/json", R"({"error":{"message":"slow down"}})",
                   {{"Retry-After", "2"}, {"X-Request-Id", "req-7"}});
  server.AnswerRaw(200, "text/plain", "no extra headers");
  const std::string limited = RawExchange(server.port());
  EXPECT_EQ(limited.rfind("HTTP/1.1 429", 0), 0u) << limited;
  EXPECT_NE(limited.find("\r\nRetry-After: 2\r\n"), std::string::npos) << limited;
  EXPECT_NE(limited.find("\r\nX-Request-Id: req-7\r\n"), std::string::npos) << limited;
  EXPECT_NE(limited.find("\r\nContent-Type: application/json\r\n"), std::string::npos);
  EXPECT_NE(limited.find("slow down"), std::string::npos);
  const std::string plain = RawExchange(server.port());
  EXPECT_EQ(plain.rfind("HTTP/1.1 200", 0), 0u) << plain;
  EXPECT_EQ(plain.find("Retry-After"), std::string::npos) << plain;
}

TEST(ScriptedModelServer, ResponderSendsRawHeadersToo) {
  ScriptedModelServer server([](const ScriptedModelServer::RecordedRequest&) {
    return ScriptedReply{ScriptedRawAnswer{503, "application/json", "{}", {{"Retry-After", "7"}}}};
  });
  const std::string answer = RawExchange(server.port());
  EXPECT_EQ(answer.rfind("HTTP/1.1 503", 0), 0u) << answer;
  EXPECT_NE(answer.find("\r\nRetry-After: 7\r\n"), std::string::npos) << answer;
}

}  // namespace
}  // namespace diagd::testing
