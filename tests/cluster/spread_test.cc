// Three instances on one PostgreSQL run store behind nginx: chats spread
// over them, and every run route answers the same for any run on any
// instance (docs/deploy.md, "Several instances").
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster_fixture.h"
#include "testing/scripted_diagnosis.h"

namespace diagd::cluster_testing {
namespace {

using diagd::testing::ScriptedDiagnosis;
using std::chrono::milliseconds;
using std::chrono::seconds;

boost::json::value Json(const std::string& text) {
  boost::system::error_code ec;
  auto value = boost::json::parse(text, ec);
  EXPECT_FALSE(ec) << "not JSON: " << text;
  return ec ? boost::json::value() : value;
}

TEST_F(ClusterTest, ChatsThroughNginxSpreadOverTheInstancesAndEveryRouteAnswersAlikeEverywhere) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(ScriptedDiagnosis(1, milliseconds(150))));

  // One conversation of three turns, one after the other: round robin
  // sends each turn to another instance, and each appends to the same
  // conversation.
  const std::string conversation = "cluster-spread-conversation";
  std::vector<std::string> turns;
  std::vector<std::string> answers;
  for (int turn = 0; turn < 3; ++turn) {
    HttpReply reply = Fetch(nginx_port(), "POST", "/api/v1/chat", kJson,
                            DiagnosisChat("turn-" + std::to_string(turn), conversation));
    ASSERT_EQ(reply.status, 200) << reply.body;
    turns.push_back(RunIdIn(reply.body));
    answers.push_back(reply.body);
  }
  // And three at once.
  std::vector<HttpReply> parallel(3);
  std::vector<std::thread> clients;
  for (std::size_t i = 0; i < parallel.size(); ++i) {
    clients.emplace_back([&, i] {
      parallel[i] = Fetch(nginx_port(), "POST", "/api/v1/chat", kJson,
                          DiagnosisChat("parallel-" + std::to_string(i)));
    });
  }
  for (auto& client : clients) client.join();
  std::vector<std::string> run_ids = turns;
  for (const auto& reply : parallel) {
    ASSERT_EQ(reply.status, 200) << reply.body;
    run_ids.push_back(RunIdIn(reply.body));
    answers.push_back(reply.body);
  }

  auto stored = StoredRuns();
  ASSERT_EQ(stored.size(), run_ids.size());
  std::set<std::string> executing;
  for (std::size_t i = 0; i < run_ids.size(); ++i) {
    ASSERT_TRUE(stored.contains(run_ids[i])) << run_ids[i];
    EXPECT_EQ(stored[run_ids[i]].status, "SUCCEEDED") << run_ids[i];
    EXPECT_EQ(Json(answers[i]).at("release_outcome"), "DIAGNOSIS") << answers[i];
    executing.insert(stored[run_ids[i]].instance_id);
  }
  EXPECT_GT(executing.size(), 1u) << "nginx sent every chat to one instance:\n"
                                  << nginx().AccessLog();

  // Every route, through every instance and through nginx: the same answer.
  std::vector<int> ports;
  for (std::size_t i = 0; i < instance_count(); ++i) ports.push_back(instance(i).port());
  ports.push_back(nginx_port());
  const std::string& run_id = turns[0];
  const std::vector<std::string> targets = {
      "/api/v1/runs/" + run_id,
      "/api/v1/runs?limit=50",
      "/api/v1/runs?limit=2&route=diagnosis",
      "/api/v1/runs/" + run_id + "/events",
      "/api/v1/conversations/" + conversation,
      "/api/v1/runs/" + run_id + "/observations/call_1",
  };
  for (const auto& target : targets) {
    HttpReply first = Fetch(ports[0], "GET", target);
    ASSERT_EQ(first.status, 200) << target << ": " << first.body;
    for (int port : ports) {
      HttpReply reply = Fetch(port, "GET", target);
      EXPECT_EQ(reply.status, 200) << target << " on port " << port;
      EXPECT_EQ(reply.body, first.body) << target << " on port " << port;
    }
  }
  for (int port : ports) {
    HttpReply cancel = Fetch(port, "POST", "/api/v1/runs/" + run_id + "/cancel");
    EXPECT_EQ(cancel.status, 409) << cancel.body;
    EXPECT_NE(cancel.body.find("NOT_RUNNING"), std::string::npos) << cancel.body;
    EXPECT_EQ(Fetch(port, "GET", "/api/v1/runs/run-unknown").status, 404);
  }

  // What the routes say, read once: the JSON answer is the stored result,
  // the replay is the whole stream, the conversation lists the turns in
  // order wherever they ran.
  for (std::size_t i = 0; i < run_ids.size(); ++i) {
    auto record = Json(Fetch(nginx_port(), "GET", "/api/v1/runs/" + run_ids[i]).body);
    ASSERT_TRUE(record.is_object());
    EXPECT_EQ(record.at("result"), Json(answers[i])) << "the answer shown is the one stored";
  }
  auto replay = server::testing::ParseSse(Fetch(nginx_port(), "GET", targets[3]).body);
  ASSERT_GE(replay.size(), 4u);
  EXPECT_TRUE(CountFromOne(replay));
  EXPECT_EQ(replay.front().name, "run");
  EXPECT_EQ(replay[replay.size() - 2].name, "result");
  EXPECT_EQ(replay.back().name, "done");
  auto listed = Json(Fetch(nginx_port(), "GET", targets[4]).body).at("runs").as_array();
  ASSERT_EQ(listed.size(), turns.size());
  for (std::size_t i = 0; i < turns.size(); ++i) EXPECT_EQ(std::string(listed[i].at("run_id").as_string()), turns[i]);
}

TEST_F(ClusterTest, AStreamThroughNginxArrivesWhileTheRunRuns) {
  // Four model calls of 400 ms: the run lasts well over a second, and its
  // first events must reach the client through nginx before it ends (no
  // buffering anywhere on the way).
  ASSERT_NO_FATAL_FAILURE(StartCluster(ScriptedDiagnosis(2, milliseconds(400)), {.instances = 2}));
  SseReader stream(nginx_port(), "POST", "/api/v1/chat", kJson, DiagnosisChat("live"));
  ASSERT_EQ(stream.status(), 200);
  EXPECT_EQ(stream.headers().at("content-type").substr(0, 17), "text/event-stream");
  EXPECT_EQ(stream.headers().at("cache-control"), "no-cache");
  // nginx obeys diagd's X-Accel-Buffering: no and removes it: a proxy behind
  // this one would never see it (docs/deploy.md: buffering off on each).
  EXPECT_FALSE(stream.headers().contains("x-accel-buffering"));
  std::vector<SseEvent> events;
  while (events.empty() || events.back().name != "progress") {
    auto event = stream.Next(seconds(20));
    ASSERT_TRUE(event.has_value()) << "the stream ended before its first progress event";
    events.push_back(*event);
  }
  std::string run_id = RunIdIn(events.front().data);
  ASSERT_FALSE(run_id.empty()) << events.front().data;
  EXPECT_EQ(StoredRuns()[run_id].status, "RUNNING")
      << "the events came only after the run ended: something buffered the stream";
  auto rest = stream.Rest(seconds(30));
  events.insert(events.end(), rest.begin(), rest.end());
  ASSERT_GE(events.size(), 4u);
  EXPECT_TRUE(CountFromOne(events));
  EXPECT_EQ(events[events.size() - 2].name, "result");
  EXPECT_EQ(events.back().name, "done");
  EXPECT_EQ(StoredRuns()[run_id].status, "SUCCEEDED");
}

}  // namespace
}  // namespace diagd::cluster_testing
