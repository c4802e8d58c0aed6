// The server against a run store that fails or sticks (faulty_run_store.h)
// over real sockets, with the offline provider (a rule-based agent, no
// model): every store error is answered and survived, nothing waits for
// the store on the io thread, and a run whose record the store refuses is
// never shown as released, then stored once the store is back.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <future>
#include <thread>

#include <sqlite3.h>

#include "server/json_body.h"
#include "server/server_fixture.h"
#include "testing/scripted_diagnosis.h"

namespace diagd::server::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kQuestion = R"({"message":"订单服务从 10 点左右开始大量 500，为什么？"})";
const Headers kJson = {{"Content-Type", "application/json"}};

std::string RunIdOf(const SseEvent& run_event) {
  return std::string(Json(run_event.data)["run_id"].as_string());
}

FixtureOptions WithFaults(std::shared_ptr<StoreFaults> faults, int lease_seconds = 30) {
  FixtureOptions options;
  options.store_faults = std::move(faults);
  options.lease_seconds = lease_seconds;
  return options;
}

TEST(StoreFaults, EveryRunRouteAnswersAStoreReadErrorAndTheServerStaysUp) {
  auto faults = std::make_shared<StoreFaults>();
  ServerFixture server(WithFaults(faults));
  faults->Fail(StoreOp::kGet);
  faults->Fail(StoreOp::kList);
  faults->Fail(StoreOp::kEvents);
  // Each route, several times: the error path once destroyed a temporary
  // twice (free(): invalid size) and took the process down.
  for (int round = 0; round < 5; ++round) {
    for (const char* target : {"/api/v1/runs?limit=1", "/api/v1/runs/some-run",
                               "/api/v1/runs/some-run/events"}) {
      HttpReply reply = server.Get(target);
      EXPECT_EQ(reply.status, 503) << target << ": " << reply.body;
      EXPECT_EQ(Json(reply.body)["error"].at("code"), "STORE_UNAVAILABLE") << reply.body;
      EXPECT_EQ(reply.headers["retry-after"], "2") << target;
    }
  }
  HttpReply health = server.Get("/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(Json(health.body)["store"].at("state"), "failing") << health.body;
  faults->Heal(StoreOp::kList);
  EXPECT_EQ(server.Get("/api/v1/runs?limit=1").status, 200) << "the store is back";
  EXPECT_EQ(Json(server.Get("/healthz").body)["store"].at("state"), "ok");
}

TEST(StoreFaults, HealthzAndOtherClientsAreAnsweredWhileTheStoreIsStuck) {
  auto faults = std::make_shared<StoreFaults>();
  ServerFixture server(WithFaults(faults));
  faults->Block(StoreOp::kList);
  auto stuck = std::async(std::launch::async, [&] { return server.Get("/api/v1/runs"); });
  ASSERT_TRUE(faults->WaitBlocked(StoreOp::kList, seconds(10)));
  // The list is held inside the store until the test lets it go: anything
  // answered meanwhile did not wait for the store.
  HttpReply health = server.Get("/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(Json(health.body)["store"].at("calls_waiting"), 1) << health.body;
  EXPECT_EQ(server.Get("/metrics").status, 200);
  EXPECT_EQ(server.PostChat(R"({"message":"你好","route":"chat"})").status, 200)
      << "a chat runs while a store read is stuck";
  faults->Heal(StoreOp::kList);
  HttpReply listed = stuck.get();
  EXPECT_EQ(listed.status, 200) << listed.body;
}

TEST(StoreFaults, ARunWhoseRecordIsRefusedIsNeverShownReleasedAndIsStoredLater) {
  auto faults = std::make_shared<StoreFaults>();
  ServerFixture server(WithFaults(faults, /*lease_seconds=*/3));
  faults->Fail(StoreOp::kFinish);
  SseStream stream(server.port(), "POST", "/api/v1/chat", kJson, kQuestion);
  ASSERT_EQ(stream.status(), 200);
  auto events = stream.Rest(seconds(30));
  ASSERT_GE(events.size(), 4u);
  std::string run_id = RunIdOf(events.front());
  for (const auto& event : events) EXPECT_NE(event.name, "result") << "shown before stored";
  ASSERT_EQ(events[events.size() - 2].name, "error");
  EXPECT_EQ(Json(events[events.size() - 2].data)["code"], "RUN_NOT_STORED");
  EXPECT_EQ(events.back().name, "done");

  auto pending = Json(server.Get("/api/v1/runs/" + run_id).body);
  EXPECT_EQ(pending["status"], "RUNNING") << "the store has not taken the record yet";
  std::string metrics = server.Get("/metrics").body;
  EXPECT_NE(metrics.find("diagd_runs_unstored 1\n"), std::string::npos) << metrics;
  EXPECT_NE(server.Log().find("\"event\":\"run_not_stored\""), std::string::npos);
  EXPECT_EQ(server.Log().find("\"event\":\"run_finished\""), std::string::npos)
      << "a run the store refused was logged as finished";

  faults->Heal(StoreOp::kFinish);
  // The upkeep (every second here) writes the kept record, and just after
  // the write (which a reader may already see) takes it off the backlog and
  // logs the run as finished: wait for all three.
  auto deadline = std::chrono::steady_clock::now() + seconds(20);
  boost::json::object stored;
  while (std::chrono::steady_clock::now() < deadline) {
    stored = Json(server.Get("/api/v1/runs/" + run_id).body);
    metrics = server.Get("/metrics").body;
    if (stored["status"] != "RUNNING" &&
        metrics.find("diagd_runs_unstored 0\n") != std::string::npos &&
        server.Log().find("\"event\":\"run_finished\"") != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(stored["status"], "SUCCEEDED") << boost::json::serialize(stored);
  auto replay = ParseSse(server.Get("/api/v1/runs/" + run_id + "/events").body);
  ASSERT_GE(replay.size(), 2u);
  EXPECT_EQ(replay[replay.size() - 2].name, "result") << "the stored stream has the result";
  EXPECT_NE(metrics.find("diagd_runs_unstored 0\n"), std::string::npos) << metrics;
  EXPECT_NE(server.Log().find("\"event\":\"run_finished\""), std::string::npos);
}

TEST(StoreFaults, AJsonClientOfARefusedRecordGetsTheErrorWithTheRunId) {
  auto faults = std::make_shared<StoreFaults>();
  ServerFixture server(WithFaults(faults));
  faults->Fail(StoreOp::kFinish);
  HttpReply reply = server.PostChat(kQuestion);
  EXPECT_EQ(reply.status, 500) << reply.body;
  auto error = Json(reply.body)["error"].as_object();
  EXPECT_EQ(error["code"], "RUN_NOT_STORED") << reply.body;
  ASSERT_TRUE(error.contains("run_id")) << reply.body;
  EXPECT_FALSE(error["run_id"].as_string().empty());
}

TEST(StoreFaults, ARunTheStoreRefusesToCreateIsNotExecuted) {
  auto faults = std::make_shared<StoreFaults>();
  ServerFixture server(WithFaults(faults));
  faults->Fail(StoreOp::kCreate);
  SseStream stream(server.port(), "POST", "/api/v1/chat", kJson, kQuestion);
  ASSERT_EQ(stream.status(), 200);
  auto events = stream.Rest(seconds(30));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[events.size() - 2].name, "error");
  EXPECT_EQ(Json(events[events.size() - 2].data)["code"], "RUN_NOT_EXECUTED");
  for (const auto& event : events) EXPECT_NE(event.name, "progress") << "the run was executed";
}

// Another process's write transaction on the run store's file, as a
// backup tool, a second diagd or an operator's `sqlite3` session (`begin`:
// BEGIN IMMEDIATE or BEGIN EXCLUSIVE) would hold it, until released.
class WriteLockHolder {
 public:
  explicit WriteLockHolder(const std::string& path, const char* begin = "BEGIN IMMEDIATE") {
    // It waits its turn for the lock like any client (the server may be
    // writing the run's start right now).
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK || sqlite3_busy_timeout(db_, 5000) ||
        sqlite3_exec(db_, begin, nullptr, nullptr, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << "could not take the write lock of " << path;
    }
  }
  ~WriteLockHolder() { Release(); }
  void Release() {
    if (db_ == nullptr) return;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
    db_ = nullptr;
  }

 private:
  sqlite3* db_ = nullptr;
};

TEST(StoreFaults, AWriteLockHeldPastTheBusyTimeoutDelaysTheResultAndLosesNothing) {
  // The run waits a second on its model; meanwhile another "process" takes
  // the real SQLite write lock and holds it past the store's 5 s busy
  // timeout, so the first write of the finished record fails and the
  // writer's retry (after the lock is gone) stores it.
  diagd::testing::ScriptedModelServer model(diagd::testing::ScriptedDiagnosis(1, seconds(1)));
  FixtureOptions options;
  options.model_base_url = model.BaseUrl();
  ServerFixture server(options);
  std::string path = server.config().storage.runs.substr(std::string("sqlite:").size());
  SseStream stream(server.port(), "POST", "/api/v1/chat", kJson,
                   R"({"message":"payment-service 为什么失败？","route":"diagnosis"})");
  ASSERT_EQ(stream.status(), 200);
  auto first = stream.Next();
  ASSERT_TRUE(first && first->name == "run");
  WriteLockHolder lock(path);
  // 12 s, as in the report that found it: the run finishes after about 3 s
  // of model calls, and its first write waits out the 5 s busy timeout.
  std::this_thread::sleep_for(seconds(12));
  HttpReply health = server.Get("/healthz");
  EXPECT_EQ(health.status, 200) << "answered while the store waits on the lock";
  lock.Release();
  auto rest = stream.Rest(seconds(60));
  ASSERT_GE(rest.size(), 2u);
  EXPECT_EQ(rest[rest.size() - 2].name, "result") << rest[rest.size() - 2].data;
  auto stored = Json(server.Get("/api/v1/runs/" + RunIdOf(*first)).body);
  EXPECT_EQ(stored["status"], "SUCCEEDED");
  EXPECT_EQ(stored["release_outcome"], "DIAGNOSIS");
  std::string metrics = server.Get("/metrics").body;
  EXPECT_EQ(metrics.find("diagd_run_store_errors_total 0\n"), std::string::npos)
      << "the first write should have failed on the lock and been retried:\n" << metrics;
}

class ForeignLockTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ForeignLockTest, TheRunListIsAnsweredWhileAWriteWaitsForTheLock) {
  ServerFixture server(FixtureOptions{});
  ASSERT_EQ(server.PostChat(kQuestion).status, 200);
  std::string path = server.config().storage.runs.substr(std::string("sqlite:").size());
  WriteLockHolder lock(path, GetParam());
  // A chat's first write (its run) waits for the lock, for up to the
  // store's 5 s busy timeout; /healthz counts it among the calls waiting.
  auto chat = std::async(std::launch::async, [&] { return server.PostChat(kQuestion); });
  auto waiting = [&] {
    return Json(server.Get("/healthz").body)["store"].at("calls_waiting").as_int64() > 0;
  };
  auto deadline = std::chrono::steady_clock::now() + seconds(30);
  while (!waiting() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_TRUE(waiting()) << "the chat's write is waiting for the lock";
  // A list is a read of a millisecond: two seconds is the bound a client is
  // promised, whatever a write waits for.
  for (int round = 0; round < 3; ++round) {
    auto started = std::chrono::steady_clock::now();
    HttpReply listed = server.Get("/api/v1/runs");
    EXPECT_LT(std::chrono::steady_clock::now() - started, seconds(2)) << "round " << round;
    EXPECT_EQ(listed.status, 200) << listed.body;
    EXPECT_EQ(Json(listed.body)["runs"].as_array().size(), 1u) << listed.body;
  }
  EXPECT_EQ(chat.wait_for(milliseconds(0)), std::future_status::timeout)
      << "the chat still waited for the lock while the list was answered";
  lock.Release();
  EXPECT_EQ(chat.get().status, 200);
}

// The store's upkeep (every second here) has nothing to renew, sweep or
// purge on an idle server, and takes no write lock for it: an operator's
// lock held past the store's 5 s busy timeout costs an idle server nothing,
// where each round's writes would wait it out and fail.
TEST(StoreFaults, AnIdleServersUpkeepTakesNoWriteLock) {
  FixtureOptions options;
  options.lease_seconds = 3;
  ServerFixture server(options);
  ASSERT_EQ(server.PostChat(kQuestion).status, 200);
  ASSERT_TRUE(server.WaitIdle());
  std::string path = server.config().storage.runs.substr(std::string("sqlite:").size());
  {
    WriteLockHolder lock(path);
    std::this_thread::sleep_for(seconds(7));  // seven rounds, one past the busy timeout
  }
  std::string metrics = server.Get("/metrics").body;
  EXPECT_NE(metrics.find("diagd_run_store_errors_total 0\n"), std::string::npos) << metrics;
  EXPECT_EQ(Json(server.Get("/healthz").body)["store"].at("state"), "ok");
}

// What an operator types in `sqlite3 runs.db` to hold the file still.
INSTANTIATE_TEST_SUITE_P(OperatorSessions, ForeignLockTest,
                         ::testing::Values("BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"),
                         [](const auto& info) { return std::string(info.param).substr(6); });

}  // namespace
}  // namespace diagd::server::testing
