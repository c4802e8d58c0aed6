// The run store's database file as the file system sees it: paths that
// cannot be a database (CheckDatabasePath), and a file deleted or replaced
// while the store has it open (DbFileIdentity, SqliteRunStore's writes).
//
// These tests run as root, and root passes access(2) whatever the mode
// bits say: a file or folder made unwritable with chmod would still be
// "writable" here. So the "not writable" branches (a read-only file, a
// folder without write permission) are not tested; they are reachable only
// through a read-only mount, which a hermetic test cannot make.
#include "store/db_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/clock.h"
#include "store/sqlite_run_store.h"
#include "store/store_test_support.h"

namespace diagd::store {
namespace {

using testing::At;
using testing::RunningRun;

void Touch(const std::filesystem::path& path, const std::string& content = "") {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

void ExpectUnavailableNaming(const Status& status, const std::string& path,
                             const std::string& reason) {
  ASSERT_FALSE(status) << path;
  EXPECT_EQ(status.error().code, ErrorCode::kUnavailable) << status.error().ToString();
  EXPECT_NE(status.error().message.find(path), std::string::npos) << status.error().message;
  EXPECT_NE(status.error().message.find(reason), std::string::npos) << status.error().message;
}

// --- CheckDatabasePath ------------------------------------------------------

TEST(CheckDatabasePath, AMissingFileInAnExistingFolderIsUsable) {
  testing::TempDir dir;
  EXPECT_TRUE(CheckDatabasePath((dir.path() / "runs.db").string()));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "runs.db")) << "checking creates nothing";
}

TEST(CheckDatabasePath, AnExistingRegularFileIsUsable) {
  testing::TempDir dir;
  Touch(dir.path() / "runs.db");
  EXPECT_TRUE(CheckDatabasePath((dir.path() / "runs.db").string()));
}

TEST(CheckDatabasePath, ADirectoryIsRefusedNamingThePath) {
  testing::TempDir dir;
  std::string path = (dir.path() / "runs.db").string();
  std::filesystem::create_directory(path);
  ExpectUnavailableNaming(CheckDatabasePath(path), path, "directory");
}

TEST(CheckDatabasePath, AFifoIsNotARegularFile) {
  testing::TempDir dir;
  std::string path = (dir.path() / "runs.db").string();
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  ExpectUnavailableNaming(CheckDatabasePath(path), path, "not a regular file");
}

TEST(CheckDatabasePath, ADeviceIsNotARegularFile) {
  ExpectUnavailableNaming(CheckDatabasePath("/dev/null"), "/dev/null", "not a regular file");
}

TEST(CheckDatabasePath, AMissingFolderIsRefusedNamingTheFolder) {
  testing::TempDir dir;
  std::string folder = (dir.path() / "missing").string();
  std::string path = folder + "/runs.db";
  ExpectUnavailableNaming(CheckDatabasePath(path), path, "its folder " + folder);
}

TEST(CheckDatabasePath, APathThroughARegularFileIsRefused) {
  testing::TempDir dir;
  Touch(dir.path() / "plain");
  std::string path = (dir.path() / "plain" / "runs.db").string();
  ExpectUnavailableNaming(CheckDatabasePath(path), path, "Not a directory");
}

// --- DbFileIdentity ---------------------------------------------------------

// The store keeps its file open, so the file's inode cannot be reused by a
// file created later at the same path; the tests hold the file open too.
class DbFileIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Touch(path_, "one");
    fd_ = open(path_.c_str(), O_RDONLY);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) close(fd_);
  }

  testing::TempDir dir_;
  std::string path_ = (dir_.path() / "runs.db").string();
  int fd_ = -1;
};

TEST_F(DbFileIdentityTest, CaptureOfAMissingFileIsEmpty) {
  EXPECT_FALSE(DbFileIdentity::Capture((dir_.path() / "missing.db").string()).has_value());
}

TEST_F(DbFileIdentityTest, TheSameFileIsStillThere) {
  auto identity = DbFileIdentity::Capture(path_);
  ASSERT_TRUE(identity);
  EXPECT_TRUE(identity->CheckStillThere());
}

TEST_F(DbFileIdentityTest, AFileWrittenInPlaceIsStillTheSameFile) {
  auto identity = DbFileIdentity::Capture(path_);
  ASSERT_TRUE(identity);
  {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);  // same inode
    out << "other content";
  }
  EXPECT_TRUE(identity->CheckStillThere());
}

TEST_F(DbFileIdentityTest, ADeletedFileIsReportedDeleted) {
  auto identity = DbFileIdentity::Capture(path_);
  ASSERT_TRUE(identity);
  std::filesystem::remove(path_);
  ExpectUnavailableNaming(identity->CheckStillThere(), path_, "deleted");
}

TEST_F(DbFileIdentityTest, AFileRenamedAwayIsReportedDeleted) {
  auto identity = DbFileIdentity::Capture(path_);
  ASSERT_TRUE(identity);
  std::filesystem::rename(path_, dir_.path() / "moved.db");
  ExpectUnavailableNaming(identity->CheckStillThere(), path_, "deleted");
}

TEST_F(DbFileIdentityTest, AnotherFileRenamedOverThePathIsReportedReplaced) {
  auto identity = DbFileIdentity::Capture(path_);
  ASSERT_TRUE(identity);
  Touch(dir_.path() / "new.db", "two");
  std::filesystem::rename(dir_.path() / "new.db", path_);
  ExpectUnavailableNaming(identity->CheckStillThere(), path_, "replaced");
}

TEST_F(DbFileIdentityTest, AFileRecreatedAtThePathAfterADeleteIsReportedReplaced) {
  auto identity = DbFileIdentity::Capture(path_);
  ASSERT_TRUE(identity);
  std::filesystem::remove(path_);
  Touch(path_, "restored from a backup");
  ExpectUnavailableNaming(identity->CheckStillThere(), path_, "replaced");
}

// --- SqliteRunStore::Open ---------------------------------------------------

TEST(SqliteRunStoreFile, OpenOnADirectoryNamesThePathAndSaysDirectory) {
  testing::TempDir dir;
  std::string path = (dir.path() / "runs.db").string();
  std::filesystem::create_directory(path);
  ManualClock clock(At(0));
  auto opened = SqliteRunStore::Open("sqlite:" + path, clock);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::kUnavailable) << opened.error().ToString();
  EXPECT_NE(opened.error().message.find(path), std::string::npos) << opened.error().message;
  EXPECT_NE(opened.error().message.find("directory"), std::string::npos) << opened.error().message;
}

TEST(SqliteRunStoreFile, OpenOnAFifoIsRefusedWithoutWaitingForAWriter) {
  testing::TempDir dir;
  std::string path = (dir.path() / "runs.db").string();
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  ManualClock clock(At(0));
  auto opened = SqliteRunStore::Open(path, clock);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::kUnavailable) << opened.error().ToString();
  EXPECT_NE(opened.error().message.find(path), std::string::npos) << opened.error().message;
}

// --- A store whose file was deleted or replaced while it was open -----------

class StoreFileGoneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteRunStore::Open(path_, clock_);
    ASSERT_TRUE(opened) << opened.error().ToString();
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->CreateRun(RunningRun("before", At(0))));
    ASSERT_TRUE(store_->AppendTurn("conv-1", {"user", "why?", "before", At(0)}));
  }

  // As `rm runs.db*`: the database and its -wal and -shm files.
  void DeleteFile() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }

  // As restoring another copy over it: a new database renamed onto the path.
  void ReplaceFile() {
    std::string other = (dir_.path() / "other.db").string();
    {
      auto opened = SqliteRunStore::Open(other, clock_);
      ASSERT_TRUE(opened) << opened.error().ToString();
      ASSERT_TRUE((*opened)->CreateRun(RunningRun("in_other", At(0))));
    }
    std::filesystem::rename(other, path_);
  }

  app::RunRecord Finished(const std::string& run_id) {
    app::RunRecord run = RunningRun(run_id, At(0));
    run.status = "SUCCEEDED";
    run.internal_status = "COMPLETED";
    run.finished_at = At(1'000);
    run.result_json = "{}";
    run.events = {{1, "run", "{}"}, {2, "done", "{}"}};
    return run;
  }

  testing::TempDir dir_;
  std::string path_ = (dir_.path() / "runs.db").string();
  ManualClock clock_{At(0)};
  std::unique_ptr<SqliteRunStore> store_;
};

TEST_F(StoreFileGoneTest, CreateRunAfterTheFileWasDeletedIsUnavailableNamingThePath) {
  DeleteFile();
  ExpectUnavailableNaming(store_->CreateRun(RunningRun("after", At(5))), path_, "deleted");
}

TEST_F(StoreFileGoneTest, FinishRunAfterTheFileWasDeletedIsUnavailableNamingThePath) {
  DeleteFile();
  ExpectUnavailableNaming(store_->FinishRun(Finished("before")), path_, "deleted");
}

TEST_F(StoreFileGoneTest, AppendTurnAfterTheFileWasDeletedIsUnavailableNamingThePath) {
  DeleteFile();
  ExpectUnavailableNaming(store_->AppendTurn("conv-1", {"assistant", "because", "before", At(5)}),
                          path_, "deleted");
}

TEST_F(StoreFileGoneTest, LeaseAndAbandonWritesAfterTheFileWasDeletedAreUnavailable) {
  DeleteFile();
  ExpectUnavailableNaming(store_->RenewLeases("host-a", At(9'000)), path_, "deleted");
  ExpectUnavailableNaming(store_->AbandonRun({"before", "SERVER_SHUTDOWN", "", At(5), {}}), path_,
                          "deleted");
  auto lost = store_->ReclaimLostRuns({"host-a", At(9'000), At(9'000)});
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(lost.error().message.find(path_), std::string::npos) << lost.error().message;
}

// Reads still come from the file the store has open (unlinked, it lives as
// long as the store): what was stored before, and nothing refused after.
TEST_F(StoreFileGoneTest, ReadsAfterTheFileWasDeletedSeeTheOpenFileWithoutRefusedWrites) {
  DeleteFile();
  ASSERT_FALSE(store_->CreateRun(RunningRun("after", At(5))));
  ASSERT_FALSE(store_->FinishRun(Finished("before")));
  ASSERT_FALSE(store_->AppendTurn("conv-1", {"assistant", "because", "before", At(5)}));

  auto before = store_->GetRun("before");
  ASSERT_TRUE(before) << before.error().ToString();
  ASSERT_TRUE(before->has_value());
  EXPECT_EQ((*before)->status, "RUNNING") << "the refused finish was not written";
  auto after = store_->GetRun("after");
  ASSERT_TRUE(after) << after.error().ToString();
  EXPECT_FALSE(after->has_value()) << "the refused create was not written";
  auto turns = store_->RecentTurns("conv-1", 10);
  ASSERT_TRUE(turns) << turns.error().ToString();
  EXPECT_EQ(turns->size(), 1u);
  auto listed = store_->ListRuns(10);
  ASSERT_TRUE(listed) << listed.error().ToString();
  EXPECT_EQ(listed->size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(path_)) << "no write recreated the file";
}

TEST_F(StoreFileGoneTest, CreateRunAfterTheFileWasReplacedIsUnavailableNamingThePath) {
  ReplaceFile();
  ExpectUnavailableNaming(store_->CreateRun(RunningRun("after", At(5))), path_, "replaced");
}

TEST_F(StoreFileGoneTest, FinishRunAfterTheFileWasReplacedIsUnavailableNamingThePath) {
  ReplaceFile();
  ExpectUnavailableNaming(store_->FinishRun(Finished("before")), path_, "replaced");
}

TEST_F(StoreFileGoneTest, AppendTurnAfterTheFileWasReplacedIsUnavailableNamingThePath) {
  ReplaceFile();
  ExpectUnavailableNaming(store_->AppendTurn("conv-1", {"assistant", "because", "before", At(5)}),
                          path_, "replaced");
}

// Reads keep coming from the file the store opened, not the new one at its
// path: a store must be reopened (diagd restarted) to see the new file.
TEST_F(StoreFileGoneTest, ReadsAfterTheFileWasReplacedStillSeeTheFileTheStoreOpened) {
  ReplaceFile();
  ASSERT_FALSE(store_->CreateRun(RunningRun("after", At(5))));
  auto before = store_->GetRun("before");
  ASSERT_TRUE(before) << before.error().ToString();
  EXPECT_TRUE(before->has_value());
  auto in_other = store_->GetRun("in_other");
  ASSERT_TRUE(in_other) << in_other.error().ToString();
  EXPECT_FALSE(in_other->has_value());
}

TEST_F(StoreFileGoneTest, WritesWorkWhileTheFileIsThere) {
  EXPECT_TRUE(store_->CreateRun(RunningRun("after", At(5))));
  EXPECT_TRUE(store_->FinishRun(Finished("before")));
  EXPECT_TRUE(store_->AppendTurn("conv-1", {"assistant", "because", "before", At(5)}));
}

}  // namespace
}  // namespace diagd::store
