// Live runs across instances (docs/deploy.md): a run's live events, its
// resume with Last-Event-ID and its cancel on any instance, with no gap and
// no duplicate: the instances share a PostgreSQL run store and a Redis
// (`storage.canonical`, also the run bus that carries live events and
// cancels between instances; tests/testing/redis_server.h).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster_fixture.h"
#include "testing/redis_server.h"
#include "testing/scripted_diagnosis.h"

namespace diagd::cluster_testing {
namespace {

using diagd::testing::ScriptedDiagnosis;
using std::chrono::milliseconds;
using std::chrono::seconds;

ClusterOptions WithRedis(const testing::RedisServer& redis, int instances = 3) {
  return {.instances = instances,
          .more_storage = "canonical = \"" + redis.Url() + "\"\n"};
}

class SharedStreams : public ClusterTest {
 protected:
  // Some instance other than `executing`.
  DiagdInstance& Another(const DiagdInstance* executing) {
    for (std::size_t i = 0; i < instance_count(); ++i) {
      if (&instance(i) != executing) return instance(i);
    }
    return instance(0);
  }

  // The run's stream as the store holds it, read through nginx.
  std::vector<SseEvent> StoredStream(const std::string& run_id) {
    return server::testing::ParseSse(
        Fetch(nginx_port(), "GET", "/api/v1/runs/" + run_id + "/events").body);
  }

  static void ExpectSameEvents(const std::vector<SseEvent>& seen,
                               const std::vector<SseEvent>& stored) {
    ASSERT_EQ(seen.size(), stored.size());
    for (std::size_t i = 0; i < seen.size(); ++i) {
      EXPECT_EQ(seen[i].id, stored[i].id);
      EXPECT_EQ(seen[i].name, stored[i].name);
      EXPECT_EQ(seen[i].data, stored[i].data);
    }
  }
};

TEST_F(SharedStreams, AStreamCutOnOneInstanceResumesOnAnotherLiveWithEveryEventOnce) {
  DIAGD_SHARED_REDIS(redis);
  // Five model calls of 800 ms: the run goes on for seconds after the cut.
  ASSERT_NO_FATAL_FAILURE(StartCluster(ScriptedDiagnosis(3, milliseconds(800)), WithRedis(*redis)));
  SseReader chat(nginx_port(), "POST", "/api/v1/chat", kJson, DiagnosisChat("resume-marker"));
  ASSERT_EQ(chat.status(), 200);
  std::vector<SseEvent> seen = chat.Through("progress");
  ASSERT_FALSE(seen.empty());
  ASSERT_EQ(seen.back().name, "progress") << "the stream ended before a progress event";
  std::string run_id = RunIdIn(seen.front().data);
  chat.Close();  // the client goes away mid-run

  DiagdInstance* executing = ExecutingInstance(run_id);
  ASSERT_NE(executing, nullptr);
  DiagdInstance& other = Another(executing);
  SseReader resumed(other.port(), "GET", "/api/v1/runs/" + run_id + "/events",
                    {{"Last-Event-ID", std::to_string(seen.back().id)}});
  ASSERT_EQ(resumed.status(), 200);
  auto next = resumed.Next(seconds(20));
  ASSERT_TRUE(next.has_value()) << "nothing came on " << other.id();
  EXPECT_EQ(StoredRuns()[run_id].status, "RUNNING")
      << "the resumed stream got its first event only once the run had ended: not live";
  seen.push_back(*next);
  auto rest = resumed.Rest(seconds(30));
  seen.insert(seen.end(), rest.begin(), rest.end());

  EXPECT_TRUE(CountFromOne(seen));
  ASSERT_GE(seen.size(), 4u);
  EXPECT_EQ(seen[seen.size() - 2].name, "result");
  EXPECT_EQ(seen.back().name, "done");
  EXPECT_EQ(StoredRuns()[run_id].status, "SUCCEEDED");
  ExpectSameEvents(seen, StoredStream(run_id));
}

TEST_F(SharedStreams, ACancelSentToAnotherInstanceStopsTheRun) {
  DIAGD_SHARED_REDIS(redis);
  ASSERT_NO_FATAL_FAILURE(
      StartCluster(ScriptedDiagnosis(5, milliseconds(800)), WithRedis(*redis, 2)));
  const std::string marker = "cancel-marker";
  DiagdInstance& executing = instance(0);
  SseReader chat(executing.port(), "POST", "/api/v1/chat", kJson, DiagnosisChat(marker));
  ASSERT_EQ(chat.status(), 200);
  std::vector<SseEvent> seen = chat.Through("progress");
  ASSERT_FALSE(seen.empty());
  std::string run_id = RunIdIn(seen.front().data);

  HttpReply cancel = Fetch(instance(1).port(), "POST", "/api/v1/runs/" + run_id + "/cancel");
  ASSERT_EQ(cancel.status, 202) << cancel.body;
  auto rest = chat.Rest(seconds(30));
  seen.insert(seen.end(), rest.begin(), rest.end());
  ASSERT_GE(seen.size(), 3u);
  EXPECT_TRUE(CountFromOne(seen));
  EXPECT_EQ(seen[seen.size() - 2].name, "result") << "a cancelled run releases what it checked";
  EXPECT_EQ(seen.back().name, "done");

  ASSERT_TRUE(WaitUntilEnded(run_id, seconds(10)));
  HttpReply record = Fetch(instance(1).port(), "GET", "/api/v1/runs/" + run_id);
  ASSERT_EQ(record.status, 200);
  auto run = boost::json::parse(record.body).as_object();
  EXPECT_EQ(run["stop_reason"], "CANCELLED") << record.body;
  EXPECT_EQ(run["internal_status"], "STOPPED");
  // Seven calls had it run to the end; a cancel makes no further call.
  std::size_t calls = ModelCallsFor(marker);
  EXPECT_LT(calls, 7u);
  std::this_thread::sleep_for(seconds(1));
  EXPECT_EQ(ModelCallsFor(marker), calls);
  HttpReply again = Fetch(instance(1).port(), "POST", "/api/v1/runs/" + run_id + "/cancel");
  EXPECT_EQ(again.status, 409) << again.body;
}

TEST_F(SharedStreams, WithRedisGoneARunFinishesAndAStreamOnAnotherInstanceStillEnds) {
  DIAGD_SHARED_REDIS(redis);
  ASSERT_NO_FATAL_FAILURE(
      StartCluster(ScriptedDiagnosis(3, milliseconds(800)), WithRedis(*redis, 2)));
  struct RestartRedis {  // the shared server must be up again for the next test
    testing::RedisServer* redis;
    ~RestartRedis() {
      if (!redis->running()) {
        EXPECT_TRUE(redis->Restart());
      }
    }
  } restart{redis};
  DiagdInstance& executing = instance(0);
  SseReader chat(executing.port(), "POST", "/api/v1/chat", kJson, DiagnosisChat("redis-down"));
  ASSERT_EQ(chat.status(), 200);
  std::vector<SseEvent> seen = chat.Through("progress");
  ASSERT_FALSE(seen.empty());
  std::string run_id = RunIdIn(seen.front().data);
  SseReader watcher(instance(1).port(), "GET", "/api/v1/runs/" + run_id + "/events");
  ASSERT_EQ(watcher.status(), 200);
  auto first = watcher.Next(seconds(10));
  ASSERT_TRUE(first.has_value());
  std::vector<SseEvent> watched{*first};

  redis->Stop();
  auto rest = chat.Rest(seconds(30));
  seen.insert(seen.end(), rest.begin(), rest.end());
  EXPECT_TRUE(CountFromOne(seen));
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[seen.size() - 2].name, "result");
  EXPECT_EQ(seen.back().name, "done");
  ASSERT_TRUE(WaitUntilEnded(run_id, seconds(10)));
  EXPECT_EQ(StoredRuns()[run_id].status, "SUCCEEDED");

  // The other instance's stream lost the bus: it reads the store instead.
  auto more = watcher.Rest(seconds(30));
  watched.insert(watched.end(), more.begin(), more.end());
  EXPECT_TRUE(CountFromOne(watched));
  ASSERT_FALSE(watched.empty());
  EXPECT_EQ(watched.back().name, "done");
  ExpectSameEvents(watched, StoredStream(run_id));
  ExpectSameEvents(seen, StoredStream(run_id));

  ASSERT_TRUE(redis->Restart());
  // With Redis back, a new run streams live across instances again.
  SseReader again(nginx_port(), "POST", "/api/v1/chat", kJson, DiagnosisChat("redis-back"));
  ASSERT_EQ(again.status(), 200);
  auto events = again.Rest(seconds(30));
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.back().name, "done");
}

TEST_F(SharedStreams, AClientCutByAKilledInstanceResumesThroughNginxAndSeesTheLoss) {
  DIAGD_SHARED_REDIS(redis);
  ASSERT_NO_FATAL_FAILURE(
      StartCluster(ScriptedDiagnosis(3, milliseconds(1500)), WithRedis(*redis)));
  const std::string marker = "killed-resume-marker";
  SseReader chat(nginx_port(), "POST", "/api/v1/chat", kJson, DiagnosisChat(marker));
  ASSERT_EQ(chat.status(), 200);
  std::vector<SseEvent> seen = chat.Through("progress");
  ASSERT_FALSE(seen.empty());
  std::string run_id = RunIdIn(seen.front().data);
  DiagdInstance* executing = ExecutingInstance(run_id);
  ASSERT_NE(executing, nullptr);
  executing->Kill();
  auto cut = chat.Rest(seconds(5));
  seen.insert(seen.end(), cut.begin(), cut.end());
  // nginx ends the cut stream as if it were whole (a last chunk: diagd's
  // streams end with the connection, so nginx cannot tell a crash from the
  // end); only the missing `done` tells the client to resume.
  for (const auto& event : cut) ASSERT_NE(event.name, "done");

  // The client asks again through nginx, from the last id it saw; nginx
  // finds the killed instance refusing and takes another.
  SseReader resumed(nginx_port(), "GET", "/api/v1/runs/" + run_id + "/events",
                    {{"Last-Event-ID", std::to_string(seen.back().id)}});
  ASSERT_EQ(resumed.status(), 200);
  auto rest = resumed.Rest(seconds(30));
  seen.insert(seen.end(), rest.begin(), rest.end());
  EXPECT_TRUE(CountFromOne(seen));
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[seen.size() - 2].name, "error");
  EXPECT_NE(seen[seen.size() - 2].data.find("\"INSTANCE_LOST\""), std::string::npos);
  EXPECT_EQ(seen.back().name, "done");
  ExpectSameEvents(seen, StoredStream(run_id));
}

}  // namespace
}  // namespace diagd::cluster_testing
