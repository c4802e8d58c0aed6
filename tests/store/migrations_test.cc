// The migration runner over a scripted database: which steps it applies,
// in which transactions, and what it refuses before touching anything. The
// same runner on real databases: sqlite_migrations_test.cc and
// postgres_run_store_test.cc.
#include "store/migrations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "store/store_test_support.h"

namespace diagd::store {
namespace {

using testing::At;

// Records every call as one word; the schema version is whatever the
// steps recorded so far (or `version_` when a test sets it).
class ScriptedSchema final : public SchemaTarget {
 public:
  Result<int> SchemaVersion() override {
    log_.push_back("version");
    if (other_process_step_ && in_transaction_) {
      version_ = std::max(version_, *other_process_step_);
      other_process_step_.reset();
    }
    return version_;
  }
  Status CheckOwnership() override {
    log_.push_back("ownership");
    if (foreign_) return Error::FailedPrecondition("someone else's");
    return OkStatus();
  }
  Status CreateVersionTable() override {
    log_.push_back("create");
    return OkStatus();
  }
  Status InTransaction(const std::function<Status()>& body) override {
    log_.push_back("begin");
    in_transaction_ = true;
    int before = version_;
    Status done = body();
    in_transaction_ = false;
    if (!done) version_ = before;
    log_.push_back(done ? "commit" : "rollback");
    return done;
  }
  Status Exec(const char* sql) override {
    log_.push_back(std::string("exec ") + sql);
    if (std::string(sql) == "fail") return Error::Unavailable("step failed");
    return OkStatus();
  }
  Status RecordVersion(const Migration& step, const std::string& applied_at) override {
    log_.push_back("record " + std::to_string(step.version) + " " + applied_at);
    version_ = step.version;
    return OkStatus();
  }

  std::vector<std::string> log_;
  int version_ = 0;
  bool foreign_ = false;
  // A step another process applies between our look and our transaction.
  std::optional<int> other_process_step_;
  bool in_transaction_ = false;
};

constexpr Migration kSteps[] = {{1, "one", "a"}, {2, "two", "b"}, {3, "three", "c"}};

class MigrationRunnerTest : public ::testing::Test {
 protected:
  ScriptedSchema db_;
  ManualClock clock_{At(0)};
};

TEST_F(MigrationRunnerTest, AFreshDatabaseGetsEveryStepEachInItsOwnTransaction) {
  ASSERT_TRUE(ApplyMigrations(db_, kSteps, clock_));
  const std::string at = "2026-11-29T10:30:00.000Z";
  EXPECT_EQ(db_.log_,
            (std::vector<std::string>{"version", "ownership", "create",                          //
                                      "begin", "version", "exec a", "record 1 " + at, "commit",  //
                                      "begin", "version", "exec b", "record 2 " + at, "commit",  //
                                      "begin", "version", "exec c", "record 3 " + at, "commit"}));
}

TEST_F(MigrationRunnerTest, OnlyTheMissingStepsAreApplied) {
  db_.version_ = 2;
  ASSERT_TRUE(ApplyMigrations(db_, kSteps, clock_));
  EXPECT_EQ(db_.log_, (std::vector<std::string>{"version", "begin", "version", "exec c",
                                                "record 3 2026-11-29T10:30:00.000Z", "commit"}));
}

TEST_F(MigrationRunnerTest, AStepAnotherProcessAppliedMeanwhileIsNotAppliedAgain) {
  db_.version_ = 1;
  db_.other_process_step_ = 2;
  ASSERT_TRUE(ApplyMigrations(db_, kSteps, clock_));
  EXPECT_EQ(db_.log_,
            (std::vector<std::string>{"version", "begin", "version", "commit", "begin", "version",
                                      "exec c", "record 3 2026-11-29T10:30:00.000Z", "commit"}));
}

TEST_F(MigrationRunnerTest, ANewerDatabaseIsRefusedBeforeAnythingElse) {
  db_.version_ = 4;
  db_.foreign_ = true;
  Status applied = ApplyMigrations(db_, kSteps, clock_);
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(applied.error().message.find("schema version 4, newer than this diagd knows (3)"),
            std::string::npos)
      << applied.error().message;
  EXPECT_EQ(db_.log_, (std::vector<std::string>{"version"}));
  EXPECT_FALSE(CheckMigratable(db_, kSteps));
}

TEST_F(MigrationRunnerTest, AForeignDatabaseGetsNoVersionTable) {
  db_.foreign_ = true;
  Status applied = ApplyMigrations(db_, kSteps, clock_);
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_EQ(db_.log_, (std::vector<std::string>{"version", "ownership"}));
  EXPECT_FALSE(CheckMigratable(db_, kSteps));
}

TEST_F(MigrationRunnerTest, AFailingStepIsRolledBackAndStopsTheRest) {
  constexpr Migration broken[] = {{1, "one", "a"}, {2, "two", "fail"}, {3, "three", "c"}};
  Status applied = ApplyMigrations(db_, broken, clock_);
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(db_.version_, 1);
  EXPECT_EQ(db_.log_.back(), "rollback");
}

TEST_F(MigrationRunnerTest, ACurrentDatabaseIsLeftAlone) {
  db_.version_ = 3;
  ASSERT_TRUE(ApplyMigrations(db_, kSteps, clock_));
  ASSERT_TRUE(CheckMigratable(db_, kSteps));
  EXPECT_EQ(db_.log_, (std::vector<std::string>{"version", "version"}));
}

}  // namespace
}  // namespace diagd::store
