#include "store/sqlite_migrations.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <vector>

#include "store/sqlite_db.h"
#include "store/sqlite_run_store.h"
#include "store/store_test_support.h"

namespace diagd::store {
namespace {

using testing::At;
using testing::RunningRun;

std::string ReadBytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteBytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

std::unique_ptr<SqliteDb> RawDb(const std::filesystem::path& file) {
  auto db = SqliteDb::Open(file.string());
  EXPECT_TRUE(db) << db.error().ToString();
  return db ? std::move(*db) : nullptr;
}

// Runs a one-column query returning text or integers rendered as text.
std::vector<std::string> Column(SqliteDb& db, const char* sql) {
  std::vector<std::string> out;
  auto stmt = db.Prepare(sql, "test query");
  EXPECT_TRUE(stmt) << stmt.error().ToString();
  if (!stmt) return out;
  while (true) {
    auto row = stmt->Step();
    EXPECT_TRUE(row) << row.error().ToString();
    if (!row || !*row) return out;
    out.push_back(stmt->Text(0));
  }
}

class MigrationsTest : public ::testing::Test {
 protected:
  std::filesystem::path File() const { return dir_.path() / "runs.db"; }
  std::string Url() const { return dir_.Url("runs.db"); }

  testing::TempDir dir_;
  ManualClock clock_{At(0)};
};

TEST_F(MigrationsTest, FreshDatabaseGetsEveryStepAndTheContractTables) {
  {
    auto store = SqliteRunStore::Open(Url(), clock_);
    ASSERT_TRUE(store) << store.error().ToString();
  }
  auto db = RawDb(File());
  ASSERT_TRUE(db);
  auto version = SchemaVersion(*db);
  ASSERT_TRUE(version);
  EXPECT_EQ(*version, RunStoreMigrations().back().version);
  EXPECT_EQ(Column(*db, "SELECT version || ' ' || applied_at FROM schema_migrations"),
            (std::vector<std::string>{"1 2026-11-29T10:30:00.000Z", "2 2026-11-29T10:30:00.000Z",
                                      "3 2026-11-29T10:30:00.000Z",
                                      "4 2026-11-29T10:30:00.000Z",
                                      "5 2026-11-29T10:30:00.000Z"}));
  EXPECT_EQ(Column(*db, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"),
            (std::vector<std::string>{"agent_step", "conversation", "conversation_message",
                                      "diagnosis_run", "diagnosis_trace_event", "run_event",
                                      "run_observation", "schema_migrations"}));
  EXPECT_EQ(Column(*db, "PRAGMA journal_mode"), (std::vector<std::string>{"wal"}));
  EXPECT_EQ(Column(*db, "PRAGMA application_id"),
            (std::vector<std::string>{std::to_string(kRunStoreApplicationId)}));
}

TEST_F(MigrationsTest, OpenCreatesMissingParentFolders) {
  auto store = SqliteRunStore::Open(dir_.Url("a/b/c/runs.db"), clock_);
  ASSERT_TRUE(store) << store.error().ToString();
  EXPECT_TRUE(std::filesystem::exists(dir_.path() / "a/b/c/runs.db"));
}

TEST_F(MigrationsTest, ReopeningKeepsDataAndAppliesNothingAgain) {
  {
    auto store = SqliteRunStore::Open(Url(), clock_);
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->CreateRun(RunningRun("run-1", At(1))));
    ASSERT_TRUE((*store)->AppendTurn("conv-1", {"user", "why?", "run-1", At(1)}));
  }
  clock_.Advance(std::chrono::hours(24));
  auto store = SqliteRunStore::Open(Url(), clock_);
  ASSERT_TRUE(store) << store.error().ToString();
  auto run = (*store)->GetRun("run-1");
  ASSERT_TRUE(run && run->has_value());
  EXPECT_EQ((*run)->created_at, At(1));
  auto turns = (*store)->RecentTurns("conv-1", 5);
  ASSERT_TRUE(turns);
  EXPECT_EQ(turns->size(), 1u);
  auto db = RawDb(File());
  EXPECT_EQ(Column(*db, "SELECT applied_at FROM schema_migrations"),
            (std::vector<std::string>(5, "2026-11-29T10:30:00.000Z")));
}

TEST_F(MigrationsTest, AVersionOneStoreUpgradesKeepingItsRuns) {
  auto db = RawDb(File());
  ASSERT_TRUE(db);
  std::span<const Migration> first = RunStoreMigrations().first(1);
  ASSERT_TRUE(ApplyMigrations(*db, first, clock_));
  ASSERT_TRUE(db->Exec("INSERT INTO diagnosis_run (run_id, conversation_id, route, status, "
                       "internal_status, created_at) VALUES ('old', 'c', 'DIAGNOSIS', "
                       "'SUCCEEDED', 'COMPLETED', '2026-11-29T10:00:00.000Z')",
                       "test insert"));
  db.reset();
  auto store = SqliteRunStore::Open(Url(), clock_);
  ASSERT_TRUE(store) << store.error().ToString();
  auto run = (*store)->GetRun("old");
  ASSERT_TRUE(run && run->has_value());
  EXPECT_EQ((*run)->status, "SUCCEEDED");
  EXPECT_FALSE((*run)->failure_reason.has_value());
  auto events = (*store)->RunEvents("old", 0);
  ASSERT_TRUE(events);
  EXPECT_TRUE(events->empty());
}

TEST_F(MigrationsTest, AVersionFourStoreGetsItsQuestionsFromTheConversation) {
  auto db = RawDb(File());
  ASSERT_TRUE(db);
  ASSERT_TRUE(ApplyMigrations(*db, RunStoreMigrations().first(4), clock_));
  ASSERT_TRUE(db->Exec("INSERT INTO diagnosis_run (run_id, conversation_id, route, status, "
                       "internal_status, created_at) VALUES ('old', 'c', 'DIAGNOSIS', "
                       "'SUCCEEDED', 'COMPLETED', '2026-11-29T10:00:00.000Z'), ('lone', 'd', "
                       "'DIAGNOSIS', 'FAILED', 'FAILED', '2026-11-29T10:01:00.000Z'); "
                       "INSERT INTO conversation VALUES ('c', '2026-11-29T10:00:00.000Z'); "
                       "INSERT INTO conversation_message VALUES ('c', 1, 'user', 'why 500?', "
                       "'old', '2026-11-29T10:00:00.000Z'), ('c', 2, 'assistant', 'because', "
                       "'old', '2026-11-29T10:00:01.000Z')",
                       "test insert"));
  db.reset();
  auto store = SqliteRunStore::Open(Url(), clock_);
  ASSERT_TRUE(store) << store.error().ToString();
  auto old_run = (*store)->GetRun("old");
  ASSERT_TRUE(old_run && old_run->has_value());
  EXPECT_EQ((*old_run)->question, "why 500?");
  auto lone = (*store)->GetRun("lone");
  ASSERT_TRUE(lone && lone->has_value());
  EXPECT_EQ((*lone)->question, "");
  app::RunQuery query;
  query.question_contains = "500";
  auto page = (*store)->ListRunPage(query);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->runs.size(), 1u);
  EXPECT_EQ(page->runs[0].run_id, "old");
}

TEST_F(MigrationsTest, ReopeningAppliesOnlyTheMissingSteps) {
  {
    auto store = SqliteRunStore::Open(Url(), clock_);
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->CreateRun(RunningRun("run-1", At(1))));
  }
  // A later build's list: the released step plus a new one.
  std::vector<Migration> later(RunStoreMigrations().begin(), RunStoreMigrations().end());
  const int next = RunStoreMigrations().back().version + 1;
  later.push_back({next, "add run labels", "CREATE TABLE run_label (run_id TEXT, label TEXT)"});
  clock_.Advance(std::chrono::seconds(60));
  auto db = RawDb(File());
  ASSERT_TRUE(db);
  ASSERT_TRUE(ApplyMigrations(*db, later, clock_));

  EXPECT_EQ(Column(*db,
                   "SELECT version || ' ' || applied_at FROM schema_migrations "
                   "ORDER BY version"),
            (std::vector<std::string>{"1 2026-11-29T10:30:00.000Z", "2 2026-11-29T10:30:00.000Z",
                                      "3 2026-11-29T10:30:00.000Z",
                                      "4 2026-11-29T10:30:00.000Z",
                                      "5 2026-11-29T10:30:00.000Z",
                                      std::to_string(next) + " 2026-11-29T10:31:00.000Z"}));
  EXPECT_EQ(Column(*db, "SELECT count(*) FROM run_label"), (std::vector<std::string>{"0"}));
  EXPECT_EQ(Column(*db, "SELECT run_id FROM diagnosis_run"), (std::vector<std::string>{"run-1"}));
  // Applying the same list again is a no-op.
  ASSERT_TRUE(ApplyMigrations(*db, later, clock_));
  EXPECT_EQ(Column(*db, "SELECT count(*) FROM schema_migrations"),
            (std::vector<std::string>{std::to_string(next)}));
}

TEST_F(MigrationsTest, AFailingStepLeavesNoTraceOfItself) {
  { ASSERT_TRUE(SqliteRunStore::Open(Url(), clock_)); }
  std::vector<Migration> later(RunStoreMigrations().begin(), RunStoreMigrations().end());
  const int known = RunStoreMigrations().back().version;
  later.push_back({known + 1, "broken", "CREATE TABLE half (a); SELECT * FROM no_such_table"});
  auto db = RawDb(File());
  ASSERT_TRUE(db);
  Status applied = ApplyMigrations(*db, later, clock_);
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(applied.error().message.find("no_such_table"), std::string::npos)
      << "no SQL text in errors: " << applied.error().message;
  EXPECT_EQ(*SchemaVersion(*db), known);
  EXPECT_EQ(Column(*db, "SELECT count(*) FROM sqlite_schema WHERE name = 'half'"),
            (std::vector<std::string>{"0"}));
}

TEST_F(MigrationsTest, DatabaseFromANewerVersionIsRefusedUntouched) {
  {
    auto store = SqliteRunStore::Open(Url(), clock_);
    ASSERT_TRUE(store);
    ASSERT_TRUE((*store)->CreateRun(RunningRun("run-1", At(1))));
  }
  {
    auto db = RawDb(File());
    ASSERT_TRUE(
        db->Exec("INSERT INTO schema_migrations VALUES (99, 'from the future', "
                 "'2030-01-01T00:00:00.000Z')",
                 "test"));
  }
  std::string before = ReadBytes(File());

  auto store = SqliteRunStore::Open(Url(), clock_);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(store.error().message.find("schema version 99"), std::string::npos)
      << store.error().message;
  EXPECT_NE(store.error().message.find("newer"), std::string::npos) << store.error().message;
  EXPECT_TRUE(ReadBytes(File()) == before);
}

TEST_F(MigrationsTest, AFileThatIsNotSqliteIsRefusedUntouched) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "this is a log line, not a database\n";
  WriteBytes(File(), text);

  auto store = SqliteRunStore::Open(Url(), clock_);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(store.error().message.find("not a SQLite database"), std::string::npos)
      << store.error().message;
  EXPECT_TRUE(ReadBytes(File()) == text);

  WriteBytes(dir_.path() / "short.db", "hello\n");
  auto short_file = SqliteRunStore::Open(dir_.Url("short.db"), clock_);
  ASSERT_FALSE(short_file);
  EXPECT_EQ(short_file.error().code, ErrorCode::kFailedPrecondition) << short_file.error().message;
  EXPECT_EQ(ReadBytes(dir_.path() / "short.db"), "hello\n");
}

TEST_F(MigrationsTest, ASqliteDatabaseOfAnotherApplicationIsRefused) {
  {
    auto db = RawDb(File());
    ASSERT_TRUE(db->Exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT)", "test"));
  }
  auto store = SqliteRunStore::Open(Url(), clock_);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kFailedPrecondition);
  auto db = RawDb(File());
  EXPECT_EQ(Column(*db, "SELECT name FROM sqlite_schema WHERE type = 'table'"),
            (std::vector<std::string>{"orders"}));

  WriteBytes(dir_.path() / "other.db", "");
  {
    auto other = RawDb(dir_.path() / "other.db");
    ASSERT_TRUE(other->Exec("PRAGMA application_id = 42", "test"));
  }
  auto refused = SqliteRunStore::Open(dir_.Url("other.db"), clock_);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kFailedPrecondition);
}

TEST_F(MigrationsTest, AnEmptyFileBecomesARunStore) {
  WriteBytes(File(), "");
  auto store = SqliteRunStore::Open(Url(), clock_);
  ASSERT_TRUE(store) << store.error().ToString();
}

TEST_F(MigrationsTest, OpenTakesSqliteUrlsAndBarePathsOnly) {
  EXPECT_TRUE(SqliteRunStore::Open((dir_.path() / "bare.db").string(), clock_));
  EXPECT_TRUE(SqliteRunStore::Open("sqlite::memory:", clock_));
  for (const char* bad : {"postgresql://u:p@host:5432/db", "sqlite:", "sqlite:///tmp/x.db", ""}) {
    auto store = SqliteRunStore::Open(bad, clock_);
    ASSERT_FALSE(store) << bad;
    EXPECT_EQ(store.error().code, ErrorCode::kInvalidArgument) << bad;
    EXPECT_EQ(store.error().message.find("u:p"), std::string::npos) << store.error().message;
  }
}

TEST_F(MigrationsTest, AFolderThatCannotBeCreatedIsUnavailable) {
  WriteBytes(dir_.path() / "file", "x");
  auto store = SqliteRunStore::Open(dir_.Url("file/sub/runs.db"), clock_);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace diagd::store
