#include "store/sqlite_migrations.h"

#include <array>
#include <string>

namespace diagd::store {
namespace {

// Version 1: the tables of docs/run-store.md and the
// conversations. Times are RFC 3339 UTC text with milliseconds, so text
// order is time order. Steps and trace events belong to their run (deleted
// with it); a run names its conversation without a foreign key, because the
// application may create the run before the conversation's first turn.
constexpr const char* kSchemaV1 = R"sql(
PRAGMA application_id = 1684627815;

CREATE TABLE conversation (
  conversation_id TEXT NOT NULL PRIMARY KEY,
  created_at      TEXT NOT NULL
);

CREATE TABLE conversation_message (
  conversation_id TEXT    NOT NULL REFERENCES conversation (conversation_id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL,
  role            TEXT    NOT NULL,
  content         TEXT    NOT NULL,
  run_id          TEXT    NOT NULL,
  created_at      TEXT    NOT NULL,
  PRIMARY KEY (conversation_id, seq)
);

CREATE TABLE diagnosis_run (
  run_id            TEXT    NOT NULL PRIMARY KEY,
  conversation_id   TEXT    NOT NULL,
  route             TEXT    NOT NULL,
  status            TEXT    NOT NULL,
  internal_status   TEXT    NOT NULL,
  release_outcome   TEXT,
  fallback_code     TEXT,
  stop_reason       TEXT,
  total_token_count INTEGER NOT NULL DEFAULT 0,
  created_at        TEXT    NOT NULL,
  finished_at       TEXT,
  result_json       TEXT
);
-- `runs list`: newest first, ties broken by run id.
CREATE INDEX diagnosis_run_newest ON diagnosis_run (created_at DESC, run_id DESC);
-- The runs of one conversation, in order.
CREATE INDEX diagnosis_run_by_conversation ON diagnosis_run (conversation_id, created_at);

CREATE TABLE agent_step (
  run_id        TEXT    NOT NULL REFERENCES diagnosis_run (run_id) ON DELETE CASCADE,
  seq           INTEGER NOT NULL,
  round         INTEGER NOT NULL,
  token_count   INTEGER,
  tool_call_ids TEXT    NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE diagnosis_trace_event (
  run_id TEXT    NOT NULL REFERENCES diagnosis_run (run_id) ON DELETE CASCADE,
  seq    INTEGER NOT NULL,
  type   TEXT    NOT NULL,
  time   TEXT    NOT NULL,
  fields TEXT    NOT NULL,
  PRIMARY KEY (run_id, seq)
);
)sql";

// Version 2 (diagd serve): each run's event stream, as SSE clients saw it,
// for replay; and why a run failed without a result of its own (abandoned
// on shutdown).
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE diagnosis_run ADD COLUMN failure_reason TEXT;

CREATE TABLE run_event (
  run_id TEXT    NOT NULL REFERENCES diagnosis_run (run_id) ON DELETE CASCADE,
  id     INTEGER NOT NULL,
  name   TEXT    NOT NULL,
  data   TEXT    NOT NULL,
  PRIMARY KEY (run_id, id)
);
)sql";

// Version 3 (reliability): which instance executes a run and until when it
// vouches for it, so a run whose instance died is found and ended
// (INSTANCE_LOST) instead of staying RUNNING forever. The partial index
// keeps that sweep to the few running rows.
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE diagnosis_run ADD COLUMN instance_id TEXT;
ALTER TABLE diagnosis_run ADD COLUMN lease_until TEXT;
CREATE INDEX diagnosis_run_running ON diagnosis_run (instance_id) WHERE status = 'RUNNING';
)sql";

// Version 4 (failures say why, docs/model-endpoints.md): the provider's words
// beside failure_reason, and the run's failed model calls as a JSON array
// of {"component", "reason"}.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE diagnosis_run ADD COLUMN failure_detail TEXT;
ALTER TABLE diagnosis_run ADD COLUMN model_failures TEXT;
)sql";

// Version 5 (the web console's API, docs/console.md): each run's question
// (filled in for older runs from their conversation's user turn), indexes
// for the run list's filters, each in the list's order so a page is read
// along an index, and the model observations of a run's executed tool
// calls, purged after storage.observation_retention_days by `stored_at`
// (the run's end).
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE diagnosis_run ADD COLUMN question TEXT;
UPDATE diagnosis_run SET question = (
  SELECT m.content FROM conversation_message m
  WHERE m.run_id = diagnosis_run.run_id AND m.role = 'user' ORDER BY m.seq LIMIT 1);
CREATE INDEX diagnosis_run_by_status ON diagnosis_run (status, created_at DESC, run_id DESC);
CREATE INDEX diagnosis_run_by_route ON diagnosis_run (route, created_at DESC, run_id DESC);
CREATE INDEX diagnosis_run_by_outcome
  ON diagnosis_run (release_outcome, created_at DESC, run_id DESC);

CREATE TABLE run_observation (
  run_id       TEXT NOT NULL REFERENCES diagnosis_run (run_id) ON DELETE CASCADE,
  tool_call_id TEXT NOT NULL,
  observation  TEXT NOT NULL,
  stored_at    TEXT NOT NULL,
  PRIMARY KEY (run_id, tool_call_id)
);
CREATE INDEX run_observation_by_age ON run_observation (stored_at);
)sql";

constexpr std::array<Migration, 5> kMigrations = {{
    {1, "runs, steps, trace events and conversations", kSchemaV1},
    {2, "run event streams and failure reasons", kSchemaV2},
    {3, "run leases: the instance executing a run", kSchemaV3},
    {4, "failure details and failed model calls", kSchemaV4},
    {5, "run questions, list indexes and model observations", kSchemaV5},
}};

static_assert(kRunStoreApplicationId == 1684627815, "kSchemaV1 writes this id");

// SQLite's side of the runner.
class SqliteSchema final : public SchemaTarget {
 public:
  explicit SqliteSchema(SqliteDb& db) : db_(db) {}

  Result<int> SchemaVersion() override { return store::SchemaVersion(db_); }

  // Ours by its header, or a database with no tables at all.
  Status CheckOwnership() override {
    auto id = db_.Prepare("PRAGMA application_id", "read database header");
    if (!id) return id.error();
    auto id_row = id->Step();
    if (!id_row) return id_row.error();
    std::int64_t application_id = *id_row ? id->Int(0) : 0;
    if (application_id == kRunStoreApplicationId) return OkStatus();
    if (application_id != 0) {
      return Error::FailedPrecondition(
          "run store: the database file belongs to another application (its SQLite "
          "application_id is not diagd's); refusing to use it");
    }
    // schema_migrations alone is a run store that another process is
    // creating right now.
    auto tables = db_.Prepare(
        "SELECT count(*) FROM sqlite_schema "
        "WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'schema_migrations'",
        "read database schema");
    if (!tables) return tables.error();
    auto tables_row = tables->Step();
    if (!tables_row) return tables_row.error();
    if (*tables_row && tables->Int(0) > 0) {
      return Error::FailedPrecondition(
          "run store: the database file already holds tables that are not diagd's; refusing "
          "to use it");
    }
    return OkStatus();
  }

  Status CreateVersionTable() override {
    return db_.Exec(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "  version    INTEGER NOT NULL PRIMARY KEY,"
        "  name       TEXT    NOT NULL,"
        "  applied_at TEXT    NOT NULL)",
        "create schema_migrations");
  }

  // BEGIN IMMEDIATE: the version is re-read under the write lock.
  Status InTransaction(const std::function<Status()>& body) override {
    Transaction tx(db_);
    if (Status begun = tx.Begin(Transaction::Kind::kWrite, "migrate schema"); !begun) return begun;
    if (Status done = body(); !done) return done;
    return tx.Commit();
  }

  Status Exec(const char* sql) override { return db_.Exec(sql, "migrate schema"); }

  Status RecordVersion(const Migration& step, const std::string& applied_at) override {
    auto record =
        db_.Prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
                    "record schema version");
    if (!record) return record.error();
    record->Bind(1, static_cast<std::int64_t>(step.version))
        .Bind(2, std::string_view(step.name))
        .Bind(3, applied_at);
    return record->Run();
  }

 private:
  SqliteDb& db_;
};

}  // namespace

std::span<const Migration> RunStoreMigrations() { return kMigrations; }

Result<int> SchemaVersion(SqliteDb& db) {
  auto exists = db.Prepare(
      "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'",
      "read schema version");
  if (!exists) return exists.error();
  auto exists_row = exists->Step();
  if (!exists_row) return exists_row.error();
  if (!*exists_row || exists->Int(0) == 0) return 0;
  auto max =
      db.Prepare("SELECT coalesce(max(version), 0) FROM schema_migrations", "read schema version");
  if (!max) return max.error();
  auto max_row = max->Step();
  if (!max_row) return max_row.error();
  return *max_row ? static_cast<int>(max->Int(0)) : 0;
}

Status CheckMigratable(SqliteDb& db, std::span<const Migration> steps) {
  SqliteSchema schema(db);
  return CheckMigratable(schema, steps);
}

Status ApplyMigrations(SqliteDb& db, std::span<const Migration> steps, const Clock& clock) {
  SqliteSchema schema(db);
  return ApplyMigrations(schema, steps, clock);
}

}  // namespace diagd::store
