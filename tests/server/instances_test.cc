// Two servers in this process standing for two instances of one service
// (docs/deploy.md): one run store file, one in-process run bus
// (memory_run_bus.h, which plays Redis's part: tests/cluster runs real
// processes on real Redis and PostgreSQL). The scripted model server (over
// real HTTP; it plays a script, it is no model) holds the run in the
// middle of its second model call, so it is still running while the other
// instance streams and cancels it; the hold is minutes, so only the cancel
// ends it, and nothing here measures time.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <thread>

#include "server/json_body.h"
#include "server/memory_run_bus.h"
#include "server/server_fixture.h"
#include "testing/eventually.h"
#include "testing/scripted_model_server.h"

namespace diagd::server::testing {
namespace {

using diagd::testing::Eventually;

namespace fs = std::filesystem;
using diagd::testing::ScriptedAnswer;
using diagd::testing::ScriptedModelServer;
using diagd::testing::ScriptedReply;

constexpr auto kHold = std::chrono::minutes(10);
constexpr const char* kQuestion =
    R"({"message":"payment-service 为什么超时？","route":"diagnosis"})";
const Headers kJson = {{"Content-Type", "application/json"}};

std::string Describe(const std::vector<SseEvent>& events) {
  std::string text;
  for (const auto& event : events) text += std::to_string(event.id) + ":" + event.name + " ";
  return text;
}

// Ids 1, 2, 3... from `first`, each once.
void ExpectCountingFrom(const std::vector<SseEvent>& events, int first) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].id, first + static_cast<std::int64_t>(i)) << Describe(events);
  }
}

class InstancesTest : public ::testing::Test {
 protected:
  InstancesTest() {
    dir_ = fs::temp_directory_path() / ("diagd-instances-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    model_.CallTools({{"call_1", "query_logs",
                       R"({"input":{"topic":"payment-service","query":"HikariPool"}})", false}});
    model_.Then(ScriptedReply{ScriptedAnswer{"never sent"}, kHold});
  }
  ~InstancesTest() override {
    a_.reset();
    b_.reset();
    fs::remove_all(dir_);
  }

  void StartInstances() {
    a_ = std::make_unique<ServerFixture>(Options("instance-a", *bus_a_));
    b_ = std::make_unique<ServerFixture>(Options("instance-b", *bus_b_));
  }
  FixtureOptions Options(const std::string& instance_id, MemoryRunBus& bus) {
    FixtureOptions options;
    options.model_base_url = model_.BaseUrl();
    options.model_timeout_seconds = 3600;
    options.runs_url = "sqlite:" + (dir_ / "shared-runs.db").string();
    options.instance_id = instance_id;
    options.bus = &bus;
    options.sse_keepalive = std::chrono::milliseconds(200);
    return options;
  }

  // Starts a chat on A and waits until its run is held mid-run; its id.
  std::string StartHeldRun(std::unique_ptr<SseStream>& chat) {
    chat = std::make_unique<SseStream>(a_->port(), "POST", "/api/v1/chat", kJson, kQuestion);
    EXPECT_EQ(chat->status(), 200);
    auto run = chat->Next();
    EXPECT_TRUE(run && run->name == "run");
    if (!run) return {};
    EXPECT_TRUE(Eventually([&] { return model_.Requests().size() == 2; })) << "the second call is held";
    return std::string(Json(run->data).at("run_id").as_string());
  }

  void StartInstancesWithFaults(const std::shared_ptr<StoreFaults>& faults, int lease_seconds_a,
                                int lease_seconds_b);
  static bool Logged(ServerFixture& server, const char* event);
  void ExpectStillRunning(const std::string& run_id, SseStream& chat);

  std::string Status(const std::string& run_id) {
    auto record = b_->Get("/api/v1/runs/" + run_id);
    if (record.status != 200) return "HTTP " + std::to_string(record.status);
    return std::string(Json(record.body).at("status").as_string());
  }

  fs::path dir_;
  ScriptedModelServer model_;
  MemoryRunBusHub hub_;
  std::unique_ptr<MemoryRunBus> bus_a_ = hub_.NewEnd();
  std::unique_ptr<MemoryRunBus> bus_b_ = hub_.NewEnd();
  std::unique_ptr<ServerFixture> a_;
  std::unique_ptr<ServerFixture> b_;
};

TEST_F(InstancesTest, AnotherInstanceStreamsARunningRunLiveResumesItAndCancelsIt) {
  StartInstances();
  std::unique_ptr<SseStream> chat;
  std::string run_id = StartHeldRun(chat);
  ASSERT_FALSE(run_id.empty());

  // On B, while the run is held on A: what happened so far, from the store.
  SseStream on_b(b_->port(), "GET", "/api/v1/runs/" + run_id + "/events");
  ASSERT_EQ(on_b.status(), 200);
  std::vector<SseEvent> seen;  // run, route, and the tool call's progress
  while (seen.size() < 3) {
    auto event = on_b.Next();
    if (!event) break;
    seen.push_back(*event);
  }
  ASSERT_EQ(seen.size(), 3u) << Describe(seen);
  EXPECT_EQ(seen[0].name, "run");
  EXPECT_EQ(seen[1].name, "route");
  EXPECT_EQ(seen[2].name, "progress");
  EXPECT_EQ(Status(run_id), "RUNNING") << "seen while the run is still running";

  // A client that saw two events resumes on B after them.
  SseStream resumed(b_->port(), "GET", "/api/v1/runs/" + run_id + "/events",
                    {{"Last-Event-ID", "2"}});
  auto third = resumed.Next();
  ASSERT_TRUE(third);
  EXPECT_EQ(third->id, 3);
  EXPECT_EQ(third->data, seen[2].data);

  auto cancelled = b_->Post("/api/v1/runs/" + run_id + "/cancel");
  ASSERT_EQ(cancelled.status, 202) << cancelled.body;

  // Every stream ends with result and done, each event once, in order, and
  // B's streams carry exactly what A's own did.
  std::vector<SseEvent> on_a = chat->Rest();
  std::vector<SseEvent> rest = on_b.Rest();
  seen.insert(seen.end(), rest.begin(), rest.end());
  ASSERT_GE(seen.size(), 5u) << Describe(seen);
  ExpectCountingFrom(seen, 1);
  EXPECT_EQ(seen[seen.size() - 2].name, "result");
  EXPECT_EQ(seen.back().name, "done");
  ASSERT_EQ(on_a.size() + 1, seen.size()) << "A's stream, after its `run`: " << Describe(on_a);
  for (std::size_t i = 0; i < on_a.size(); ++i) {
    EXPECT_EQ(on_a[i].id, seen[i + 1].id);
    EXPECT_EQ(on_a[i].name, seen[i + 1].name);
    EXPECT_EQ(on_a[i].data, seen[i + 1].data);
  }
  std::vector<SseEvent> resumed_rest = resumed.Rest();
  ExpectCountingFrom(resumed_rest, 4);
  EXPECT_EQ(resumed_rest.size() + 3, seen.size()) << Describe(resumed_rest);

  auto record = Json(b_->Get("/api/v1/runs/" + run_id).body);
  EXPECT_EQ(record.at("stop_reason"), "CANCELLED");
  auto stored = b_->runs().GetRun(run_id);
  ASSERT_TRUE(stored && stored->has_value());
  EXPECT_EQ((*stored)->instance_id, "instance-a");
  EXPECT_EQ(model_.Requests().size(), 2u) << "no model call after the cancel";
  EXPECT_NE(a_->Log().find("another instance"), std::string::npos) << a_->Log();
}

TEST_F(InstancesTest, WithTheBusDownAStreamElsewhereReadsTheStoreAndACancelThereIsRefused) {
  StartInstances();
  hub_.SetUp(false);
  std::unique_ptr<SseStream> chat;
  std::string run_id = StartHeldRun(chat);
  ASSERT_FALSE(run_id.empty());

  SseStream on_b(b_->port(), "GET", "/api/v1/runs/" + run_id + "/events");
  auto first = on_b.Next();
  ASSERT_TRUE(first) << "the store has the run's events while the bus is down";
  EXPECT_EQ(first->name, "run");

  auto refused = b_->Post("/api/v1/runs/" + run_id + "/cancel");
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(Json(refused.body).at("error").at("code"), "RUN_BUS_UNAVAILABLE");
  EXPECT_EQ(Status(run_id), "RUNNING") << "the refused cancel reached nothing";

  ASSERT_EQ(a_->Post("/api/v1/runs/" + run_id + "/cancel").status, 202);
  std::vector<SseEvent> seen{*first};
  std::vector<SseEvent> rest = on_b.Rest();
  seen.insert(seen.end(), rest.begin(), rest.end());
  ExpectCountingFrom(seen, 1);
  ASSERT_GE(seen.size(), 5u) << Describe(seen);
  EXPECT_EQ(seen.back().name, "done");
  EXPECT_EQ(hub_.published(), 0) << "nothing went over the bus";
  chat->Rest();
}

TEST_F(InstancesTest, EventsLostWhileTheBusWasDownAreReadFromTheStoreOnceItIsBack) {
  StartInstances();
  std::unique_ptr<SseStream> chat;
  std::string run_id = StartHeldRun(chat);
  ASSERT_FALSE(run_id.empty());
  SseStream on_b(b_->port(), "GET", "/api/v1/runs/" + run_id + "/events");
  std::vector<SseEvent> seen;
  while (seen.size() < 3) {
    auto event = on_b.Next();
    if (!event) break;
    seen.push_back(*event);
  }
  ASSERT_EQ(seen.size(), 3u) << Describe(seen);

  // The run ends while the bus is down: its last events are never
  // published. They come from the store, once the bus is back or at the
  // next poll, whichever is first.
  hub_.SetUp(false);
  ASSERT_EQ(a_->Post("/api/v1/runs/" + run_id + "/cancel").status, 202);
  chat->Rest();
  hub_.SetUp(true);
  std::vector<SseEvent> rest = on_b.Rest();
  seen.insert(seen.end(), rest.begin(), rest.end());
  ExpectCountingFrom(seen, 1);
  EXPECT_EQ(seen.back().name, "done") << Describe(seen);
}

// Both instances on one store whose calls fail or block as `faults` says;
// the upkeep of each every third of its lease.
void InstancesTest::StartInstancesWithFaults(const std::shared_ptr<StoreFaults>& faults,
                                             int lease_seconds_a, int lease_seconds_b) {
  FixtureOptions a = Options("instance-a", *bus_a_);
  FixtureOptions b = Options("instance-b", *bus_b_);
  a.store_faults = b.store_faults = faults;
  a.lease_seconds = lease_seconds_a;
  b.lease_seconds = lease_seconds_b;
  a_ = std::make_unique<ServerFixture>(a);
  b_ = std::make_unique<ServerFixture>(b);
}

bool InstancesTest::Logged(ServerFixture& server, const char* event) {
  return server.Log().find(std::string("\"event\":\"") + event + "\"") != std::string::npos;
}

// The held run is still running on A, no one took it for lost, and a
// cancel still ends it.
void InstancesTest::ExpectStillRunning(const std::string& run_id, SseStream& chat) {
  EXPECT_EQ(Status(run_id), "RUNNING");
  EXPECT_FALSE(Logged(*a_, "run_lost") || Logged(*b_, "run_lost")) << b_->Log();
  ASSERT_EQ(a_->Post("/api/v1/runs/" + run_id + "/cancel").status, 202);
  auto rest = chat.Rest();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back().name, "done");
  EXPECT_EQ(Json(b_->Get("/api/v1/runs/" + run_id).body).at("stop_reason"), "CANCELLED");
}

const StoreOp kUpkeep[] = {StoreOp::kRenew, StoreOp::kReclaim, StoreOp::kPurge};

// PostgreSQL down for longer than a lease: no instance could renew, so
// every lease ran out meanwhile. Once the store is back, the run still
// executing is not taken for lost: for a lease, only runs whose lease ran
// out before the outage began are (a dead instance's).
TEST_F(InstancesTest, AfterAStoreOutageLongerThanALeaseARunStillExecutingIsNotTakenForLost) {
  auto faults = std::make_shared<StoreFaults>();
  StartInstancesWithFaults(faults, 3, 3);  // the upkeep every second
  std::unique_ptr<SseStream> chat;
  std::string run_id = StartHeldRun(chat);
  ASSERT_FALSE(run_id.empty());

  for (StoreOp op : kUpkeep) faults->Fail(op);
  ASSERT_TRUE(Eventually([&] {
    return Logged(*a_, "run_store_failing") && Logged(*b_, "run_store_failing");
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(4500));  // the lease runs out
  for (StoreOp op : kUpkeep) faults->Heal(op);
  ASSERT_TRUE(Eventually([&] {
    return Logged(*a_, "run_store_recovered") && Logged(*b_, "run_store_recovered");
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(4500));  // and the lease after it

  ExpectStillRunning(run_id, *chat);
}

// The store stalled (no error: its calls wait, as on a stopped PostgreSQL)
// for longer than a lease, then answers every waiting call at once: A's
// renewal comes back having written a lease that already ran out. A's lease
// is a second longer than B's, so B's first sweep after the stall comes
// before A's next round, every time: the race the stall opens is always
// lost unless B knows the store was silent.
TEST_F(InstancesTest, AfterAStoreStallLongerThanALeaseARunStillExecutingIsNotTakenForLost) {
  auto faults = std::make_shared<StoreFaults>();
  StartInstancesWithFaults(faults, 4, 3);
  std::unique_ptr<SseStream> chat;
  std::string run_id = StartHeldRun(chat);
  ASSERT_FALSE(run_id.empty());

  for (StoreOp op : kUpkeep) faults->Block(op);
  ASSERT_TRUE(faults->WaitBlocked(StoreOp::kRenew, std::chrono::seconds(10)));
  std::this_thread::sleep_for(std::chrono::milliseconds(5500));  // A's lease runs out
  for (StoreOp op : kUpkeep) faults->Heal(op);
  std::this_thread::sleep_for(std::chrono::milliseconds(4500));  // B's lease after it

  EXPECT_TRUE(Logged(*b_, "run_store_silent")) << b_->Log();
  ExpectStillRunning(run_id, *chat);
}

}  // namespace
}  // namespace diagd::server::testing
