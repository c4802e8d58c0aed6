// An instance killed with `kill -9` mid-run (docs/deploy.md): another
// instance ends its run as FAILED / INSTANCE_LOST once the lease ran out,
// a client streaming the run from another instance sees `error` then
// `done`, and the run is never executed again, not even by the killed
// instance when it comes back.
#include <gtest/gtest.h>

#include <boost/json.hpp>
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

class LostInstance : public ClusterTest {
 protected:
  // A chat sent to `executing` directly (so the test knows whom to kill),
  // read until the run waits on its first model call; its run id.
  std::string StartRunOn(DiagdInstance& executing, SseReader& chat, const std::string& marker) {
    EXPECT_EQ(chat.status(), 200);
    auto seen = chat.Through("route");
    if (seen.empty() || seen.back().name != "route") {
      ADD_FAILURE() << "the chat's stream ended before `route`";
      return "";
    }
    std::string run_id = RunIdIn(seen.front().data);
    auto deadline = std::chrono::steady_clock::now() + seconds(20);
    while (ModelCallsFor(marker) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(20));
    }
    EXPECT_GT(ModelCallsFor(marker), 0u) << "the run never called its model";
    EXPECT_EQ(StoredRuns()[run_id].instance_id, executing.id());
    EXPECT_EQ(StoredRuns()[run_id].status, "RUNNING");
    return run_id;
  }

  std::string Record(int port, const std::string& run_id) {
    HttpReply reply = Fetch(port, "GET", "/api/v1/runs/" + run_id);
    EXPECT_EQ(reply.status, 200) << reply.body;
    return reply.body;
  }

  // The stream of a lost run: `run`, ..., `error` INSTANCE_LOST, `done`,
  // numbered 1..n.
  static void ExpectLostStream(const std::vector<SseEvent>& events, const std::string& run_id) {
    ASSERT_GE(events.size(), 3u);
    EXPECT_TRUE(CountFromOne(events));
    EXPECT_EQ(events.front().name, "run");
    EXPECT_EQ(RunIdIn(events.front().data), run_id);
    const SseEvent& error = events[events.size() - 2];
    EXPECT_EQ(error.name, "error");
    EXPECT_NE(error.data.find("\"INSTANCE_LOST\""), std::string::npos) << error.data;
    EXPECT_EQ(events.back().name, "done");
    for (const auto& event : events) EXPECT_NE(event.name, "result") << "a lost run shows no result";
  }
};

TEST_F(LostInstance, AnotherInstanceEndsAKilledInstancesRunAsLostAndNoOneRunsItAgain) {
  // Five model calls of 1.5 s: the run is far from done when i1 dies.
  ASSERT_NO_FATAL_FAILURE(StartCluster(ScriptedDiagnosis(3, milliseconds(1500))));
  const std::string marker = "lost-run-marker";
  DiagdInstance& i1 = instance(0);
  SseReader chat(i1.port(), "POST", "/api/v1/chat", kJson, DiagnosisChat(marker));
  std::string run_id = StartRunOn(i1, chat, marker);
  ASSERT_FALSE(run_id.empty());
  // A client on another instance watches the run from its start.
  SseReader watcher(instance(1).port(), "GET", "/api/v1/runs/" + run_id + "/events");
  ASSERT_EQ(watcher.status(), 200);
  std::size_t calls = ModelCallsFor(marker);

  i1.Kill();
  auto cut = chat.Rest(seconds(5));
  EXPECT_TRUE(chat.ended()) << "the killed instance's stream is cut";
  for (const auto& event : cut) EXPECT_NE(event.name, "done");

  // Lease 3 s, each instance sweeping every second: a few leases at most.
  ASSERT_TRUE(WaitUntilEnded(run_id, seconds(20)));
  auto stored = StoredRuns()[run_id];
  EXPECT_EQ(stored.status, "FAILED");
  EXPECT_EQ(stored.failure_reason, "INSTANCE_LOST");
  EXPECT_EQ(stored.instance_id, "i1") << "the record still names who ran it";
  auto record = boost::json::parse(Record(nginx_port(), run_id)).as_object();
  EXPECT_EQ(record["status"], "FAILED");
  EXPECT_EQ(record["failure_reason"], "INSTANCE_LOST");
  EXPECT_TRUE(instance(1).Logged("run_lost") || instance(2).Logged("run_lost")) << Logs();

  auto watched = watcher.Rest(seconds(20));
  EXPECT_TRUE(watcher.ended());
  ExpectLostStream(watched, run_id);
  // Read later, through nginx (so from i2 or i3): the same stream.
  auto replay = server::testing::ParseSse(
      Fetch(nginx_port(), "GET", "/api/v1/runs/" + run_id + "/events").body);
  ASSERT_EQ(replay.size(), watched.size());
  for (std::size_t i = 0; i < replay.size(); ++i) {
    EXPECT_EQ(replay[i].id, watched[i].id);
    EXPECT_EQ(replay[i].name, watched[i].name);
    EXPECT_EQ(replay[i].data, watched[i].data);
  }

  // i1 comes back on its port: its start-up sweep finds the run already
  // ended, and no one executes it again.
  std::string lost_record = Record(instance(1).port(), run_id);
  ASSERT_TRUE(Restart(0));
  std::this_thread::sleep_for(seconds(2));  // time for a wrong re-run to call the model
  EXPECT_EQ(Record(i1.port(), run_id), lost_record) << "the lost record was rewritten";
  EXPECT_EQ(Record(nginx_port(), run_id), lost_record);
  EXPECT_EQ(ModelCallsFor(marker), calls) << "the lost run was executed again";
  EXPECT_EQ(StoredRuns().size(), 1u);
}

TEST_F(LostInstance, AnInstanceRestartedAtOnceEndsTheRunItLeftBehind) {
  // A lease of 60 s: no other instance ends the run within the test, so the
  // restarted i1 must, before it takes its first client.
  ASSERT_NO_FATAL_FAILURE(
      StartCluster(ScriptedDiagnosis(3, milliseconds(1500)), {.instances = 2, .lease_seconds = 60}));
  const std::string marker = "left-behind-marker";
  DiagdInstance& i1 = instance(0);
  SseReader chat(i1.port(), "POST", "/api/v1/chat", kJson, DiagnosisChat(marker));
  std::string run_id = StartRunOn(i1, chat, marker);
  ASSERT_FALSE(run_id.empty());
  SseReader watcher(instance(1).port(), "GET", "/api/v1/runs/" + run_id + "/events");
  ASSERT_EQ(watcher.status(), 200);
  std::size_t calls = ModelCallsFor(marker);

  i1.Kill();
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(StoredRuns()[run_id].status, "RUNNING") << "i2 must not end a run whose lease holds";
  ASSERT_TRUE(Restart(0));
  auto stored = StoredRuns()[run_id];
  EXPECT_EQ(stored.status, "FAILED") << "ready before ending what it left behind";
  EXPECT_EQ(stored.failure_reason, "INSTANCE_LOST");
  EXPECT_TRUE(i1.Logged("run_lost")) << i1.Log();

  ExpectLostStream(watcher.Rest(seconds(20)), run_id);
  std::this_thread::sleep_for(seconds(1));
  EXPECT_EQ(ModelCallsFor(marker), calls) << "the lost run was executed again";
}

TEST_F(LostInstance, NginxNeverSendsAChatWhoseInstanceDiedToAnotherOne) {
  // `proxy_next_upstream error timeout` without `non_idempotent`: a POST
  // that reached an instance is not passed on when the instance dies, or
  // the question would run twice. The JSON client gets nginx's 502.
  ASSERT_NO_FATAL_FAILURE(StartCluster(ScriptedDiagnosis(3, milliseconds(1500)), {.instances = 2}));
  const std::string marker = "json-chat-marker";
  HttpReply reply;
  std::thread client([&] {
    reply = Fetch(nginx_port(), "POST", "/api/v1/chat", kJson, DiagnosisChat(marker));
  });
  const std::string where = "SELECT run_id FROM diagnosis_run WHERE question LIKE '%" + marker + "%'";
  auto deadline = std::chrono::steady_clock::now() + seconds(20);
  while ((Scalar(where).empty() || ModelCallsFor(marker) == 0) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  std::string run_id = Scalar(where);
  ASSERT_FALSE(run_id.empty()) << "the chat never started a run";
  DiagdInstance* executing = ExecutingInstance(run_id);
  ASSERT_NE(executing, nullptr);
  executing->Kill();
  client.join();
  EXPECT_EQ(reply.status, 502) << reply.body;
  EXPECT_EQ(RunIdIn(reply.body), "");

  ASSERT_TRUE(WaitUntilEnded(run_id, seconds(20)));
  auto runs = StoredRuns();
  EXPECT_EQ(runs.size(), 1u) << "the chat ran again on the other instance";
  EXPECT_EQ(runs[run_id].failure_reason, "INSTANCE_LOST");
  std::size_t calls = ModelCallsFor(marker);
  std::this_thread::sleep_for(seconds(1));
  EXPECT_EQ(ModelCallsFor(marker), calls);
  // The client finds its run by its question.
  auto listed = Fetch(nginx_port(), "GET", "/api/v1/runs?q=" + marker);
  ASSERT_EQ(listed.status, 200);
  EXPECT_NE(listed.body.find(run_id), std::string::npos) << listed.body;
}

}  // namespace
}  // namespace diagd::cluster_testing
