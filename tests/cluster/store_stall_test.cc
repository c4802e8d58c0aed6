// PostgreSQL stalled (SIGSTOP of the server and its backends) for longer
// than a lease, then resumed (docs/reliability.md promise 5): no instance
// could renew meanwhile, so no run of a live instance is ended as
// INSTANCE_LOST for it; its runs finish and their records are stored, each
// question's model calls made once. A killed instance's run is still ended
// as lost, a lease after the store answers again.
#include <gtest/gtest.h>

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

// SIGCONT however the test ends: a frozen server would hang the others.
class FrozenStore {
 public:
  explicit FrozenStore(testing::PostgresServer& postgres) : postgres_(postgres) { postgres_.Freeze(); }
  ~FrozenStore() { Thaw(); }
  FrozenStore(const FrozenStore&) = delete;
  FrozenStore& operator=(const FrozenStore&) = delete;
  void Thaw() {
    if (frozen_) postgres_.Thaw();
    frozen_ = false;
  }

 private:
  testing::PostgresServer& postgres_;
  bool frozen_ = true;
};

class StoreStall : public ClusterTest {
 protected:
  // Waits until each marker's chat has called the model.
  ::testing::AssertionResult AllCalling(const std::vector<std::string>& markers) {
    auto deadline = std::chrono::steady_clock::now() + seconds(20);
    for (const auto& marker : markers) {
      while (ModelCallsFor(marker) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          return ::testing::AssertionFailure() << marker << " never called its model";
        }
        std::this_thread::sleep_for(milliseconds(20));
      }
    }
    return ::testing::AssertionSuccess();
  }
};

TEST_F(StoreStall, NoRunOfALiveInstanceIsLostAndADeadInstancesRunStillIs) {
  // Five model calls of 1.5 s a run. i1's lease is a second longer than
  // i2's, so that without care i2's first sweep after the stall would come
  // before i1's next renewal every time, not half the time.
  ASSERT_NO_FATAL_FAILURE(StartCluster(ScriptedDiagnosis(3, milliseconds(1500)),
                                       {.lease_seconds = 3, .lease_seconds_of = {{"i1", 4}}}));
  DiagdInstance& live = instance(0);
  DiagdInstance& dead = instance(2);
  const std::vector<std::string> markers = {"stall-live-1", "stall-live-2", "stall-live-3"};
  std::vector<HttpReply> replies(markers.size());
  std::vector<std::thread> clients;
  for (std::size_t i = 0; i < markers.size(); ++i) {
    clients.emplace_back([&, i] {
      replies[i] = Fetch(live.port(), "POST", "/api/v1/chat", kJson, DiagnosisChat(markers[i]));
    });
  }
  HttpReply cut;
  std::thread dead_client(
      [&] { cut = Fetch(dead.port(), "POST", "/api/v1/chat", kJson, DiagnosisChat("stall-dead")); });
  ASSERT_TRUE(AllCalling(markers));
  ASSERT_TRUE(AllCalling({"stall-dead"}));
  const std::string dead_run =
      Scalar("SELECT run_id FROM diagnosis_run WHERE question LIKE '%stall-dead%'");
  ASSERT_FALSE(dead_run.empty());

  dead.Kill();
  dead_client.join();
  {
    FrozenStore frozen(postgres());
    std::this_thread::sleep_for(seconds(6));  // longer than any lease
  }

  for (auto& client : clients) client.join();
  auto stored = StoredRuns();
  for (std::size_t i = 0; i < markers.size(); ++i) {
    EXPECT_EQ(replies[i].status, 200) << replies[i].body;
    std::string run_id = RunIdIn(replies[i].body);
    ASSERT_TRUE(stored.contains(run_id)) << replies[i].body;
    EXPECT_EQ(stored[run_id].status, "SUCCEEDED") << run_id << " " << stored[run_id].failure_reason;
    EXPECT_EQ(ModelCallsFor(markers[i]), 5u) << "each model call made once";
  }
  EXPECT_FALSE(live.Logged("run_lost") || instance(1).Logged("run_lost")) << Logs();
  EXPECT_TRUE(instance(1).Logged("run_store_silent")) << instance(1).Log();

  ASSERT_TRUE(WaitUntilEnded(dead_run, seconds(20)));
  EXPECT_EQ(StoredRuns()[dead_run].failure_reason, "INSTANCE_LOST");
}

}  // namespace
}  // namespace diagd::cluster_testing
