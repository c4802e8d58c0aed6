#include "store/postgres_run_store.h"

#include <algorithm>
#include <string_view>

#include "store/postgres_db.h"
#include "store/postgres_migrations.h"
#include "store/postgres_run_rows.h"
#include "store/run_rows.h"

namespace diagd::store {
namespace {

// The check of CheckStillRunning, on the run's stored status, its row
// locked until the write commits (a sweep ending it waits, or is waited for).
Status RunStillRunning(PgConn& conn, const std::string& run_id, std::string_view what) {
  auto rows = conn.Query("SELECT status FROM diagnosis_run WHERE run_id = $1 FOR UPDATE",
                         PgParams().Text(run_id), "run status");
  if (!rows) return rows.error();
  std::optional<std::string> status;
  if (rows->size() > 0) status = rows->Text(0, 0);
  return CheckStillRunning(status, what);
}

// SQLSTATEs after which a write may simply run again: another transaction
// won a lock race (two instances sweeping, appending to one conversation).
bool Retryable(const std::string& sqlstate) {
  return sqlstate == "40P01" || sqlstate == "40001";
}
constexpr int kWriteAttempts = 3;

}  // namespace

Result<std::unique_ptr<PostgresRunStore>> PostgresRunStore::Open(const std::string& url,
                                                                 const Clock& clock) {
  if (!url.starts_with("postgresql://") && !url.starts_with("postgres://")) {
    return Error::InvalidArgument(
        "run store: not a PostgreSQL URL (expected postgresql://... or postgres://...)");
  }
  Result<std::unique_ptr<PgConn>> conn = PgConn::Connect(url);
  if (!conn) return conn.error();
  if (Status migrated = ApplyPostgresMigrations(**conn, PostgresRunStoreMigrations(), clock);
      !migrated) {
    return migrated.error();
  }
  auto pool = std::make_unique<PgPool>(url, kPoolSize);
  pool->Adopt(std::move(*conn));
  return std::unique_ptr<PostgresRunStore>(new PostgresRunStore(std::move(pool), clock));
}

PostgresRunStore::PostgresRunStore(std::unique_ptr<PgPool> pool, const Clock& clock)
    : clock_(clock), pool_(std::move(pool)) {}

PostgresRunStore::~PostgresRunStore() = default;

Status PostgresRunStore::CreateRun(const app::RunRecord& run) { return WriteRun(run, false); }

Status PostgresRunStore::FinishRun(const app::RunRecord& run) { return WriteRun(run, true); }

Status PostgresRunStore::WriteRun(const app::RunRecord& run, bool replace) {
  if (Status valid = ValidateRun(run); !valid) return valid;
  Result<EncodedChildren> encoded = EncodeChildren(run);
  if (!encoded) return encoded.error();
  encoded->observations_stored_at = FormatRfc3339Millis(clock_.Now());
  return Write([&](PgConn& conn) { return WritePgRunRows(conn, run, *encoded, replace); });
}

Status PostgresRunStore::Write(std::function<Status(PgConn&)> apply) {
  return commits_.Write(std::move(apply),
                        [this](const std::vector<PendingWrite*>& group) { CommitGroup(group); });
}

void PostgresRunStore::CommitGroup(const std::vector<PendingWrite*>& group) {
  auto fail_all = [&](const Status& status) {
    for (PendingWrite* write : group) write->result = status;
  };
  std::optional<PgPool::Lease> lease;
  std::optional<PgTransaction> tx;
  Status begun = OkStatus();
  for (int attempt = 0; attempt < 2; ++attempt) {
    tx.reset();
    lease.reset();  // a broken connection goes back (and is dropped) first
    Result<PgPool::Lease> acquired = pool_->Acquire();
    if (!acquired) return fail_all(acquired.error());
    lease.emplace(std::move(*acquired));
    tx.emplace(**lease);
    begun = tx->Begin("BEGIN", "write");
    // A pooled connection that died while idle (a server restart) failed
    // before anything was sent: the group starts again on a fresh one.
    if (begun || !(*lease)->Broken()) break;
  }
  PgConn* conn = &**lease;
  if (!begun) return fail_all(begun);
  for (PendingWrite* write : group) {
    for (int attempt = 1;; ++attempt) {
      if (Status saved = conn->Exec("SAVEPOINT diagd_write", "write"); !saved) {
        write->result = saved;
        break;
      }
      write->result = write->apply(*conn);
      if (write->result) {
        (void)conn->Exec("RELEASE SAVEPOINT diagd_write", "write");
        break;
      }
      bool retry = Retryable(conn->last_sqlstate()) && attempt < kWriteAttempts;
      (void)conn->Exec("ROLLBACK TO SAVEPOINT diagd_write", "write");
      (void)conn->Exec("RELEASE SAVEPOINT diagd_write", "write");
      if (!retry) break;
    }
    if (conn->Broken()) break;
  }
  Status committed = tx->Commit();
  if (!committed) {
    for (PendingWrite* write : group) {
      if (write->result) write->result = committed;
    }
  }
}

Result<std::optional<app::RunRecord>> PostgresRunStore::GetRun(const std::string& run_id) {
  return ReadWithRetry(*pool_, [&](PgConn& conn) -> Result<std::optional<app::RunRecord>> {
        // One snapshot: row, steps and trace as one instance wrote them,
        // even while another finishes the run.
        PgTransaction tx(conn);
        if (Status begun =
                tx.Begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "read run");
            !begun) {
          return begun.error();
        }
        Result<std::optional<app::RunRecord>> run = ReadPgRunRows(conn, run_id);
        if (!run) return run.error();
        if (Status done = tx.Commit(); !done) return done.error();
        return run;
      });
}

Status PostgresRunStore::AbandonRun(const app::AbandonedRun& run) {
  std::string finished = FormatRfc3339Millis(run.finished_at);
  return Write([&](PgConn& conn) -> Status {
    if (Status running = RunStillRunning(conn, run.run_id, "abandon run"); !running) {
      return running;
    }
    auto update = conn.Query(
        "UPDATE diagnosis_run SET status = 'FAILED', internal_status = 'FAILED', "
        "failure_reason = $2, finished_at = $3, "
        "route = CASE WHEN $4::text = '' THEN route ELSE $4::text END WHERE run_id = $1",
        PgParams().Text(run.run_id).Text(run.reason).Text(finished).Text(run.route),
        "abandon run");
    if (!update) return update.error();
    return ReplacePgEvents(conn, run.run_id, run.events);
  });
}

Status PostgresRunStore::AppendEvents(const std::string& run_id,
                                      const std::vector<app::RunEvent>& events) {
  if (Status valid = ValidateEventSlice(events); !valid) return valid;
  return Write([&](PgConn& conn) -> Status {
    if (Status running = RunStillRunning(conn, run_id, "append run events"); !running) {
      return running;
    }
    return InsertPgEvents(conn, run_id, events, /*keep_stored=*/true);
  });
}

Status PostgresRunStore::RenewLeases(const std::string& instance_id, WallTime until) {
  std::string lease_until = FormatRfc3339Millis(until);
  return Write([&](PgConn& conn) -> Status {
    auto renewed = conn.Query(
        "UPDATE diagnosis_run SET lease_until = $2 WHERE status = 'RUNNING' AND instance_id = $1",
        PgParams().Text(instance_id).Text(lease_until), "renew leases");
    if (!renewed) return renewed.error();
    return OkStatus();
  });
}

Result<std::vector<std::string>> PostgresRunStore::ReclaimLostRuns(
    const app::LostRunSweep& sweep) {
  std::string now = FormatRfc3339Millis(sweep.now);
  std::optional<std::string> started_at;
  if (sweep.started_at) started_at = FormatRfc3339Millis(*sweep.started_at);
  std::vector<std::string> lost;
  Status swept = Write([&](PgConn& conn) -> Status {
    lost.clear();  // a retried attempt starts over
    // One statement finds and ends them with their rows locked: a second
    // instance sweeping at once waits, then finds them no longer RUNNING.
    auto ended = conn.Query(
        "UPDATE diagnosis_run SET status = 'FAILED', internal_status = 'FAILED', "
        "failure_reason = 'INSTANCE_LOST', finished_at = $3 WHERE status = 'RUNNING' AND ("
        "(instance_id = $1 AND $2::text IS NOT NULL AND created_at < $2::text) OR "
        "(coalesce(instance_id, '') <> $1 AND lease_until IS NOT NULL AND lease_until < $3)) "
        "RETURNING run_id, conversation_id",
        PgParams().Text(sweep.instance_id).OptionalText(started_at).Text(now), "end lost runs");
    if (!ended) return ended.error();
    for (int r = 0; r < ended->size(); ++r) {
      std::string run_id = ended->Text(r, 0);
      auto stored = ReadPgEvents(conn, run_id, 0);
      if (!stored) return stored.error();
      if (Status events = ReplacePgEvents(
              conn, run_id, LostRunEvents(run_id, ended->Text(r, 1), std::move(*stored)));
          !events) {
        return events;
      }
      lost.push_back(std::move(run_id));
    }
    std::sort(lost.begin(), lost.end());
    return OkStatus();
  });
  if (!swept) return swept.error();
  return lost;
}

Result<std::vector<app::RunEvent>> PostgresRunStore::RunEvents(const std::string& run_id,
                                                              std::int64_t after_id) {
  return ReadWithRetry(*pool_, [&](PgConn& conn) { return ReadPgEvents(conn, run_id, after_id); });
}

Result<std::vector<app::RunSummary>> PostgresRunStore::ListRuns(int limit) {
  app::RunQuery query;
  query.limit = limit;
  Result<app::RunPage> page = ListRunPage(query);
  if (!page) return page.error();
  return std::move(page->runs);
}

Status PostgresRunStore::AppendTurns(const std::string& conversation_id,
                                     std::span<const app::ConversationTurn> turns) {
  if (Status valid = ValidateTurns(conversation_id, turns); !valid) return valid;
  if (turns.empty()) return OkStatus();
  return Write([&](PgConn& conn) -> Status {
    auto conversation = conn.Query(
        "INSERT INTO conversation (conversation_id, created_at) VALUES ($1, $2) "
        "ON CONFLICT (conversation_id) DO NOTHING",
        PgParams().Text(conversation_id).Text(FormatRfc3339Millis(turns.front().created_at)),
        "append turn");
    if (!conversation) return conversation.error();
    // The conversation's row lock orders appends from every instance, so
    // two never take the same seq.
    auto locked = conn.Query("SELECT 1 FROM conversation WHERE conversation_id = $1 FOR UPDATE",
                             PgParams().Text(conversation_id), "append turn");
    if (!locked) return locked.error();
    for (const app::ConversationTurn& turn : turns) {
      auto message = conn.Query(
          "INSERT INTO conversation_message (conversation_id, seq, role, content, run_id, "
          "created_at) SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4, $5 "
          "FROM conversation_message WHERE conversation_id = $1",
          PgParams()
              .Text(conversation_id)
              .Text(turn.role)
              .Bytes(turn.content)
              .Text(turn.run_id)
              .Text(FormatRfc3339Millis(turn.created_at)),
          "append turn");
      if (!message) return message.error();
    }
    return OkStatus();
  });
}

Result<std::vector<app::ConversationTurn>> PostgresRunStore::RecentTurns(
    const std::string& conversation_id, int max_turns) {
  if (max_turns < 0) return Error::InvalidArgument("run store: max_turns is negative");
  std::vector<app::ConversationTurn> none;
  if (max_turns == 0) return none;
  return ReadWithRetry(*pool_, [&](PgConn& conn) -> Result<std::vector<app::ConversationTurn>> {
        auto rows = conn.Query(
            "SELECT role, content, run_id, created_at FROM conversation_message "
            "WHERE conversation_id = $1 ORDER BY seq DESC LIMIT $2",
            PgParams().Text(conversation_id).Int(max_turns), "read conversation");
        if (!rows) return rows.error();
        std::vector<app::ConversationTurn> turns;
        for (int r = rows->size() - 1; r >= 0; --r) {  // newest first in, oldest first out
          app::ConversationTurn turn;
          turn.role = rows->Text(r, 0);
          turn.content = rows->Bytes(r, 1);
          turn.run_id = rows->Text(r, 2);
          Result<WallTime> created_at = ReadPgTime(*rows, r, 3);
          if (!created_at) return created_at.error();
          turn.created_at = *created_at;
          turns.push_back(std::move(turn));
        }
        return turns;
      });
}

}  // namespace diagd::store
