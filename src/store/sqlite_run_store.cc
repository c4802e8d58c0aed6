#include "store/sqlite_run_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "store/db_file.h"
#include "store/run_rows.h"
#include "store/sqlite_db.h"
#include "store/sqlite_migrations.h"

namespace diagd::store {
namespace {

// The check of CheckStillRunning, on the run's stored status.
Status RunStillRunning(SqliteDb& db, const std::string& run_id, std::string_view what) {
  auto stmt = db.Prepare("SELECT status FROM diagnosis_run WHERE run_id = ?1", "run status");
  if (!stmt) return stmt.error();
  stmt->Bind(1, run_id);
  Result<bool> row = stmt->Step();
  if (!row) return row.error();
  std::optional<std::string> status;
  if (*row) status = stmt->Text(0);
  return CheckStillRunning(status, what);
}

// The runs no instance will finish (app::LostRunSweep): ?1 the sweeping
// instance, ?2 when it started (NULL once its own left-behind runs are
// ended), ?3 now.
constexpr const char* kFindLostRuns =
    "SELECT run_id, conversation_id FROM diagnosis_run WHERE status = 'RUNNING' AND ("
    "(instance_id = ?1 AND ?2 IS NOT NULL AND created_at < ?2) OR "
    "(coalesce(instance_id, '') <> ?1 AND lease_until IS NOT NULL AND lease_until < ?3))";

constexpr std::string_view kScheme = "sqlite:";
constexpr const char* kMemory = ":memory:";

// The database path named by `url_or_path`, or why there is none.
Result<std::string> DatabasePath(const std::string& url_or_path) {
  std::string_view rest = url_or_path;
  if (rest.starts_with(kScheme)) {
    rest.remove_prefix(kScheme.size());
    if (rest.starts_with("//")) {
      return Error::InvalidArgument("run store: expected sqlite:PATH, not sqlite://");
    }
  } else if (rest.find("://") != std::string_view::npos) {
    return Error::InvalidArgument("run store: not a sqlite: URL (expected sqlite:PATH)");
  }
  if (rest.empty()) return Error::InvalidArgument("run store: the database path is empty");
  return std::string(rest);
}

Status CreateParentFolders(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return OkStatus();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) {
    return Error::Unavailable("run store: cannot create the folder " + parent.string() + ": " +
                              ec.message());
  }
  return OkStatus();
}

// Connection settings, before anything reads the schema. The first of them
// reads the file header: that is where a file that is no database shows.
Status Configure(SqliteDb& db, const std::string& path) {
  Status timeout = db.Exec("PRAGMA busy_timeout = 5000", "configure database");
  static_assert(SqliteRunStore::kBusyTimeoutMs == 5000, "the PRAGMA above");
  if (!timeout) return timeout;
  Status wal = db.Exec("PRAGMA journal_mode = WAL", "configure database");
  if (!wal) {
    int code = db.LastErrorCode();
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
      return Error::FailedPrecondition("run store: " + path +
                                       " is not a SQLite database (or is damaged); refusing "
                                       "to use it");
    }
    return wal;
  }
  // FULL: a run the store reported finished survives a power cut; one fsync
  // per write transaction is nothing next to a run's model calls.
  // temp_store = MEMORY: each write of a group commit runs under its own
  // savepoint, and SQLite journals every page a savepoint changes first to
  // a sub-journal, spilled past 64 KiB to a temporary file. That file took
  // six times the bytes the WAL did (docs/run-store.md); in memory the
  // sub-journal is emptied at each RELEASE, so it holds at most one
  // write's pages.
  return db.Exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; PRAGMA temp_store = MEMORY",
                 "configure database");
}

}  // namespace

Result<std::unique_ptr<SqliteRunStore>> SqliteRunStore::Open(const std::string& url_or_path,
                                                             const Clock& clock) {
  Result<std::string> path = DatabasePath(url_or_path);
  if (!path) return path.error();
  bool in_memory = *path == kMemory;
  if (!in_memory) {
    if (Status folders = CreateParentFolders(*path); !folders) return folders.error();
    if (Status usable = CheckDatabasePath(*path); !usable) return usable.error();
  }
  Result<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(*path);
  if (!db) return Error::Unavailable(db.error().message + " (" + *path + ")");
  if (Status configured = Configure(**db, *path); !configured) return configured.error();
  if (Status migrated = ApplyMigrations(**db, RunStoreMigrations(), clock); !migrated) {
    return migrated.error();
  }
  std::optional<DbFileIdentity> file;
  if (!in_memory) {
    file = DbFileIdentity::Capture(*path);
    if (!file) return Error::Unavailable("run store: " + *path + " vanished while it was opened");
  }
  return std::unique_ptr<SqliteRunStore>(
      new SqliteRunStore(std::move(*db), std::move(*path), std::move(file), clock));
}

SqliteRunStore::SqliteRunStore(std::unique_ptr<SqliteDb> db, std::string path,
                               std::optional<DbFileIdentity> file, const Clock& clock)
    : path_(std::move(path)), file_(std::move(file)), clock_(clock), db_(std::move(db)) {}

SqliteRunStore::~SqliteRunStore() = default;

Status SqliteRunStore::Read(const std::function<Status(SqliteDb&)>& read) {
  // ":memory:" has no other connection. A file deleted or replaced under
  // us is read where the store opened it, through the writer's connection:
  // a new one would open another database, or none.
  if (!file_ || !file_->CheckStillThere()) {
    MutexLock lock(mu_);
    return read(*db_);
  }
  Result<std::unique_ptr<SqliteDb>> reader = BorrowReader();
  if (!reader) return reader.error();
  Status done = read(**reader);
  ReturnReader(std::move(*reader));
  return done;
}

Result<std::unique_ptr<SqliteDb>> SqliteRunStore::BorrowReader() {
  {
    MutexLock lock(readers_mu_);
    if (!idle_readers_.empty()) {
      std::unique_ptr<SqliteDb> reader = std::move(idle_readers_.back());
      idle_readers_.pop_back();
      return reader;
    }
  }
  Result<std::unique_ptr<SqliteDb>> reader = SqliteDb::Open(path_, SqliteDb::OpenMode::kExisting);
  if (!reader) return reader.error();
  Status configured = (*reader)->Exec("PRAGMA busy_timeout = 1000; PRAGMA query_only = ON",
                                      "open a read connection");
  static_assert(kReadBusyTimeoutMs == 1000, "the PRAGMA above");
  if (!configured) return configured.error();
  return reader;
}

void SqliteRunStore::ReturnReader(std::unique_ptr<SqliteDb> reader) {
  // Two store threads of the server, the upkeep and a run or two reading
  // at once; more are closed (outside the lock: closing may checkpoint).
  constexpr std::size_t kIdleReaders = 4;
  {
    MutexLock lock(readers_mu_);
    if (idle_readers_.size() < kIdleReaders) {
      idle_readers_.push_back(std::move(reader));
      return;
    }
  }
  reader.reset();
}

Status SqliteRunStore::CreateRun(const app::RunRecord& run) { return WriteRun(run, false); }

Status SqliteRunStore::FinishRun(const app::RunRecord& run) { return WriteRun(run, true); }

Status SqliteRunStore::WriteRun(const app::RunRecord& run, bool replace) {
  if (Status valid = ValidateRun(run); !valid) return valid;
  Result<EncodedChildren> encoded = EncodeChildren(run);
  if (!encoded) return encoded.error();
  encoded->observations_stored_at = FormatRfc3339Millis(clock_.Now());
  return Write([&](SqliteDb& db) { return WriteRunRows(db, run, *encoded, replace); });
}

Status SqliteRunStore::Write(std::function<Status(SqliteDb&)> apply) {
  return commits_.Write(std::move(apply),
                        [this](const std::vector<PendingWrite*>& group) { CommitGroup(group); });
}

void SqliteRunStore::CommitGroup(const std::vector<PendingWrite*>& group) {
  MutexLock lock(mu_);
  // A file deleted or replaced under us would take every write with it at
  // exit: refuse them, so no run is reported stored that is not.
  if (file_) {
    if (Status there = file_->CheckStillThere(); !there) {
      for (PendingWrite* write : group) write->result = there;
      return;
    }
  }
  Transaction tx(*db_);
  if (Status begun = tx.Begin(Transaction::Kind::kWrite, "write"); !begun) {
    for (PendingWrite* write : group) write->result = begun;
    return;
  }
  // Cached statements: a group of hundreds of writes parses its three
  // savepoint statements once, not once a write.
  auto run = [this](const char* sql) -> Status {
    auto statement = db_->Prepare(sql, "write");
    if (!statement) return statement.error();
    return statement->Run();
  };
  for (PendingWrite* write : group) {
    if (Status saved = run("SAVEPOINT diagd_write"); !saved) {
      write->result = saved;
      continue;
    }
    write->result = write->apply(*db_);
    if (!write->result) (void)run("ROLLBACK TO diagd_write");
    (void)run("RELEASE diagd_write");
  }
  if (Status committed = tx.Commit(); !committed) {
    for (PendingWrite* write : group) {
      if (write->result) write->result = committed;
    }
  }
}

Result<std::optional<app::RunRecord>> SqliteRunStore::GetRun(const std::string& run_id) {
  std::optional<app::RunRecord> run;
  Status read = Read([&](SqliteDb& db) -> Status {
    // One read transaction: row, steps and trace from the same snapshot,
    // even when another process finishes the run meanwhile.
    Transaction tx(db);
    if (Status begun = tx.Begin(Transaction::Kind::kRead, "read run"); !begun) return begun;
    Result<std::optional<app::RunRecord>> rows = ReadRunRows(db, run_id);
    if (!rows) return rows.error();
    run = std::move(*rows);
    return tx.Commit();
  });
  if (!read) return read.error();
  return run;
}

Status SqliteRunStore::AbandonRun(const app::AbandonedRun& run) {
  std::string finished = FormatRfc3339Millis(run.finished_at);
  return Write([&](SqliteDb& db) -> Status {
    if (Status running = RunStillRunning(db, run.run_id, "abandon run"); !running) return running;
    auto update = db.Prepare(
        "UPDATE diagnosis_run SET status = 'FAILED', internal_status = 'FAILED', "
        "failure_reason = ?2, finished_at = ?3, route = CASE WHEN ?4 = '' THEN route ELSE ?4 END "
        "WHERE run_id = ?1",
        "abandon run");
    if (!update) return update.error();
    update->Bind(1, run.run_id).Bind(2, run.reason).Bind(3, finished).Bind(4, run.route);
    if (Status written = update->Run(); !written) return written;
    return ReplaceEvents(db, run.run_id, run.events);
  });
}

Status SqliteRunStore::AppendEvents(const std::string& run_id,
                                    const std::vector<app::RunEvent>& events) {
  if (Status valid = ValidateEventSlice(events); !valid) return valid;
  return Write([&](SqliteDb& db) -> Status {
    if (Status running = RunStillRunning(db, run_id, "append run events"); !running) {
      return running;
    }
    for (const app::RunEvent& event : events) {
      auto insert = db.Prepare(
          "INSERT INTO run_event (run_id, id, name, data) VALUES (?1, ?2, ?3, ?4) "
          "ON CONFLICT DO NOTHING",
          "append run events");
      if (!insert) return insert.error();
      insert->Bind(1, run_id).Bind(2, event.id).Bind(3, event.name).Bind(4, event.data);
      if (Status written = insert->Run(); !written) return written;
    }
    return OkStatus();
  });
}

Result<bool> SqliteRunStore::AnyRow(const char* sql, std::string_view operation,
                                    const std::function<void(Statement&)>& bind) {
  // The write it stands for would fail on a file deleted or replaced under
  // us: so does the look, and the store's health shows it even when idle.
  if (file_) {
    if (Status there = file_->CheckStillThere(); !there) return there.error();
  }
  bool any = false;
  Status read = Read([&](SqliteDb& db) -> Status {
    auto stmt = db.Prepare(sql, operation);
    if (!stmt) return stmt.error();
    bind(*stmt);
    Result<bool> row = stmt->Step();
    if (!row) return row.error();
    any = *row;
    return OkStatus();
  });
  if (!read) return read.error();
  return any;
}

Status SqliteRunStore::RenewLeases(const std::string& instance_id, WallTime until) {
  // A run created after this look has a whole lease of its own.
  Result<bool> owns = AnyRow(
      "SELECT 1 FROM diagnosis_run WHERE status = 'RUNNING' AND instance_id = ?1 LIMIT 1",
      "renew leases", [&](Statement& stmt) { stmt.Bind(1, instance_id); });
  if (!owns) return owns.error();
  if (!*owns) return OkStatus();
  std::string lease_until = FormatRfc3339Millis(until);
  return Write([&](SqliteDb& db) -> Status {
    auto renew = db.Prepare(
        "UPDATE diagnosis_run SET lease_until = ?2 WHERE status = 'RUNNING' AND instance_id = ?1",
        "renew leases");
    if (!renew) return renew.error();
    return renew->Bind(1, instance_id).Bind(2, lease_until).Run();
  });
}

Result<std::vector<std::string>> SqliteRunStore::ReclaimLostRuns(const app::LostRunSweep& sweep) {
  std::string now = FormatRfc3339Millis(sweep.now);
  std::optional<std::string> started_at;
  if (sweep.started_at) started_at = FormatRfc3339Millis(*sweep.started_at);
  auto bind = [&](Statement& find) {
    find.Bind(1, sweep.instance_id).BindOptional(2, started_at).Bind(3, now);
  };
  std::vector<std::string> lost;
  Result<bool> any = AnyRow(kFindLostRuns, "find lost runs", bind);
  if (!any) return any.error();
  if (!*any) return lost;
  Status swept = Write([&](SqliteDb& db) -> Status {
    std::vector<std::pair<std::string, std::string>> runs;  // run id, conversation id
    {
      auto find = db.Prepare(kFindLostRuns, "find lost runs");
      if (!find) return find.error();
      bind(*find);
      while (true) {
        Result<bool> row = find->Step();
        if (!row) return row.error();
        if (!*row) break;
        runs.emplace_back(find->Text(0), find->Text(1));
      }
    }
    for (const auto& [run_id, conversation_id] : runs) {
      auto end = db.Prepare(
          "UPDATE diagnosis_run SET status = 'FAILED', internal_status = 'FAILED', "
          "failure_reason = 'INSTANCE_LOST', finished_at = ?2 WHERE run_id = ?1",
          "end lost run");
      if (!end) return end.error();
      if (Status ended = end->Bind(1, run_id).Bind(2, now).Run(); !ended) return ended;
      auto stored = ReadEvents(db, run_id, 0);
      if (!stored) return stored.error();
      if (Status events = ReplaceEvents(
              db, run_id, LostRunEvents(run_id, conversation_id, std::move(*stored)));
          !events) {
        return events;
      }
      lost.push_back(run_id);
    }
    return OkStatus();
  });
  if (!swept) return swept.error();
  return lost;
}

Result<std::vector<app::RunEvent>> SqliteRunStore::RunEvents(const std::string& run_id,
                                                            std::int64_t after_id) {
  std::vector<app::RunEvent> events;
  Status read = Read([&](SqliteDb& db) -> Status {
    Result<std::vector<app::RunEvent>> rows = ReadEvents(db, run_id, after_id);
    if (!rows) return rows.error();
    events = std::move(*rows);
    return OkStatus();
  });
  if (!read) return read.error();
  return events;
}

Result<std::vector<app::RunSummary>> SqliteRunStore::ListRuns(int limit) {
  app::RunQuery query;
  query.limit = limit;
  Result<app::RunPage> page = ListRunPage(query);
  if (!page) return page.error();
  return std::move(page->runs);
}

Status SqliteRunStore::AppendTurns(const std::string& conversation_id,
                                   std::span<const app::ConversationTurn> turns) {
  if (Status valid = ValidateTurns(conversation_id, turns); !valid) return valid;
  if (turns.empty()) return OkStatus();
  return Write([&](SqliteDb& db) -> Status {
    auto conversation = db.Prepare(
        "INSERT INTO conversation (conversation_id, created_at) VALUES (?1, ?2) "
        "ON CONFLICT (conversation_id) DO NOTHING",
        "append turn");
    if (!conversation) return conversation.error();
    conversation->Bind(1, conversation_id).Bind(2, FormatRfc3339Millis(turns.front().created_at));
    if (Status written = conversation->Run(); !written) return written;
    for (const app::ConversationTurn& turn : turns) {
      // The next seq is computed inside the write transaction, so two
      // appends (from this or another process) never take the same one.
      auto message = db.Prepare(
          "INSERT INTO conversation_message (conversation_id, seq, role, content, run_id, "
          "created_at) SELECT ?1, coalesce(max(seq), 0) + 1, ?2, ?3, ?4, ?5 "
          "FROM conversation_message WHERE conversation_id = ?1",
          "append turn");
      if (!message) return message.error();
      message->Bind(1, conversation_id)
          .Bind(2, turn.role)
          .Bind(3, turn.content)
          .Bind(4, turn.run_id)
          .Bind(5, FormatRfc3339Millis(turn.created_at));
      if (Status written = message->Run(); !written) return written;
    }
    return OkStatus();
  });
}

Result<std::vector<app::ConversationTurn>> SqliteRunStore::RecentTurns(
    const std::string& conversation_id, int max_turns) {
  if (max_turns < 0) return Error::InvalidArgument("run store: max_turns is negative");
  std::vector<app::ConversationTurn> turns;
  if (max_turns == 0) return turns;
  Status read = Read([&](SqliteDb& db) -> Status {
    auto stmt = db.Prepare(
        "SELECT role, content, run_id, created_at FROM conversation_message "
        "WHERE conversation_id = ?1 ORDER BY seq DESC LIMIT ?2",
        "read conversation");
    if (!stmt) return stmt.error();
    stmt->Bind(1, conversation_id).Bind(2, static_cast<std::int64_t>(max_turns));
    while (true) {
      Result<bool> row = stmt->Step();
      if (!row) return row.error();
      if (!*row) return OkStatus();
      app::ConversationTurn turn;
      turn.role = stmt->Text(0);
      turn.content = stmt->Text(1);
      turn.run_id = stmt->Text(2);
      Result<WallTime> created_at = ReadTime(*stmt, 3);
      if (!created_at) return created_at.error();
      turn.created_at = *created_at;
      turns.push_back(std::move(turn));
    }
  });
  if (!read) return read.error();
  // Read newest first to take the last N; the caller wants them in order.
  std::reverse(turns.begin(), turns.end());
  return turns;
}

}  // namespace diagd::store
