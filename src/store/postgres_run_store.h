// The run store on PostgreSQL (storage.runs = "postgresql://..." or
// "postgres://..."), for several instances sharing one store
// (docs/deploy.md). Same behaviour as SqliteRunStore; schema, migrations, grouping of
// writes and indexes are described in docs/run-store.md.
//
// Thread safety: safe for concurrent use. A small pool of connections (each
// used by one call at a time: libpq connections are not thread-safe); reads
// take any free one. Writes are group-committed as on SQLite: concurrent
// writers queue, and one of them commits the queue in one transaction, each
// write under its own savepoint, so one failing write never undoes another.
// Other instances may share the database: every check a write depends on
// (is the run still RUNNING?) is made inside its transaction with the rows
// locked.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/run_store.h"
#include "core/clock.h"
#include "runtime/fiber.h"
#include "core/result.h"
#include "store/group_commit.h"

namespace diagd::store {

class PgConn;
class PgPool;

class PostgresRunStore final : public app::RunStore {
 public:
  // `url`: postgresql://user:password@host:port/database?... (libpq's URI
  // form). Connects, then applies missing schema migrations under an
  // advisory lock. INVALID_ARGUMENT for another scheme; UNAVAILABLE when the
  // server cannot be reached or fails; FAILED_PRECONDITION for a schema
  // that is newer than this build or not diagd's. No error repeats the URL
  // (it may hold a password). `clock` stamps migrations and stored
  // observations; it must outlive the store.
  static Result<std::unique_ptr<PostgresRunStore>> Open(const std::string& url,
                                                        const Clock& clock);
  ~PostgresRunStore() override;

  Status CreateRun(const app::RunRecord& run) override;
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
  // postgres_run_queries.cc: the web console's reads (docs/console.md).
  Result<app::RunPage> ListRunPage(const app::RunQuery& query) override;
  Result<app::RunPage> ConversationPage(const app::ConversationQuery& query) override;
  Result<std::optional<std::string>> GetObservation(const std::string& run_id,
                                                    const std::string& tool_call_id) override;
  Result<std::int64_t> PurgeObservations(WallTime before) override;
  Status AppendTurns(const std::string& conversation_id,
                     std::span<const app::ConversationTurn> turns) override;
  Result<std::vector<app::ConversationTurn>> RecentTurns(const std::string& conversation_id,
                                                         int max_turns) override;

  static constexpr int kMaxListLimit = 200;
  // Connections per store: one for the group commit, the rest for reads.
  static constexpr int kPoolSize = 4;

 private:
  PostgresRunStore(std::unique_ptr<PgPool> pool, const Clock& clock);

  using PendingWrite = GroupCommit<PgConn>::PendingWrite;
  Status WriteRun(const app::RunRecord& run, bool replace);
  Status Write(std::function<Status(PgConn&)> apply);
  void CommitGroup(const std::vector<PendingWrite*>& group);

  const Clock& clock_;
  std::unique_ptr<PgPool> pool_;
  GroupCommit<PgConn> commits_;
};

}  // namespace diagd::store
