// POST /api/v1/runs/{id}/cancel (docs/console.md) and the SSE keepalive,
// over real sockets: the scripted model server (over real HTTP; it plays a
// script, it is no model) holds a run in the middle of a model call, a
// loopback documents service or an endless SQL statement in the middle of
// a tool call. A
// cancelled run ends at once with stop_reason CANCELLED, sends no further
// request to the model, and its stream ends with `result` then `done`.
// The holds are minutes long and the endpoints' own timeouts longer, so a
// run that was not abandoned would not end within the stream's read
// timeout: no test here measures time.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <thread>

#include "server/json_body.h"
#include "server/server_fixture.h"
#include "testing/eventually.h"
#include "testing/loopback_http_server.h"
#include "testing/scripted_model_server.h"

namespace diagd::server::testing {
namespace {

using diagd::testing::Eventually;
using diagd::testing::LoopbackHttpServer;
using diagd::testing::ScriptedAnswer;
using diagd::testing::ScriptedModelServer;
using diagd::testing::ScriptedReply;
using diagd::testing::ScriptedToolCall;

constexpr auto kHold = std::chrono::minutes(10);
constexpr const char* kQuestion =
    R"({"message":"payment-service 为什么超时？","route":"diagnosis"})";

std::string LogsCall(const std::string& query) {
  boost::json::object input{{"topic", "payment-service"}, {"query", query}};
  return boost::json::serialize(boost::json::object{{"input", input}});
}

struct Finished {
  boost::json::value result;
  boost::json::value record;
};

// Reads the stream to its end, which must be `result` then `done`, and the
// stored record of its run.
Finished ReadToEnd(ServerFixture& server, SseStream& stream, const std::string& run_id) {
  auto rest = stream.Rest();
  Finished finished;
  EXPECT_GE(rest.size(), 2u);
  if (rest.size() < 2) return finished;
  EXPECT_EQ(rest[rest.size() - 2].name, "result");
  EXPECT_EQ(rest.back().name, "done");
  finished.result = Json(rest[rest.size() - 2].data);
  finished.record = Json(server.Get("/api/v1/runs/" + run_id).body);
  return finished;
}

std::string RunIdOf(SseStream& stream) {
  auto run = stream.Next();
  EXPECT_TRUE(run && run->name == "run");
  if (!run) return {};
  return std::string(Json(run->data).at("run_id").as_string());
}

TEST(CancelTest, CancellingMidModelCallReleasesTheCheckedFactsAndCallsTheModelNoMore) {
  ScriptedModelServer model;
  model.CallTools({{"call_1", "query_logs", LogsCall("HikariPool"), false}});
  model.Then(ScriptedReply{ScriptedAnswer{"never sent"}, kHold});
  FixtureOptions options;
  options.model_base_url = model.BaseUrl();
  options.model_timeout_seconds = 3600;
  ServerFixture server(options);

  SseStream stream(server.port(), "POST", "/api/v1/chat", {{"Content-Type", "application/json"}},
                   kQuestion);
  ASSERT_EQ(stream.status(), 200);
  std::string run_id = RunIdOf(stream);
  ASSERT_TRUE(Eventually([&] { return model.Requests().size() == 2; })) << "the second call is held";

  auto accepted = server.Post("/api/v1/runs/" + run_id + "/cancel");
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  EXPECT_EQ(Json(accepted.body).at("run_id"), run_id.c_str());
  Finished finished = ReadToEnd(server, stream, run_id);

  EXPECT_EQ(finished.result.at("release_outcome"), "FALLBACK");
  EXPECT_EQ(finished.result.at("fallback").at("code"), "INSUFFICIENT_EVIDENCE");
  EXPECT_FALSE(finished.result.at("fallback").at("observed_facts").as_array().empty());
  std::string limitations =
      boost::json::serialize(finished.result.at("fallback").at("limitations"));
  EXPECT_NE(limitations.find("被取消"), std::string::npos) << limitations;
  EXPECT_EQ(finished.record.at("stop_reason"), "CANCELLED");
  EXPECT_EQ(finished.record.at("internal_status"), "STOPPED");
  EXPECT_EQ(finished.record.at("status"), "SUCCEEDED");
  EXPECT_TRUE(finished.record.at("failure_reason").is_null());
  EXPECT_EQ(model.Requests().size(), 2u) << "no model call after the cancel";
  // The observation the model got for call_1 is kept.
  EXPECT_EQ(server.Get("/api/v1/runs/" + run_id + "/observations/call_1").status, 200);
  auto again = server.Post("/api/v1/runs/" + run_id + "/cancel");
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(Json(again.body).at("error").at("code"), "NOT_RUNNING");
}

TEST(CancelTest, CancellingBeforeAnythingWasCheckedReleasesAFailedFallback) {
  ScriptedModelServer model;
  model.Then(ScriptedReply{ScriptedAnswer{"never sent"}, kHold});
  FixtureOptions options;
  options.model_base_url = model.BaseUrl();
  options.model_timeout_seconds = 3600;
  ServerFixture server(options);

  SseStream stream(server.port(), "POST", "/api/v1/chat", {{"Content-Type", "application/json"}},
                   kQuestion);
  std::string run_id = RunIdOf(stream);
  ASSERT_TRUE(Eventually([&] { return model.Requests().size() == 1; }));
  ASSERT_EQ(server.Post("/api/v1/runs/" + run_id + "/cancel").status, 202);
  Finished finished = ReadToEnd(server, stream, run_id);

  EXPECT_EQ(finished.result.at("fallback").at("code"), "FAILED");
  EXPECT_EQ(finished.record.at("status"), "FAILED");
  EXPECT_EQ(finished.record.at("stop_reason"), "CANCELLED");
  EXPECT_EQ(finished.record.at("internal_status"), "STOPPED");
  EXPECT_TRUE(finished.record.at("model_failures").as_array().empty())
      << "an abandoned call is no failure of the model";
  EXPECT_EQ(model.Requests().size(), 1u);
}

// A local tool, not only an HTTP one: a SQL statement that never ends on
// its own (the demo's SQLite datasource, an hour's time limit) is
// interrupted where it runs.
TEST(CancelTest, CancellingMidSqlStatementInterruptsItAndCallsTheModelNoMore) {
  ScriptedModelServer model;
  boost::json::object input{
      {"datasource", "orders"},
      {"sql", "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
              "SELECT COUNT(*) AS endless FROM n"}};
  model.CallTools({{"call_1", "query_mysql",
                    boost::json::serialize(boost::json::object{{"input", input}}), false}});
  FixtureOptions options;
  options.model_base_url = model.BaseUrl();
  options.model_timeout_seconds = 3600;
  options.datasource_timeout_ms = 3600 * 1000;
  ServerFixture server(options);

  SseStream stream(server.port(), "POST", "/api/v1/chat", {{"Content-Type", "application/json"}},
                   kQuestion);
  std::string run_id = RunIdOf(stream);
  for (auto event = stream.Next(); event; event = stream.Next()) {
    if (event->name == "progress") {
      EXPECT_EQ(Json(event->data).at("status"), "STARTED");
      break;
    }
  }
  ASSERT_EQ(server.Post("/api/v1/runs/" + run_id + "/cancel").status, 202);
  Finished finished = ReadToEnd(server, stream, run_id);

  EXPECT_EQ(finished.record.at("stop_reason"), "CANCELLED");
  EXPECT_EQ(finished.result.at("release_outcome"), "FALLBACK");
  EXPECT_EQ(model.Requests().size(), 1u) << "no model call after the cancel";
  EXPECT_EQ(server.Get("/api/v1/runs/" + run_id + "/observations/call_1").status, 404);}

TEST(CancelTest, CancellingMidToolCallAbandonsItAndCallsTheModelNoMore) {
  LoopbackHttpServer documents([](const LoopbackHttpServer::Request&) {
    LoopbackHttpServer::Response held;
    held.body = R"({"documents":[]})";
    held.delay = kHold;
    return held;
  });
  ScriptedModelServer model;
  boost::json::object input{{"query", "HikariPool 连接池"}};
  model.CallTools({{"call_1", "search_documents",
                    boost::json::serialize(boost::json::object{{"input", input}}), false}});
  FixtureOptions options;
  options.model_base_url = model.BaseUrl();
  options.model_timeout_seconds = 3600;
  options.documents_url = documents.BaseUrl() + "/search";
  options.documents_timeout_ms = 3600 * 1000;
  ServerFixture server(options);

  SseStream stream(server.port(), "POST", "/api/v1/chat", {{"Content-Type", "application/json"}},
                   kQuestion);
  std::string run_id = RunIdOf(stream);
  ASSERT_TRUE(Eventually([&] { return documents.Requests().size() == 1; })) << "the tool is held";
  ASSERT_EQ(server.Post("/api/v1/runs/" + run_id + "/cancel").status, 202);
  Finished finished = ReadToEnd(server, stream, run_id);

  EXPECT_EQ(finished.record.at("stop_reason"), "CANCELLED");
  EXPECT_EQ(finished.result.at("release_outcome"), "FALLBACK");
  EXPECT_EQ(model.Requests().size(), 1u) << "no model call after the cancel";
  EXPECT_EQ(documents.Requests().size(), 1u) << "an abandoned tool call is not retried";
  // Its observation never reached the model, so none is kept.
  EXPECT_EQ(server.Get("/api/v1/runs/" + run_id + "/observations/call_1").status, 404);
}

TEST(ObservationOverHttpTest, TheStoredObservationIsExactlyTheToolMessageTheModelGot) {
  ScriptedModelServer model;
  model.CallTools({{"call_1", "query_logs", LogsCall("HikariPool"), false}});
  model.CallTools({{"call_2", "query_logs", LogsCall("no such words at all"), false}});
  model.Answer(R"({"conclusion":null})");
  FixtureOptions options;
  options.model_base_url = model.BaseUrl();
  ServerFixture server(options);
  auto reply = server.PostChat(kQuestion);
  ASSERT_EQ(reply.status, 200) << reply.body;
  std::string run_id(Json(reply.body).at("run_id").as_string());

  // The tool messages of the last request carry every observation the
  // model got, call_2's (a protocol violation: call_1 was not graded) too.
  auto requests = model.Requests();
  ASSERT_EQ(requests.size(), 3u);
  std::map<std::string, std::string> sent;
  for (const auto& message : requests.back().json.at("messages").as_array()) {
    if (message.at("role") != "tool") continue;
    sent[std::string(message.at("tool_call_id").as_string())] =
        std::string(message.at("content").as_string());
  }
  ASSERT_TRUE(sent.count("call_1"));
  auto stored = server.Get("/api/v1/runs/" + run_id + "/observations/call_1");
  ASSERT_EQ(stored.status, 200);
  EXPECT_EQ(stored.body, sent.at("call_1"));
  EXPECT_NE(stored.body.find("HikariPool"), std::string::npos);
  ASSERT_TRUE(sent.count("call_2"));
  EXPECT_NE(sent.at("call_2").find("INVALID_PROGRESS_PROTOCOL"), std::string::npos);
  EXPECT_EQ(server.Get("/api/v1/runs/" + run_id + "/observations/call_2").status, 404)
      << "a rejected request never ran: no observation";
}

TEST(SseKeepaliveTest, AQuietStreamGetsKeepaliveCommentsAndNoBufferingHeaders) {
  ScriptedModelServer model;
  // The run stays quiet for a while: several keepalive intervals.
  model.Then(ScriptedReply{ScriptedAnswer{R"({"conclusion":null})"}, std::chrono::seconds(2)});
  FixtureOptions options;
  options.model_base_url = model.BaseUrl();
  options.sse_keepalive = std::chrono::milliseconds(200);
  ServerFixture server(options);

  SseStream stream(server.port(), "POST", "/api/v1/chat", {{"Content-Type", "application/json"}},
                   kQuestion);
  ASSERT_EQ(stream.status(), 200);
  EXPECT_EQ(stream.headers().at("cache-control"), "no-cache");
  EXPECT_EQ(stream.headers().at("x-accel-buffering"), "no");
  std::string run_id = RunIdOf(stream);
  auto rest = stream.Rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back().name, "done");
  ASSERT_FALSE(stream.comments().empty()) << "no keepalive in two quiet seconds";
  for (const auto& comment : stream.comments()) EXPECT_EQ(comment, ": keepalive");

  // The events route's stream has the same headers.
  SseStream events(server.port(), "GET", "/api/v1/runs/" + run_id + "/events");
  ASSERT_EQ(events.status(), 200);
  EXPECT_EQ(events.headers().at("cache-control"), "no-cache");
  EXPECT_EQ(events.headers().at("x-accel-buffering"), "no");
  EXPECT_EQ(events.Rest().back().name, "done");
}

}  // namespace
}  // namespace diagd::server::testing
