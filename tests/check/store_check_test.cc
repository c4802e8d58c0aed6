// The store part of the `diagd check` driver (RunChecks): the run store of
// storage.runs and the Redis of storage.canonical, against real SQLite
// files, the private PostgreSQL and Redis of the store's tests, and ports
// where nothing listens. "all well" must mean that `diagd serve` starts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "check/check.h"
#include "check/check_workspace.h"
#include "core/clock.h"
#include "store/sqlite_run_store.h"
#include "testing/free_port.h"
#include "testing/postgres_server.h"
#include "testing/redis_server.h"

namespace diagd::check {
namespace {

namespace fs = std::filesystem;
using testing::CheckWorkspace;

class StoreCheckTest : public ::testing::Test {
 protected:
  // The report for the workspace's config with storage set as given
  // (empty `runs`: the workspace's own sqlite:data/runs.db).
  CheckReport Check(const std::string& runs = "", const std::string& canonical = "memory:") {
    CheckWorkspace::Toml toml;
    toml.tables = "[model]\nprovider = \"offline\"\n";
    auto config = workspace_.Load(toml);
    if (!config) {
      ADD_FAILURE() << config.error().message;
      return {};
    }
    if (!runs.empty()) config->storage.runs = runs;
    config->storage.canonical = canonical;
    CheckOptions options;
    options.config_source = "diagd.toml";
    options.probe_models = false;
    return RunChecks(*config, options, SystemClock::Instance(), nullptr);
  }

  static std::vector<CheckItem> StoreRows(const CheckReport& report) {
    std::vector<CheckItem> rows;
    for (const CheckItem& item : report.checks) {
      if (item.part == "store") rows.push_back(item);
    }
    return rows;
  }

  std::string RunsPath() const { return (workspace_.dir() / "data" / "runs.db").string(); }

  CheckWorkspace workspace_;
};

TEST_F(StoreCheckTest, ASqliteFileNotYetMadeIsWellAndIsNotCreated) {
  CheckReport report = Check();
  ASSERT_TRUE(report.ok()) << ReportTable(report);
  auto rows = StoreRows(report);
  ASSERT_EQ(rows.size(), 1u) << ReportTable(report);
  EXPECT_EQ(rows[0].name, "sqlite:" + RunsPath()) << ReportTable(report);
  EXPECT_EQ(rows[0].detail, "SQLite, no file yet: created at the first start");
  EXPECT_FALSE(fs::exists(RunsPath())) << "check writes nothing";
}

TEST_F(StoreCheckTest, AnExistingRunStoreSaysItsSchemaAndRuns) {
  {
    auto store = store::SqliteRunStore::Open("sqlite:" + RunsPath(), SystemClock::Instance());
    ASSERT_TRUE(store) << store.error().ToString();
  }
  CheckReport report = Check();
  ASSERT_TRUE(report.ok()) << ReportTable(report);
  EXPECT_EQ(StoreRows(report).at(0).detail.rfind("SQLite, schema ", 0), 0u) << ReportTable(report);
  EXPECT_NE(StoreRows(report).at(0).detail.find(", 0 runs"), std::string::npos);
}

TEST_F(StoreCheckTest, AFileThatIsNoDatabaseOrAFolderWithoutWayInIsAProblem) {
  fs::create_directories(workspace_.dir() / "data");
  std::ofstream(RunsPath()) << "this is no database, it is a note that is long enough to tell\n";
  CheckReport report = Check();
  EXPECT_FALSE(report.ok());
  CheckItem row = StoreRows(report).at(0);
  EXPECT_FALSE(row.ok);
  EXPECT_NE(row.detail.find("is not a SQLite database"), std::string::npos) << row.detail;
  EXPECT_EQ(row.advice, "fix storage.runs, or the database it points at, as the detail says");

  CheckReport through_a_file = Check("sqlite:" + RunsPath() + "/inside/runs.db");
  EXPECT_FALSE(StoreRows(through_a_file).at(0).ok) << ReportTable(through_a_file);
}

TEST_F(StoreCheckTest, AnUnreachablePostgresqlAndRedisAreProblemsAndNoPasswordIsShown) {
  int port = diagd::testing::FreeLoopbackPort();
  std::string pg = "postgresql://diagd:hunter2@127.0.0.1:" + std::to_string(port) + "/diagd";
  std::string redis = "redis://:hunter2@127.0.0.1:" + std::to_string(port) + "/0";
  CheckReport report = Check(pg, redis);
  EXPECT_FALSE(report.ok());
  auto rows = StoreRows(report);
  ASSERT_EQ(rows.size(), 2u) << ReportTable(report);
  EXPECT_FALSE(rows[0].ok);
  EXPECT_NE(rows[0].detail.find("cannot connect to PostgreSQL"), std::string::npos)
      << rows[0].detail;
  EXPECT_FALSE(rows[1].ok);
  EXPECT_EQ(rows[1].name, "redis://127.0.0.1:" + std::to_string(port) + "/0");
  EXPECT_EQ(rows[1].advice, "start Redis at " + rows[1].name + ", or fix storage.canonical");
  EXPECT_EQ(ReportJson(report).find("hunter2"), std::string::npos) << ReportJson(report);
  EXPECT_EQ(ReportTable(report).find("hunter2"), std::string::npos);
}

TEST_F(StoreCheckTest, ARealPostgresqlAndRedisAreWell) {
  auto postgres = diagd::testing::SharedPostgresServer();
  if (!postgres) GTEST_SKIP() << postgres.error().message;
  auto database_url = (*postgres)->CreateDatabase();
  ASSERT_TRUE(database_url) << database_url.error().message;
  auto redis = diagd::testing::SharedRedisServer();
  if (!redis) GTEST_SKIP() << redis.error().message;
  CheckReport report = Check(*database_url, (*redis)->Url());
  ASSERT_TRUE(report.ok()) << ReportTable(report);
  auto rows = StoreRows(report);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].detail, "PostgreSQL reachable, no schema yet: created at the first start");
  EXPECT_EQ(rows[1].detail, "Redis 127.0.0.1:" + std::to_string((*redis)->port()) + "/0 answers");
}

}  // namespace
}  // namespace diagd::check
