// The run store on SQLite (storage.runs = "sqlite:PATH"), the embedded
// default. Schema, migrations, durability and concurrency are described in
// docs/run-store.md.
//
// Thread safety: safe for concurrent use. Writes go through one connection,
// guarded by one mutex, and are group-committed: concurrent writers queue
// their statements and one of them commits them all in one transaction,
// each under its own savepoint, so a busy server pays one fsync for many
// runs' writes instead of one each, and one failing write never undoes
// another. Reads go through read-only connections of their own, one per
// concurrent reader: in WAL they read while a write waits for, or holds,
// the write lock (this process's or another's: an operator's sqlite3
// session, a backup). Other processes may share the file (WAL,
// busy_timeout).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/run_store.h"
#include "core/clock.h"
#include "runtime/fiber.h"
#include "core/mutex.h"
#include "core/result.h"
#include "store/group_commit.h"
#include "store/db_file.h"

namespace diagd::store {

class SqliteDb;
class Statement;

class SqliteRunStore final : public app::RunStore {
 public:
  // `url_or_path`: "sqlite:/abs/path", "sqlite::memory:" (a private
  // database that lives as long as the store; for tests) or a bare path.
  // Creates the parent folders and the file when missing, sets WAL,
  // busy_timeout and foreign keys, and applies missing schema migrations.
  // INVALID_ARGUMENT for another scheme; FAILED_PRECONDITION for a file that
  // is no SQLite database, belongs to another application, or has a newer
  // schema than this build; UNAVAILABLE when SQLite or the file system fails.
  // `clock` stamps applied migrations and stored observations (their age
  // for the retention purge); it must outlive the store.
  static Result<std::unique_ptr<SqliteRunStore>> Open(const std::string& url_or_path,
                                                      const Clock& clock);
  ~SqliteRunStore() override;

  // INVALID_ARGUMENT for an empty run id, a status outside RUNNING,
  // SUCCEEDED, FAILED, or trace events whose seq do not increase;
  // FAILED_PRECONDITION when the run exists already.
  Status CreateRun(const app::RunRecord& run) override;
  // Inserts the run when CreateRun never stored it.
  Status FinishRun(const app::RunRecord& run) override;
  Status AbandonRun(const app::AbandonedRun& run) override;
  Status AppendEvents(const std::string& run_id,
                      const std::vector<app::RunEvent>& events) override;
  Status RenewLeases(const std::string& instance_id, WallTime until) override;
  Result<std::vector<std::string>> ReclaimLostRuns(const app::LostRunSweep& sweep) override;
  Result<std::optional<app::RunRecord>> GetRun(const std::string& run_id) override;
  Result<std::vector<app::RunEvent>> RunEvents(const std::string& run_id,
                                               std::int64_t after_id) override;
  Result<std::vector<app::RunSummary>> ListRuns(int limit) override;
  // sqlite_run_queries.cc: the web console's reads (docs/console.md).
  Result<app::RunPage> ListRunPage(const app::RunQuery& query) override;
  Result<app::RunPage> ConversationPage(const app::ConversationQuery& query) override;
  Result<std::optional<std::string>> GetObservation(const std::string& run_id,
                                                    const std::string& tool_call_id) override;
  Result<std::int64_t> PurgeObservations(WallTime before) override;
  // INVALID_ARGUMENT for an empty conversation id or a role other than
  // "user" and "assistant". The conversation is created by its first turn.
  Status AppendTurns(const std::string& conversation_id,
                     std::span<const app::ConversationTurn> turns) override;
  // An unknown conversation has no turns; INVALID_ARGUMENT when
  // `max_turns` is negative.
  Result<std::vector<app::ConversationTurn>> RecentTurns(const std::string& conversation_id,
                                                         int max_turns) override;

  static constexpr int kMaxListLimit = 200;
  // How long a write waits for another process's write lock.
  static constexpr int kBusyTimeoutMs = 5000;
  // How long a read waits for a lock that blocks readers (in WAL only a
  // process holding the file in exclusive locking mode, or recovering it
  // after a crash, does): past it the read fails UNAVAILABLE, so that a
  // client is answered at once rather than after the lock.
  static constexpr int kReadBusyTimeoutMs = 1000;

 private:
  SqliteRunStore(std::unique_ptr<SqliteDb> db, std::string path,
                 std::optional<DbFileIdentity> file, const Clock& clock);

  using PendingWrite = GroupCommit<SqliteDb>::PendingWrite;
  Status WriteRun(const app::RunRecord& run, bool replace) EXCLUDES(mu_);
  Status Write(std::function<Status(SqliteDb&)> apply) EXCLUDES(mu_);
  void CommitGroup(const std::vector<PendingWrite*>& group) EXCLUDES(mu_);
  // Runs `read` on a read connection of its own (or on the writer's, under
  // mu_, where no other connection can open the store's database); its
  // results go out through what it captures.
  Status Read(const std::function<Status(SqliteDb&)>& read) EXCLUDES(mu_, readers_mu_);
  // Whether `sql` finds a row, on a read connection. The upkeep's writes
  // (lease renewal, lost-run sweep, observation purge) ask first, so that
  // an idle server takes no write lock: each would wait for, and fail on,
  // a lock another process holds.
  Result<bool> AnyRow(const char* sql, std::string_view operation,
                      const std::function<void(Statement&)>& bind);
  Result<std::unique_ptr<SqliteDb>> BorrowReader() EXCLUDES(readers_mu_);
  void ReturnReader(std::unique_ptr<SqliteDb> reader) EXCLUDES(readers_mu_);

  const std::string path_;
  const std::optional<DbFileIdentity> file_;  // empty for ":memory:"
  const Clock& clock_;
  Mutex mu_;
  std::unique_ptr<SqliteDb> db_ GUARDED_BY(mu_);
  GroupCommit<SqliteDb> commits_;
  // Read connections not lent out; a few are kept, each with its prepared
  // statements, the rest closed when they come back.
  Mutex readers_mu_;
  std::vector<std::unique_ptr<SqliteDb>> idle_readers_ GUARDED_BY(readers_mu_);
};

}  // namespace diagd::store
