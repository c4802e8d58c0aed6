// The SQLite run store while another connection holds the database's write
// lock, as an operator's `sqlite3 runs.db` session does after BEGIN
// IMMEDIATE or BEGIN EXCLUSIVE: a write waits for the lock (busy_timeout),
// and reads meanwhile are answered at once from what is committed, never
// queued behind that write.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "core/clock.h"
#include "store/sqlite_run_store.h"
#include "store/store_test_support.h"

namespace diagd::store {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::At;
using testing::RunningRun;

// A second, real connection to the file that takes the write lock with
// `begin` and holds it until Release (or its end).
class ForeignLock {
 public:
  ForeignLock(const std::string& path, const char* begin) {
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, begin, nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_);
    // A write of its own, as an operator's UPDATE: the lock is really held.
    EXPECT_EQ(sqlite3_exec(db_, "UPDATE diagnosis_run SET route = route", nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db_);
  }
  ~ForeignLock() {
    Release();
    sqlite3_close_v2(db_);
  }
  ForeignLock(const ForeignLock&) = delete;
  ForeignLock& operator=(const ForeignLock&) = delete;

  void Release() {
    if (released_) return;
    released_ = true;
    EXPECT_EQ(sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  }

 private:
  sqlite3* db_ = nullptr;
  bool released_ = false;
};

class SqliteForeignLockTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto opened = SqliteRunStore::Open(path_, clock_);
    ASSERT_TRUE(opened) << opened.error().ToString();
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->CreateRun(RunningRun("before", At(0), "conv-1")));
    ASSERT_TRUE(store_->AppendTurn("conv-1", {"user", "why?", "before", At(0)}));
  }

  testing::TempDir dir_;
  std::string path_ = (dir_.path() / "runs.db").string();
  ManualClock clock_{At(0)};
  std::unique_ptr<SqliteRunStore> store_;
};

TEST_P(SqliteForeignLockTest, ReadsAreAnsweredWhileAWriteWaitsForTheLock) {
  ForeignLock lock(path_, GetParam());
  auto write = std::async(std::launch::async,
                          [&] { return store_->CreateRun(RunningRun("during", At(5), "conv-2")); });
  // Every read the server's routes and runs make, again and again while
  // the write waits (for up to kBusyTimeoutMs). Each is a local read of a
  // millisecond; two seconds is the bound a client is promised.
  for (int round = 0; round < 20; ++round) {
    auto started = std::chrono::steady_clock::now();
    auto listed = store_->ListRuns(10);
    ASSERT_TRUE(listed) << listed.error().ToString();
    EXPECT_EQ(listed->size(), 1u) << "what was committed before the lock";
    auto run = store_->GetRun("before");
    ASSERT_TRUE(run) << run.error().ToString();
    EXPECT_TRUE(run->has_value());
    auto events = store_->RunEvents("before", 0);
    ASSERT_TRUE(events) << events.error().ToString();
    auto turns = store_->RecentTurns("conv-1", 10);
    ASSERT_TRUE(turns) << turns.error().ToString();
    EXPECT_EQ(turns->size(), 1u);
    auto conversation = store_->ConversationPage({"conv-1"});
    ASSERT_TRUE(conversation) << conversation.error().ToString();
    EXPECT_LT(std::chrono::steady_clock::now() - started, seconds(2)) << "round " << round;
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_EQ(write.wait_for(milliseconds(0)), std::future_status::timeout)
      << "the write waits for the foreign lock all along";
  lock.Release();
  Status written = write.get();
  EXPECT_TRUE(written) << written.error().ToString();
  auto listed = store_->ListRuns(10);
  ASSERT_TRUE(listed) << listed.error().ToString();
  EXPECT_EQ(listed->size(), 2u) << "the waiting write went in once the lock was released";
}

// The server's upkeep on an idle server: nothing to renew, sweep or purge
// takes no write lock. Each call that began a write would wait out the
// busy timeout behind the operator's lock and fail "database is locked",
// and an idle server would report its store failing.
TEST_P(SqliteForeignLockTest, UpkeepWithNothingToDoTakesNoWriteLock) {
  ForeignLock lock(path_, GetParam());
  Status renewed = store_->RenewLeases("host-b", At(30'000));
  EXPECT_TRUE(renewed) << renewed.error().ToString();
  auto lost = store_->ReclaimLostRuns({"host-b", std::nullopt, At(60'000)});
  ASSERT_TRUE(lost) << lost.error().ToString();
  EXPECT_TRUE(lost->empty()) << "the run stored has no lease to run out";
  auto purged = store_->PurgeObservations(At(60'000));
  ASSERT_TRUE(purged) << purged.error().ToString();
  EXPECT_EQ(*purged, 0);
}

// In WAL, BEGIN EXCLUSIVE locks out other writers just as BEGIN IMMEDIATE
// does, and readers neither.
INSTANTIATE_TEST_SUITE_P(OperatorSessions, SqliteForeignLockTest,
                         ::testing::Values("BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"),
                         [](const auto& info) {
                           return std::string(info.param).substr(6);
                         });

}  // namespace
}  // namespace diagd::store
