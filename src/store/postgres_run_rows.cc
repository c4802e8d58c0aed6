#include "store/postgres_run_rows.h"

#include <algorithm>
#include <functional>
#include <string_view>

#include "store/run_codec.h"

namespace diagd::store {
namespace {

constexpr std::size_t kRowsPerInsert = 1000;  // keeps a statement far below 65535 parameters

std::optional<std::string> NullWhenEmpty(const std::string& s) {
  if (s.empty()) return std::nullopt;
  return s;
}

constexpr const char* kInsertRun =
    "INSERT INTO diagnosis_run (run_id, conversation_id, route, status, internal_status, "
    "release_outcome, fallback_code, stop_reason, total_token_count, created_at, finished_at, "
    "result_json, failure_reason, instance_id, lease_until, failure_detail, model_failures, "
    "question) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) ";
// As on SQLite: a run ended by the server without its result (lost,
// abandoned at shutdown) is never finished after that; a retried write of
// the same finished run replaces it.
constexpr const char* kCreateOnly = "ON CONFLICT (run_id) DO NOTHING";
constexpr const char* kReplace =
    "ON CONFLICT (run_id) DO UPDATE SET conversation_id = excluded.conversation_id, "
    "route = excluded.route, status = excluded.status, "
    "internal_status = excluded.internal_status, release_outcome = excluded.release_outcome, "
    "fallback_code = excluded.fallback_code, stop_reason = excluded.stop_reason, "
    "total_token_count = excluded.total_token_count, created_at = excluded.created_at, "
    "finished_at = excluded.finished_at, result_json = excluded.result_json, "
    "failure_reason = excluded.failure_reason, instance_id = excluded.instance_id, "
    "lease_until = excluded.lease_until, failure_detail = excluded.failure_detail, "
    "model_failures = excluded.model_failures, question = excluded.question "
    "WHERE diagnosis_run.status = 'RUNNING' OR "
    "coalesce(diagnosis_run.failure_reason, '') NOT IN ('INSTANCE_LOST', 'SERVER_SHUTDOWN')";

Status WriteRunRow(PgConn& conn, const app::RunRecord& run, bool replace) {
  std::optional<std::string> finished_at;
  if (run.finished_at) finished_at = FormatRfc3339Millis(*run.finished_at);
  std::optional<std::string> lease_until;
  if (run.lease_until) lease_until = FormatRfc3339Millis(*run.lease_until);
  PgParams params;
  params.Text(run.run_id)
      .Text(run.conversation_id)
      .Text(run.route)
      .Text(run.status)
      .Text(run.internal_status)
      .OptionalText(run.release_outcome)
      .OptionalText(run.fallback_code)
      .OptionalText(run.stop_reason)
      .Int(run.total_token_count)
      .Text(FormatRfc3339Millis(run.created_at))
      .OptionalText(finished_at);
  if (run.result_json.empty()) {
    params.Null();
  } else {
    params.Bytes(run.result_json);
  }
  params.OptionalText(run.failure_reason)
      .OptionalText(NullWhenEmpty(run.instance_id))
      .OptionalText(lease_until)
      .OptionalText(run.failure_detail)
      .OptionalText(EncodeModelFailures(run.model_failures))
      .Text(run.question);
  std::string sql = std::string(kInsertRun) + (replace ? kReplace : kCreateOnly);
  auto written = conn.Query(sql.c_str(), params, "write run");
  if (!written) return written.error();
  if (written->Affected() == 0) {
    if (!replace) return Error::FailedPrecondition("run store: create run: the run exists already");
    return Error::FailedPrecondition(
        "run store: finish run: the server already ended this run (lost with its instance, or "
        "abandoned at shutdown)");
  }
  return OkStatus();
}

// INSERT INTO <table_and_columns> VALUES (...), (...): `columns` values per
// row, taken in order from `values`, a statement per kRowsPerInsert rows.
Status InsertRows(PgConn& conn, std::string_view table_and_columns, int columns,
                  std::size_t rows, const std::function<void(std::size_t, PgParams&)>& row,
                  const char* what, std::string_view suffix = {}) {
  for (std::size_t first = 0; first < rows; first += kRowsPerInsert) {
    std::size_t count = std::min(kRowsPerInsert, rows - first);
    std::string sql = "INSERT INTO " + std::string(table_and_columns) + " VALUES ";
    PgParams params;
    for (std::size_t r = 0; r < count; ++r) {
      sql += r == 0 ? "(" : ", (";
      for (int c = 0; c < columns; ++c) {
        if (c > 0) sql += ", ";
        sql += '$';
        sql += std::to_string(r * static_cast<std::size_t>(columns) + c + 1);
      }
      sql += ")";
      row(first + r, params);
    }
    sql += suffix;
    auto inserted = conn.Query(sql.c_str(), params, what);
    if (!inserted) return inserted.error();
  }
  return OkStatus();
}

Status WriteChildren(PgConn& conn, const app::RunRecord& run, const EncodedChildren& encoded) {
  for (const char* sql : {"DELETE FROM agent_step WHERE run_id = $1",
                          "DELETE FROM diagnosis_trace_event WHERE run_id = $1",
                          "DELETE FROM run_event WHERE run_id = $1",
                          "DELETE FROM run_observation WHERE run_id = $1"}) {
    auto cleared = conn.Query(sql, PgParams().Text(run.run_id), "replace run steps and trace");
    if (!cleared) return cleared.error();
  }
  Status steps = InsertRows(
      conn, "agent_step (run_id, seq, round, token_count, tool_call_ids)", 5, run.steps.size(),
      [&](std::size_t i, PgParams& p) {
        const app::StoredStep& step = run.steps[i];
        p.Text(run.run_id).Int(static_cast<std::int64_t>(i) + 1).Int(step.round);
        if (step.token_count) {
          p.Int(*step.token_count);
        } else {
          p.Null();
        }
        p.Text(encoded.step_ids[i]);
      },
      "write run steps");
  if (!steps) return steps;
  Status trace = InsertRows(
      conn, "diagnosis_trace_event (run_id, seq, type, time, fields)", 5, run.trace.size(),
      [&](std::size_t i, PgParams& p) {
        const harness::TraceEvent& event = run.trace[i];
        p.Text(run.run_id)
            .Int(event.seq)
            .Text(harness::TraceEventTypeString(event.type))
            .Text(FormatRfc3339Millis(event.time))
            .Text(encoded.event_fields[i]);
      },
      "write run trace");
  if (!trace) return trace;
  if (Status events = InsertPgEvents(conn, run.run_id, run.events, false); !events) return events;
  return InsertRows(
      conn, "run_observation (run_id, tool_call_id, observation, stored_at)", 4,
      run.observations.size(),
      [&](std::size_t i, PgParams& p) {
        p.Text(run.run_id)
            .Text(run.observations[i].tool_call_id)
            .Text(run.observations[i].observation_json)
            .Text(encoded.observations_stored_at);
      },
      "write run observations", " ON CONFLICT (run_id, tool_call_id) DO NOTHING");
}

Status ReadSteps(PgConn& conn, app::RunRecord& run) {
  auto rows = conn.Query(
      "SELECT round, token_count, tool_call_ids FROM agent_step WHERE run_id = $1 ORDER BY seq",
      PgParams().Text(run.run_id), "read run steps");
  if (!rows) return rows.error();
  for (int r = 0; r < rows->size(); ++r) {
    app::StoredStep step;
    step.round = static_cast<int>(rows->Int(r, 0));
    if (!rows->IsNull(r, 1)) step.token_count = rows->Int(r, 1);
    Result<std::vector<std::string>> ids = DecodeToolCallIds(rows->Text(r, 2));
    if (!ids) return ids.error();
    step.tool_call_ids = std::move(*ids);
    run.steps.push_back(std::move(step));
  }
  return OkStatus();
}

Status ReadTrace(PgConn& conn, app::RunRecord& run) {
  auto rows = conn.Query(
      "SELECT seq, type, time, fields FROM diagnosis_trace_event WHERE run_id = $1 ORDER BY seq",
      PgParams().Text(run.run_id), "read run trace");
  if (!rows) return rows.error();
  for (int r = 0; r < rows->size(); ++r) {
    harness::TraceEvent event;
    event.seq = rows->Int(r, 0);
    std::optional<harness::TraceEventType> type = harness::ParseTraceEventType(rows->Text(r, 1));
    if (!type) return Error::Internal("run store: a stored trace event has an unknown type");
    event.type = *type;
    Result<WallTime> time = ReadPgTime(*rows, r, 2);
    if (!time) return time.error();
    event.time = *time;
    Result<std::vector<harness::TraceField>> fields = DecodeTraceFields(rows->Text(r, 3));
    if (!fields) return fields.error();
    event.fields = std::move(*fields);
    run.trace.push_back(std::move(event));
  }
  return OkStatus();
}

}  // namespace

Status WritePgRunRows(PgConn& conn, const app::RunRecord& run, const EncodedChildren& encoded,
                      bool replace) {
  if (Status row = WriteRunRow(conn, run, replace); !row) return row;
  return WriteChildren(conn, run, encoded);
}

Status InsertPgEvents(PgConn& conn, const std::string& run_id,
                      const std::vector<app::RunEvent>& events, bool keep_stored) {
  return InsertRows(
      conn, "run_event (run_id, id, name, data)", 4, events.size(),
      [&](std::size_t i, PgParams& p) {
        p.Text(run_id).Int(events[i].id).Text(events[i].name).Text(events[i].data);
      },
      "write run events", keep_stored ? " ON CONFLICT DO NOTHING" : "");
}

Status ReplacePgEvents(PgConn& conn, const std::string& run_id,
                       const std::vector<app::RunEvent>& events) {
  auto cleared =
      conn.Query("DELETE FROM run_event WHERE run_id = $1", PgParams().Text(run_id),
                 "replace run events");
  if (!cleared) return cleared.error();
  return InsertPgEvents(conn, run_id, events, false);
}

Result<std::vector<app::RunEvent>> ReadPgEvents(PgConn& conn, const std::string& run_id,
                                                std::int64_t after_id) {
  auto rows = conn.Query(
      "SELECT id, name, data FROM run_event WHERE run_id = $1 AND id > $2 ORDER BY id",
      PgParams().Text(run_id).Int(after_id), "read run events");
  if (!rows) return rows.error();
  std::vector<app::RunEvent> events;
  events.reserve(static_cast<std::size_t>(rows->size()));
  for (int r = 0; r < rows->size(); ++r) {
    events.push_back({rows->Int(r, 0), rows->Text(r, 1), rows->Text(r, 2)});
  }
  return events;
}

Result<std::optional<app::RunRecord>> ReadPgRunRows(PgConn& conn, const std::string& run_id) {
  auto rows = conn.Query(
      "SELECT run_id, conversation_id, route, status, internal_status, release_outcome, "
      "fallback_code, stop_reason, total_token_count, created_at, finished_at, result_json, "
      "failure_reason, instance_id, lease_until, failure_detail, model_failures, question "
      "FROM diagnosis_run WHERE run_id = $1",
      PgParams().Text(run_id), "read run");
  if (!rows) return rows.error();
  if (rows->size() == 0) return std::optional<app::RunRecord>();
  app::RunRecord run;
  run.run_id = rows->Text(0, 0);
  run.conversation_id = rows->Text(0, 1);
  run.route = rows->Text(0, 2);
  run.status = rows->Text(0, 3);
  run.internal_status = rows->Text(0, 4);
  run.release_outcome = rows->OptionalText(0, 5);
  run.fallback_code = rows->OptionalText(0, 6);
  run.stop_reason = rows->OptionalText(0, 7);
  run.total_token_count = rows->Int(0, 8);
  Result<WallTime> created_at = ReadPgTime(*rows, 0, 9);
  if (!created_at) return created_at.error();
  run.created_at = *created_at;
  if (!rows->IsNull(0, 10)) {
    Result<WallTime> finished_at = ReadPgTime(*rows, 0, 10);
    if (!finished_at) return finished_at.error();
    run.finished_at = *finished_at;
  }
  run.result_json = rows->Bytes(0, 11);
  run.failure_reason = rows->OptionalText(0, 12);
  run.instance_id = rows->Text(0, 13);
  if (!rows->IsNull(0, 14)) {
    Result<WallTime> lease_until = ReadPgTime(*rows, 0, 14);
    if (!lease_until) return lease_until.error();
    run.lease_until = *lease_until;
  }
  run.failure_detail = rows->OptionalText(0, 15);
  Result<std::vector<app::ModelFailure>> failures = DecodeModelFailures(rows->Text(0, 16));
  if (!failures) return failures.error();
  run.model_failures = std::move(*failures);
  run.question = rows->Text(0, 17);
  if (Status steps = ReadSteps(conn, run); !steps) return steps.error();
  if (Status trace = ReadTrace(conn, run); !trace) return trace.error();
  return std::optional<app::RunRecord>(std::move(run));
}

Result<WallTime> ReadPgTime(const PgRows& rows, int row, int column) {
  std::optional<WallTime> time = ParseRfc3339(rows.Text(row, column));
  if (!time) return Error::Internal("run store: a stored time is not RFC 3339");
  return *time;
}

}  // namespace diagd::store
