// What only the PostgreSQL store has to prove (the behaviour it shares with
// SQLite is proved by the suites that run on both): instances migrating one
// database at once, a server that is not there, connections that die
// between and during writes, and what the schema refuses.
#include "store/postgres_run_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "store/postgres_db.h"
#include "store/postgres_migrations.h"
#include "store/store_test_support.h"
#include "testing/free_port.h"
#include "testing/postgres_server.h"

namespace diagd::store {
namespace {

using namespace std::chrono_literals;
using testing::At;
using testing::RunningRun;

class PostgresRunStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = diagd::testing::SharedPostgresServer();
    if (!server && server.error().code == ErrorCode::kFailedPrecondition) {
      GTEST_SKIP() << server.error().message;
    }
    ASSERT_TRUE(server) << server.error().ToString();
    server_ = *server;
    auto url = server_->CreateDatabase();
    ASSERT_TRUE(url) << url.error().ToString();
    url_ = *url;
    database_ = url_.substr(url_.rfind('/') + 1);
  }

  std::string Scalar(const std::string& sql) {
    auto value = server_->Scalar(database_, sql);
    EXPECT_TRUE(value) << value.error().ToString();
    return value ? *value : std::string();
  }

  // Ends every session on this test's database but the asking one's.
  void TerminateSessions(const std::string& condition = "true") {
    ASSERT_TRUE(server_->Execute(
        database_, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" +
                       database_ + "' AND pid <> pg_backend_pid() AND " + condition));
  }

  static app::RunRecord Finished(const std::string& run_id) {
    app::RunRecord run = RunningRun(run_id, At(0));
    run.status = "SUCCEEDED";
    run.internal_status = "COMPLETED";
    run.release_outcome = "DIAGNOSIS";
    run.finished_at = At(2'000);
    run.result_json = R"({"run_id":")" + run_id + "\"}";
    run.steps = {{1, 10, {"call-1"}}};
    harness::TraceEvent event;
    event.seq = 1;
    event.time = At(1);
    event.fields = {{"route", std::string("DIAGNOSIS")}};
    run.trace = {event};
    run.events = {{1, "run", "{}"}, {2, "done", "{}"}};
    run.observations = {{"call-1", R"({"rows":1})"}};
    return run;
  }

  diagd::testing::PostgresServer* server_ = nullptr;
  std::string url_;
  std::string database_;
  ManualClock clock_{At(0)};
};

TEST_F(PostgresRunStoreTest, InstancesMigratingOneEmptyDatabaseAtOnceAllOpenOnOneSchema) {
  constexpr int kInstances = 6;
  std::atomic<int> ready{0};
  std::vector<std::optional<Result<std::unique_ptr<PostgresRunStore>>>> opened(kInstances);
  std::vector<std::thread> threads;
  for (int i = 0; i < kInstances; ++i) {
    threads.emplace_back([&, i] {
      ++ready;
      while (ready.load() < kInstances) std::this_thread::yield();
      opened[static_cast<std::size_t>(i)].emplace(PostgresRunStore::Open(url_, clock_));
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < kInstances; ++i) {
    const auto& store = *opened[static_cast<std::size_t>(i)];
    ASSERT_TRUE(store) << i << ": " << store.error().ToString();
  }
  // Every step applied once, by one of them.
  EXPECT_EQ(Scalar("SELECT count(*) FROM schema_migrations"),
            std::to_string(PostgresRunStoreMigrations().size()));
  EXPECT_EQ(Scalar("SELECT count(DISTINCT version) FROM schema_migrations"),
            std::to_string(PostgresRunStoreMigrations().size()));
  // And they share it: what one writes, another reads.
  ASSERT_TRUE((**opened[0])->CreateRun(RunningRun("run-1", At(0))));
  auto seen = (**opened[kInstances - 1])->GetRun("run-1");
  ASSERT_TRUE(seen) << seen.error().ToString();
  EXPECT_TRUE(seen->has_value());
}

TEST_F(PostgresRunStoreTest, ReopeningAppliesNothingAgainAndKeepsTheRuns) {
  {
    auto store = PostgresRunStore::Open(url_, clock_);
    ASSERT_TRUE(store) << store.error().ToString();
    ASSERT_TRUE((*store)->FinishRun(Finished("run-1")));
  }
  std::string applied_at = Scalar("SELECT applied_at FROM schema_migrations WHERE version = 1");
  clock_.Advance(1h);
  auto store = PostgresRunStore::Open(url_, clock_);
  ASSERT_TRUE(store) << store.error().ToString();
  EXPECT_EQ(Scalar("SELECT applied_at FROM schema_migrations WHERE version = 1"), applied_at);
  auto run = (*store)->GetRun("run-1");
  ASSERT_TRUE(run && run->has_value());
  EXPECT_EQ((*run)->status, "SUCCEEDED");
}

TEST_F(PostgresRunStoreTest, ASchemaFromANewerVersionIsRefusedUntouched) {
  { ASSERT_TRUE(PostgresRunStore::Open(url_, clock_)); }
  ASSERT_TRUE(server_->Execute(database_,
                               "INSERT INTO schema_migrations VALUES (99, 'future', 'later')"));
  auto store = PostgresRunStore::Open(url_, clock_);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(store.error().message.find("schema version 99"), std::string::npos)
      << store.error().message;
  EXPECT_EQ(Scalar("SELECT count(*) FROM schema_migrations"),
            std::to_string(PostgresRunStoreMigrations().size() + 1));
}

TEST_F(PostgresRunStoreTest, ADatabaseWithSomeoneElsesTablesIsRefusedUntouched) {
  ASSERT_TRUE(server_->Execute(database_, "CREATE TABLE invoices (id int)"));
  auto store = PostgresRunStore::Open(url_, clock_);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_EQ(Scalar("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "1");
}

TEST_F(PostgresRunStoreTest, AServerThatIsNotThereIsAClearUnavailableErrorWithoutThePassword) {
  int port = diagd::testing::FreeLoopbackPort();  // nothing listens there
  ASSERT_NE(port, 0);
  auto store = PostgresRunStore::Open(
      "postgresql://diagd:pw-Secret-41@127.0.0.1:" + std::to_string(port) + "/none", clock_);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(store.error().message.find("cannot connect to PostgreSQL"), std::string::npos)
      << store.error().message;
  EXPECT_EQ(store.error().message.find("pw-Secret-41"), std::string::npos)
      << store.error().message;
}

TEST_F(PostgresRunStoreTest, AnotherSchemeIsInvalid) {
  auto store = PostgresRunStore::Open("mysql://u@127.0.0.1/db", clock_);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(PostgresRunStoreTest, ConnectionsTheServerClosedWhileIdleAreReplacedUnnoticed) {
  auto store = PostgresRunStore::Open(url_, clock_);
  ASSERT_TRUE(store) << store.error().ToString();
  ASSERT_TRUE((*store)->CreateRun(RunningRun("run-1", At(0))));
  ASSERT_TRUE((*store)->GetRun("run-1"));
  TerminateSessions();  // as a server restart or an idle timeout would
  std::this_thread::sleep_for(50ms);

  auto read = (*store)->GetRun("run-1");
  ASSERT_TRUE(read) << read.error().ToString();
  EXPECT_TRUE(read->has_value());
  TerminateSessions();
  std::this_thread::sleep_for(50ms);
  Status written = (*store)->FinishRun(Finished("run-1"));
  ASSERT_TRUE(written) << written.error().ToString();
  auto run = (*store)->GetRun("run-1");
  ASSERT_TRUE(run && run->has_value());
  EXPECT_EQ((*run)->status, "SUCCEEDED");
}

// The store's write waits on a lock this test holds, half-way through its
// transaction (the run row replaced, steps and trace deleted); then its
// session is killed. The write fails, says so without SQL or data, and
// nothing of it shows: the run is as it was before.
TEST_F(PostgresRunStoreTest, AConnectionDroppedMidWriteFailsTheWriteAndLeavesNothingHalfWritten) {
  auto store = PostgresRunStore::Open(url_, clock_);
  ASSERT_TRUE(store) << store.error().ToString();
  app::RunRecord running = RunningRun("run-1", At(0));
  running.question = "why is checkout slow?";
  ASSERT_TRUE((*store)->CreateRun(running));

  auto holder = PgConn::Connect(url_);
  ASSERT_TRUE(holder) << holder.error().ToString();
  ASSERT_TRUE((*holder)->Exec("BEGIN; LOCK TABLE run_observation IN ACCESS EXCLUSIVE MODE",
                              "hold a lock"));
  Status finished = OkStatus();
  std::thread writer([&] { finished = (*store)->FinishRun(Finished("run-1")); });
  std::string waiting;
  for (int i = 0; i < 500 && waiting.empty(); ++i) {
    waiting = Scalar("SELECT pid FROM pg_stat_activity WHERE datname = '" + database_ +
                     "' AND wait_event_type = 'Lock'");
    if (waiting.empty()) std::this_thread::sleep_for(10ms);
  }
  ASSERT_FALSE(waiting.empty()) << "the write never reached the held lock";
  TerminateSessions("pid = " + waiting);
  writer.join();
  ASSERT_TRUE((*holder)->Exec("ROLLBACK", "release the lock"));

  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(finished.error().message.find("run store: "), std::string::npos);
  for (const char* leak : {"DELETE", "INSERT", "run_observation", "run-1", "checkout"}) {
    EXPECT_EQ(finished.error().message.find(leak), std::string::npos)
        << leak << " in: " << finished.error().message;
  }
  auto run = (*store)->GetRun("run-1");
  ASSERT_TRUE(run) << run.error().ToString();
  ASSERT_TRUE(run->has_value());
  EXPECT_EQ((*run)->status, "RUNNING");
  EXPECT_EQ((*run)->question, "why is checkout slow?");
  EXPECT_TRUE((*run)->steps.empty());
  EXPECT_TRUE((*run)->trace.empty());
  EXPECT_TRUE((*run)->result_json.empty());
  auto events = (*store)->RunEvents("run-1", 0);
  ASSERT_TRUE(events);
  EXPECT_TRUE(events->empty());
  auto observation = (*store)->GetObservation("run-1", "call-1");
  ASSERT_TRUE(observation);
  EXPECT_FALSE(observation->has_value());

  // The store goes on with a new connection: the retried write lands whole.
  Status retried = (*store)->FinishRun(Finished("run-1"));
  ASSERT_TRUE(retried) << retried.error().ToString();
  auto done = (*store)->GetRun("run-1");
  ASSERT_TRUE(done && done->has_value());
  EXPECT_EQ((*done)->status, "SUCCEEDED");
  EXPECT_EQ((*done)->steps.size(), 1u);
}

TEST_F(PostgresRunStoreTest, TextThatIsNotUtf8OutsideTheByteColumnsIsRefusedWithoutItsBytes) {
  auto store = PostgresRunStore::Open(url_, clock_);
  ASSERT_TRUE(store) << store.error().ToString();
  app::RunRecord run = RunningRun("run-1", At(0));
  run.route = "DIAG\xff\xfeNOSIS";
  Status created = (*store)->CreateRun(run);
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(created.error().message.find("DIAG"), std::string::npos) << created.error().message;
  auto none = (*store)->GetRun("run-1");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
}

TEST_F(PostgresRunStoreTest, EveryListFilterHasAnIndexInTheListsOrder) {
  ASSERT_TRUE(PostgresRunStore::Open(url_, clock_));
  for (const char* index : {"diagnosis_run_newest", "diagnosis_run_by_status",
                            "diagnosis_run_by_route", "diagnosis_run_by_outcome",
                            "diagnosis_run_by_conversation", "diagnosis_run_running",
                            "run_observation_by_age"}) {
    EXPECT_EQ(Scalar(std::string("SELECT count(*) FROM pg_indexes WHERE indexname = '") + index +
                     "'"),
              "1")
        << index;
  }
  // With enough rows the planner reads a filtered page along its index.
  ASSERT_TRUE(server_->Execute(
      database_,
      "INSERT INTO diagnosis_run (run_id, conversation_id, route, status, internal_status, "
      "created_at) SELECT 'r' || g, 'c', CASE WHEN g % 50 = 0 THEN 'KNOWLEDGE' ELSE 'DIAGNOSIS' "
      "END, 'SUCCEEDED', 'COMPLETED', to_char(g, 'FM0000000') FROM generate_series(1, 20000) g; "
      "ANALYZE diagnosis_run"));
  std::string plan = Scalar(
      "EXPLAIN (FORMAT JSON) SELECT run_id FROM diagnosis_run WHERE route = 'KNOWLEDGE' "
      "ORDER BY created_at DESC, run_id DESC LIMIT 21");
  EXPECT_NE(plan.find("diagnosis_run_by_route"), std::string::npos) << plan;
}

}  // namespace
}  // namespace diagd::store
