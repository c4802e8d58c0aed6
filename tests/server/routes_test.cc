// Every route of docs/server.md and its errors, over real sockets,
// against an in-process server over the demo workspace with the offline
// provider (a rule-based agent, no model).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "server/json_body.h"
#include "server/server_fixture.h"

namespace diagd::server::testing {
namespace {

constexpr const char* kQuestion = R"({"message":"订单服务从 10 点左右开始大量 500，为什么？"})";

void ExpectError(const HttpReply& reply, int status, const std::string& code) {
  EXPECT_EQ(reply.status, status) << reply.body;
  auto body = Json(reply.body);
  ASSERT_TRUE(body.contains("error")) << reply.body;
  EXPECT_EQ(body.at("error").at("code"), code.c_str()) << reply.body;
  EXPECT_TRUE(body.at("error").at("message").is_string());
  EXPECT_EQ(reply.headers.at("content-type"), "application/json; charset=utf-8");
}

class RoutesTest : public ::testing::Test {
 protected:
  ServerFixture server_{{}};
};

TEST_F(RoutesTest, ChatStreamsNamedEventsWithCountingIdsThenCloses) {
  SseStream stream(server_.port(), "POST", "/api/v1/chat", {{"Content-Type", "application/json"}},
                   kQuestion);
  ASSERT_EQ(stream.status(), 200);
  EXPECT_EQ(stream.headers().at("content-type"), "text/event-stream; charset=utf-8");
  auto events = stream.Rest();  // returns at the end of the stream: the server closed it
  ASSERT_GE(events.size(), 5u);
  for (std::size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].id, std::int64_t(i) + 1);
  EXPECT_EQ(events[0].name, "run");
  auto run = Json(events[0].data);
  std::string run_id(run.at("run_id").as_string());
  EXPECT_FALSE(run.at("conversation_id").as_string().empty());
  EXPECT_EQ(events[1].name, "route");
  EXPECT_EQ(Json(events[1].data).at("route"), "DIAGNOSIS");
  std::map<std::int64_t, std::vector<std::string>> progress;
  for (std::size_t i = 2; i + 2 < events.size(); ++i) {
    ASSERT_EQ(events[i].name, "progress") << i;
    auto data = Json(events[i].data);
    progress[data.at("index").as_int64()].emplace_back(data.at("status").as_string());
  }
  ASSERT_FALSE(progress.empty());
  for (const auto& [index, statuses] : progress) {
    ASSERT_EQ(statuses.size(), 2u);
    EXPECT_EQ(statuses[0], "STARTED");
  }
  ASSERT_EQ(events[events.size() - 2].name, "result");
  auto result = Json(events[events.size() - 2].data);
  EXPECT_EQ(result.at("run_id"), run_id.c_str());
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS");
  EXPECT_EQ(events.back().name, "done");

  // The stored record holds the same result.
  auto record = server_.Get("/api/v1/runs/" + run_id);
  ASSERT_EQ(record.status, 200);
  auto stored = Json(record.body);
  EXPECT_EQ(stored.at("status"), "SUCCEEDED");
  EXPECT_EQ(stored.at("result"), result);
  EXPECT_TRUE(stored.at("trace").is_array());
}

TEST_F(RoutesTest, ChatWithoutEventStreamAnswersTheResultJson) {
  auto reply = server_.PostChat(kQuestion);
  ASSERT_EQ(reply.status, 200) << reply.body;
  auto result = Json(reply.body);
  for (const char* key : {"run_id", "conversation_id", "route", "release_outcome", "diagnosis",
                          "fallback", "answer", "process"}) {
    EXPECT_TRUE(result.contains(key)) << key;
  }
  EXPECT_EQ(result.at("release_outcome"), "DIAGNOSIS");
  EXPECT_GT(result.at("process").as_array().size(), 0u);
}

TEST_F(RoutesTest, EventsReplayTheStoredStreamAndResumeAfterLastEventId) {
  SseStream chat(server_.port(), "POST", "/api/v1/chat", {}, kQuestion);
  auto original = chat.Rest();
  ASSERT_GE(original.size(), 5u);
  std::string run_id(Json(original[0].data).at("run_id").as_string());

  auto replay = server_.Get("/api/v1/runs/" + run_id + "/events");
  ASSERT_EQ(replay.status, 200);
  EXPECT_EQ(replay.headers.at("content-type"), "text/event-stream; charset=utf-8");
  auto events = ParseSse(replay.body);
  ASSERT_EQ(events.size(), original.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].id, original[i].id);
    EXPECT_EQ(events[i].name, original[i].name);
    EXPECT_EQ(events[i].data, original[i].data);
  }
  auto resumed = ParseSse(server_.Get("/api/v1/runs/" + run_id + "/events",
                                      {{"Last-Event-ID", "3"}}).body);
  ASSERT_EQ(resumed.size(), original.size() - 3);
  EXPECT_EQ(resumed.front().id, 4);
  EXPECT_EQ(resumed.back().name, "done");
  EXPECT_TRUE(ParseSse(server_.Get("/api/v1/runs/" + run_id + "/events",
                                   {{"Last-Event-ID", std::to_string(original.size())}}).body)
                  .empty());
  ExpectError(server_.Get("/api/v1/runs/" + run_id + "/events", {{"Last-Event-ID", "x1"}}), 400,
              "INVALID_REQUEST");
  ExpectError(server_.Get("/api/v1/runs/" + run_id + "/events", {{"Last-Event-ID", "-1"}}), 400,
              "INVALID_REQUEST");
  ExpectError(server_.Get("/api/v1/runs/no-such-run/events"), 404, "NOT_FOUND");
}

TEST_F(RoutesTest, RunListIsNewestFirstWithinItsLimit) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.emplace_back(Json(server_.PostChat(R"({"message":"你好","route":"chat"})").body)
                         .at("run_id").as_string());
  }
  auto list = Json(server_.Get("/api/v1/runs?limit=2").body);
  const auto& runs = list.at("runs").as_array();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].at("run_id"), ids[2].c_str());
  EXPECT_EQ(runs[1].at("run_id"), ids[1].c_str());
  for (const char* key : {"run_id", "conversation_id", "route", "status", "release_outcome",
                          "fallback_code", "created_at"}) {
    EXPECT_TRUE(runs[0].as_object().contains(key)) << key;
  }
  EXPECT_EQ(runs[0].at("route"), "SYSTEM_CHAT");
  EXPECT_EQ(Json(server_.Get("/api/v1/runs").body).at("runs").as_array().size(), 3u)
      << "default limit 20";
  for (const char* bad : {"limit=0", "limit=201", "limit=abc", "limit=", "limit=5&x=1", "page=2"}) {
    ExpectError(server_.Get(std::string("/api/v1/runs?") + bad), 400, "INVALID_REQUEST");
  }
  ExpectError(server_.Get("/api/v1/runs/no-such-run"), 404, "NOT_FOUND");
}

TEST_F(RoutesTest, MalformedAndWrongRequestsGetClearJsonErrors) {
  ExpectError(server_.PostChat("{\"message\":"), 400, "INVALID_JSON");
  ExpectError(server_.PostChat(R"({"message":42})"), 400, "INVALID_REQUEST");
  ExpectError(server_.PostChat(R"({"message":""})"), 400, "INVALID_REQUEST");
  ExpectError(server_.PostChat(R"({"message":"x","route":"sql"})"), 400, "INVALID_REQUEST");
  ExpectError(server_.PostChat(R"({"message":"x","extra":1})"), 400, "INVALID_REQUEST");
  ExpectError(server_.Get("/api/v1/nothing"), 404, "NOT_FOUND");
  ExpectError(server_.Get("/api"), 404, "NOT_FOUND");
  auto wrong_method = Request(server_.port(), "GET", "/api/v1/chat");
  ExpectError(wrong_method, 405, "METHOD_NOT_ALLOWED");
  EXPECT_EQ(wrong_method.headers.at("allow"), "POST");
  ExpectError(Request(server_.port(), "DELETE", "/api/v1/runs/x"), 405, "METHOD_NOT_ALLOWED");
  ExpectError(SendRaw(server_.port(), "BREW /pot HTCPCP/1.0\r\n\r\n"), 400, "INVALID_REQUEST");
  // Nothing was run for any of them, and /metrics counts each with its
  // real status.
  EXPECT_EQ(Json(server_.Get("/api/v1/runs").body).at("runs").as_array().size(), 0u);
  std::string metrics = server_.Get("/metrics").body;
  for (const char* series : {R"(diagd_http_requests_total{route="/api/v1/chat",code="400"} 5)",
                             R"(diagd_http_requests_total{route="unmatched",code="404"} 2)",
                             R"(diagd_http_requests_total{route="/api/v1/chat",code="405"} 1)",
                             R"(diagd_http_requests_total{route="unread",code="400"} 1)"}) {
    EXPECT_NE(metrics.find(series), std::string::npos) << series << "\n" << metrics;
  }
}

TEST_F(RoutesTest, AHostileLongQuestionIsAnsweredAndTheServerStaysUp) {
  // Long blank and digit runs around time words: recursive regular
  // expressions on a run's small stack must not be able to overflow it.
  std::string message = "最近" + std::string(30000, ' ') + "小时 last " + std::string(20000, '1') +
                        " hours 订单服务 500";
  boost::json::object body{{"message", message}};
  auto reply = server_.PostChat(boost::json::serialize(body));
  ASSERT_EQ(reply.status, 200) << reply.body.substr(0, 300);
  EXPECT_TRUE(Json(reply.body).contains("release_outcome"));
  EXPECT_EQ(server_.Get("/healthz").status, 200);
}

TEST_F(RoutesTest, QuestionsThatOnceOverflowedARunsStackAreAnswered) {
  // About 1,600 ASCII letters or digits in a row made a backtracking regex
  // recurse once per character and overflow the run's 512 KiB stack,
  // killing the process with every run in it.
  std::string repeated_a1;
  for (int i = 0; i < 700; ++i) repeated_a1 += "a1-";
  std::string mixed;
  for (int i = 0; i < 500; ++i) mixed += "订单x9-";
  for (const std::string& message : {"why " + std::string(2000, 'x'), repeated_a1,
                                     std::string(4000, '7'), mixed}) {
    boost::json::object body{{"message", message}};
    auto reply = server_.PostChat(boost::json::serialize(body));
    ASSERT_EQ(reply.status, 200) << message.substr(0, 40) << ": " << reply.body.substr(0, 300);
    EXPECT_TRUE(Json(reply.body).contains("release_outcome"));
  }
  EXPECT_EQ(server_.Get("/healthz").status, 200);
}

TEST(RoutesFailure, ARunThatThrowsIsFailedAndStoredAndTheServerGoesOn) {
  FixtureOptions options;
  options.model_throws = true;
  ServerFixture server(options);
  auto reply = server.PostChat(R"({"message":"订单服务为什么 500？","route":"diagnosis"})");
  ExpectError(reply, 500, "RUN_FAILED");
  SseStream stream(server.port(), "POST", "/api/v1/chat", {}, R"({"message":"又一次","route":"chat"})");
  auto events = stream.Rest();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[events.size() - 2].name, "error");
  EXPECT_EQ(events.back().name, "done");
  std::string run_id(Json(events[0].data).at("run_id").as_string());
  auto record = Json(server.Get("/api/v1/runs/" + run_id).body);
  EXPECT_EQ(record.at("status"), "FAILED");
  EXPECT_EQ(record.at("failure_reason"), "INTERNAL");
  EXPECT_EQ(server.Get("/healthz").status, 200);
  EXPECT_NE(server.Log().find(R"("event":"run_failed")"), std::string::npos);
  EXPECT_EQ(server.Log().find("a bug deep inside"), std::string::npos) << "no exception text";
}

TEST(RoutesLimits, OversizedBodiesAndHeadersAreRefused) {
  FixtureOptions options;
  options.max_body_bytes = 1024;
  options.max_header_bytes = 2048;
  ServerFixture server(options);
  std::string big = R"({"message":")" + std::string(2000, 'a') + R"("})";
  ExpectError(server.PostChat(big), 413, "BODY_TOO_LARGE");
  // Chunked, with no length up front: refused while reading.
  std::string chunked = "POST /api/v1/chat HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                        "Connection: close\r\n\r\n";
  for (int i = 0; i < 4; ++i) chunked += "200\r\n" + std::string(512, 'a') + "\r\n";
  chunked += "0\r\n\r\n";
  ExpectError(SendRaw(server.port(), chunked), 413, "BODY_TOO_LARGE");
  ExpectError(server.Get("/healthz", {{"X-Padding", std::string(4096, 'p')}}), 400,
              "INVALID_REQUEST");
  // The limits leave the server serving.
  EXPECT_EQ(server.Get("/healthz").status, 200);
  EXPECT_EQ(server.PostChat(R"({"message":"你好","route":"chat"})").status, 200);
}

TEST(RoutesAuth, EveryRouteButHealthzNeedsABearerToken) {
  FixtureOptions options;
  options.auth_tokens = {"s3cret-token", "second"};
  ServerFixture server(options);
  EXPECT_EQ(server.Get("/healthz").status, 200);
  EXPECT_EQ(Json(server.Get("/healthz").body).at("status"), "ok");
  for (const char* target : {"/metrics", "/api/v1/runs", "/api/v1/runs/x", "/api/v1/runs/x/events",
                             "/no-such-route"}) {
    auto reply = server.Get(target);
    ExpectError(reply, 401, "UNAUTHORIZED");
    EXPECT_EQ(reply.headers.at("www-authenticate"), "Bearer");
    ExpectError(server.Get(target, {{"Authorization", "Bearer wrong"}}), 401, "UNAUTHORIZED");
    ExpectError(server.Get(target, {{"Authorization", "s3cret-token"}}), 401, "UNAUTHORIZED");
    ExpectError(server.Get(target, {{"Authorization", "Bearer s3cret-tokenX"}}), 401,
                "UNAUTHORIZED");
  }
  ExpectError(server.PostChat(kQuestion), 401, "UNAUTHORIZED");
  EXPECT_EQ(server.Get("/api/v1/runs", {{"Authorization", "Bearer s3cret-token"}}).status, 200);
  EXPECT_EQ(server.Get("/metrics", {{"Authorization", "Bearer second"}}).status, 200);
  auto chat = server.PostChat(R"({"message":"你好","route":"chat"})",
                              {{"Authorization", "Bearer second"}});
  EXPECT_EQ(chat.status, 200) << chat.body;
}

TEST(RoutesStart, RefusesToListenBeyondLoopbackWithoutTokens) {
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.8.9.10"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("::"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.5"));
  EXPECT_FALSE(IsLoopbackHost("example.com"));
}

TEST_F(RoutesTest, MetricsCountRunsToolCallsAndModelCallsFromTheRecords) {
  ASSERT_EQ(server_.PostChat(kQuestion).status, 200);
  auto metrics = server_.Get("/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.headers.at("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = metrics.body;
  EXPECT_NE(text.find(R"(diagd_runs_total{status="SUCCEEDED",outcome="DIAGNOSIS",fallback_code="NONE"} 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(diagd_tool_calls_total{tool="query_logs",status="EVIDENCE_FOUND"})"),
            std::string::npos);
  EXPECT_NE(text.find(R"(diagd_model_calls_total{component="DIAGNOSIS_AGENT"})"), std::string::npos);
  EXPECT_NE(text.find("diagd_run_duration_seconds_count 1"), std::string::npos);
  EXPECT_NE(text.find(R"(diagd_http_requests_total{route="/api/v1/chat",code="200"} 1)"),
            std::string::npos);
  EXPECT_NE(text.find("diagd_run_queue_depth 0"), std::string::npos);
}

}  // namespace
}  // namespace diagd::server::testing
