#include "store/postgres_migrations.h"

#include <array>
#include <string>

namespace diagd::store {
namespace {

// Version 1: the schema of the SQLite store at its version 5, in
// PostgreSQL's types. Times are RFC 3339 UTC text with milliseconds, as
// there, so text order is time order and both stores page alike; keys and
// times compare byte by byte (COLLATE "C"), whatever the database's locale.
// result_json and a turn's content are bytea: the store keeps their bytes
// whether or not they are UTF-8, as SQLite does. Every list filter has an
// index in the list's order, so a page is read along it.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE conversation (
  conversation_id text COLLATE "C" NOT NULL PRIMARY KEY,
  created_at      text COLLATE "C" NOT NULL
);

CREATE TABLE conversation_message (
  conversation_id text COLLATE "C" NOT NULL
                  REFERENCES conversation (conversation_id) ON DELETE CASCADE,
  seq             bigint NOT NULL,
  role            text   NOT NULL,
  content         bytea  NOT NULL,
  run_id          text   NOT NULL,
  created_at      text COLLATE "C" NOT NULL,
  PRIMARY KEY (conversation_id, seq)
);

CREATE TABLE diagnosis_run (
  run_id            text COLLATE "C" NOT NULL PRIMARY KEY,
  conversation_id   text COLLATE "C" NOT NULL,
  route             text COLLATE "C" NOT NULL,
  status            text COLLATE "C" NOT NULL,
  internal_status   text   NOT NULL,
  release_outcome   text COLLATE "C",
  fallback_code     text,
  stop_reason       text,
  total_token_count bigint NOT NULL DEFAULT 0,
  created_at        text COLLATE "C" NOT NULL,
  finished_at       text COLLATE "C",
  result_json       bytea,
  failure_reason    text,
  instance_id       text COLLATE "C",
  lease_until       text COLLATE "C",
  failure_detail    text,
  model_failures    text,
  question          text NOT NULL DEFAULT ''
);
CREATE INDEX diagnosis_run_newest ON diagnosis_run (created_at DESC, run_id DESC);
CREATE INDEX diagnosis_run_by_conversation ON diagnosis_run (conversation_id, created_at);
CREATE INDEX diagnosis_run_running ON diagnosis_run (instance_id) WHERE status = 'RUNNING';
CREATE INDEX diagnosis_run_by_status ON diagnosis_run (status, created_at DESC, run_id DESC);
CREATE INDEX diagnosis_run_by_route ON diagnosis_run (route, created_at DESC, run_id DESC);
CREATE INDEX diagnosis_run_by_outcome
  ON diagnosis_run (release_outcome, created_at DESC, run_id DESC);

CREATE TABLE agent_step (
  run_id        text COLLATE "C" NOT NULL REFERENCES diagnosis_run (run_id) ON DELETE CASCADE,
  seq           bigint NOT NULL,
  round         bigint NOT NULL,
  token_count   bigint,
  tool_call_ids text   NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE diagnosis_trace_event (
  run_id text COLLATE "C" NOT NULL REFERENCES diagnosis_run (run_id) ON DELETE CASCADE,
  seq    bigint NOT NULL,
  type   text   NOT NULL,
  time   text   NOT NULL,
  fields text   NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE run_event (
  run_id text COLLATE "C" NOT NULL REFERENCES diagnosis_run (run_id) ON DELETE CASCADE,
  id     bigint NOT NULL,
  name   text   NOT NULL,
  data   text   NOT NULL,
  PRIMARY KEY (run_id, id)
);

CREATE TABLE run_observation (
  run_id       text COLLATE "C" NOT NULL REFERENCES diagnosis_run (run_id) ON DELETE CASCADE,
  tool_call_id text COLLATE "C" NOT NULL,
  observation  text NOT NULL,
  stored_at    text COLLATE "C" NOT NULL,
  PRIMARY KEY (run_id, tool_call_id)
);
CREATE INDEX run_observation_by_age ON run_observation (stored_at);
)sql";

constexpr std::array<Migration, 1> kMigrations = {{
    {1, "runs, steps, trace, events, observations and conversations", kSchemaV1},
}};

// PostgreSQL's side of the runner, on a connection that holds the
// advisory lock: no other instance migrates meanwhile.
class PostgresSchema final : public SchemaTarget {
 public:
  explicit PostgresSchema(PgConn& conn) : conn_(conn) {}

  Result<int> SchemaVersion() override { return PostgresSchemaVersion(conn_); }

  // A schema with tables but no schema_migrations is someone else's.
  Status CheckOwnership() override {
    auto tables = conn_.Query(
        "SELECT count(*) FROM pg_catalog.pg_tables "
        "WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'",
        "read database schema");
    if (!tables) return tables.error();
    if (tables->Int(0, 0) > 0) {
      return Error::FailedPrecondition(
          "run store: the database schema already holds tables that are not diagd's; refusing "
          "to use it");
    }
    return OkStatus();
  }

  Status CreateVersionTable() override {
    return conn_.Exec(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "  version    integer NOT NULL PRIMARY KEY,"
        "  name       text    NOT NULL,"
        "  applied_at text    NOT NULL)",
        "create schema_migrations");
  }

  Status InTransaction(const std::function<Status()>& body) override {
    PgTransaction tx(conn_);
    if (Status begun = tx.Begin("BEGIN", "migrate schema"); !begun) return begun;
    if (Status done = body(); !done) return done;
    return tx.Commit();
  }

  Status Exec(const char* sql) override { return conn_.Exec(sql, "migrate schema"); }

  Status RecordVersion(const Migration& step, const std::string& applied_at) override {
    auto record = conn_.Query(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
        PgParams().Int(step.version).Text(step.name).Text(applied_at), "record schema version");
    if (!record) return record.error();
    return OkStatus();
  }

 private:
  PgConn& conn_;
};

}  // namespace

std::span<const Migration> PostgresRunStoreMigrations() { return kMigrations; }

Result<int> PostgresSchemaVersion(PgConn& conn) {
  auto exists = conn.Query("SELECT to_regclass('schema_migrations') IS NOT NULL",
                           "read schema version");
  if (!exists) return exists.error();
  if (exists->Text(0, 0) != "t") return 0;
  auto max = conn.Query("SELECT coalesce(max(version), 0) FROM schema_migrations",
                        "read schema version");
  if (!max) return max.error();
  return static_cast<int>(max->Int(0, 0));
}

Status ApplyPostgresMigrations(PgConn& conn, std::span<const Migration> steps,
                               const Clock& clock) {
  // Session-level: held across the steps' transactions, released below or
  // by the server when this connection dies.
  auto locked = conn.Query("SELECT pg_advisory_lock($1)",
                           PgParams().Int(kPostgresMigrationLock), "lock schema migrations");
  if (!locked) return locked.error();
  PostgresSchema schema(conn);
  Status migrated = ApplyMigrations(schema, steps, clock);
  auto unlocked = conn.Query("SELECT pg_advisory_unlock($1)",
                             PgParams().Int(kPostgresMigrationLock), "unlock schema migrations");
  if (migrated && !unlocked) return unlocked.error();
  return migrated;
}

}  // namespace diagd::store
