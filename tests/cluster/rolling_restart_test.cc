// A rolling restart under load (docs/deploy.md, "Upgrades"): clients chat
// through nginx without pause while each instance in turn gets SIGTERM,
// drains its running runs within the grace period and starts again. No run
// is lost or left RUNNING, every answer a client saw is the stored one, and
// a chat refused during the restart carries no run id.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <mutex>
#include <set>
#include <sstream>
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

// What one chat of the load got.
struct ChatOutcome {
  bool streamed = false;
  int status = 0;
  std::string body;    // the JSON answer or error
  std::string run_id;  // from the answer, the error or the `run` event
  std::vector<SseEvent> events;
};

ChatOutcome JsonChat(int port, const std::string& marker) {
  ChatOutcome outcome;
  HttpReply reply = Fetch(port, "POST", "/api/v1/chat", kJson, DiagnosisChat(marker));
  outcome.status = reply.status;
  outcome.body = reply.body;
  outcome.run_id = RunIdIn(reply.body);
  return outcome;
}

ChatOutcome StreamedChat(int port, const std::string& marker) {
  ChatOutcome outcome;
  outcome.streamed = true;
  SseReader stream(port, "POST", "/api/v1/chat", kJson, DiagnosisChat(marker));
  outcome.status = stream.status();
  if (outcome.status != 200) return outcome;
  outcome.events = stream.Rest(seconds(60));
  if (!outcome.events.empty() && outcome.events.front().name == "run") {
    outcome.run_id = RunIdIn(outcome.events.front().data);
  }
  return outcome;
}

// The last log line of `instance` with this event name, parsed.
boost::json::object LastLogLine(const DiagdInstance& instance, const std::string& event) {
  boost::json::object found;
  std::istringstream lines(instance.Log());
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"event\":\"" + event + "\"") == std::string::npos) continue;
    boost::system::error_code ec;
    auto value = boost::json::parse(line, ec);
    if (!ec && value.is_object()) found = value.as_object();
  }
  return found;
}

TEST_F(ClusterTest, ARollingRestartUnderLoadLosesNoRunAndShowsOnlyStoredResults) {
  // Three model calls of 400 ms: a run lasts about 1.2 s, well within the
  // grace period.
  ASSERT_NO_FATAL_FAILURE(StartCluster(ScriptedDiagnosis(1, milliseconds(400)),
                                       {.instances = 3, .shutdown_grace_seconds = 20}));
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<ChatOutcome> outcomes;
  std::vector<std::thread> clients;
  for (int client = 0; client < 3; ++client) {
    clients.emplace_back([&, client] {
      for (int n = 0; !stop; ++n) {
        std::string marker = "load-" + std::to_string(client) + "-" + std::to_string(n);
        // Client 0 streams, the others wait for the JSON answer.
        ChatOutcome outcome =
            client == 0 ? StreamedChat(nginx_port(), marker) : JsonChat(nginx_port(), marker);
        // A refused client waits a little before it asks again, as a
        // client honouring Retry-After does.
        bool refused = outcome.run_id.empty();
        {
          std::lock_guard lock(mu);
          outcomes.push_back(std::move(outcome));
        }
        if (refused) std::this_thread::sleep_for(milliseconds(200));
      }
    });
  }

  int drained_while_running = 0;
  for (std::size_t i = 0; i < instance_count(); ++i) {
    DiagdInstance& restarted = instance(i);
    // SIGTERM while it executes a run, so that the drain has work to do.
    auto deadline = std::chrono::steady_clock::now() + seconds(15);
    const std::string running = "SELECT count(*) FROM diagnosis_run WHERE status = 'RUNNING' "
                                "AND instance_id = '" + restarted.id() + "'";
    while (Scalar(running) == "0" && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(20));
    }
    if (Scalar(running) != "0") ++drained_while_running;
    restarted.Terminate();
    auto exit_status = restarted.WaitExit(seconds(40));
    ASSERT_TRUE(exit_status.has_value()) << restarted.id() << " still runs after SIGTERM";
    EXPECT_EQ(*exit_status, 0) << restarted.Log();
    auto complete = LastLogLine(restarted, "shutdown_complete");
    EXPECT_EQ(complete["abandoned"], 0) << restarted.Log();
    ASSERT_TRUE(Restart(i));
  }
  std::this_thread::sleep_for(seconds(1));  // load on the restarted cluster too
  stop = true;
  for (auto& client : clients) client.join();
  EXPECT_EQ(drained_while_running, static_cast<int>(instance_count()))
      << "an instance got SIGTERM with no run to drain";
  // Two instances were up at every moment; nginx must never have found
  // none to send to (with nginx's default max_fails=1 fail_timeout=10s it
  // did, and answered every chat 502 for seconds).
  EXPECT_EQ(nginx().ErrorLog().find("no live upstreams"), std::string::npos);

  // Every chat that got a run id has it stored and ended well; every other
  // one was refused (503 by a draining instance, 502 by nginx for a
  // connection the instance closed unread) and never got one.
  std::set<std::string> answered;
  int refused = 0;
  for (const auto& outcome : outcomes) {
    if (!outcome.run_id.empty()) {
      EXPECT_EQ(outcome.status, 200) << outcome.body;
      EXPECT_TRUE(answered.insert(outcome.run_id).second) << "two chats got " << outcome.run_id;
      continue;
    }
    ++refused;
    EXPECT_TRUE(outcome.status == 503 || outcome.status == 502)
        << outcome.status << " " << outcome.body;
  }
  auto stored = StoredRuns();
  EXPECT_EQ(stored.size(), answered.size()) << "a run was made whose client never learnt of it";
  for (const auto& [run_id, run] : stored) {
    EXPECT_TRUE(answered.contains(run_id)) << run_id << " has no client";
    EXPECT_EQ(run.status, "SUCCEEDED") << run_id << " " << run.failure_reason;
  }
  EXPECT_GE(answered.size(), 6u) << "hardly any load: " << outcomes.size() << " chats, "
                                 << refused << " refused";
  // What each client saw is what the store holds (read from each instance
  // in turn).
  std::size_t reader = 0;
  for (const auto& outcome : outcomes) {
    if (outcome.run_id.empty()) continue;
    int port = instance(reader++ % instance_count()).port();
    HttpReply record = Fetch(port, "GET", "/api/v1/runs/" + outcome.run_id);
    ASSERT_EQ(record.status, 200) << record.body;
    auto stored_result = boost::json::parse(record.body).at("result");
    if (outcome.streamed) {
      ASSERT_GE(outcome.events.size(), 3u);
      EXPECT_TRUE(CountFromOne(outcome.events));
      EXPECT_EQ(outcome.events.back().name, "done");
      const SseEvent& result = outcome.events[outcome.events.size() - 2];
      ASSERT_EQ(result.name, "result") << result.data;
      EXPECT_EQ(boost::json::parse(result.data), stored_result);
    } else {
      EXPECT_EQ(boost::json::parse(outcome.body), stored_result);
    }
  }
}

}  // namespace
}  // namespace diagd::cluster_testing
