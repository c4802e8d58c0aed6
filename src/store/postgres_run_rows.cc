#include "store/postgres_run_rows.h"

#include <algorithm>
#include <functional>
#include <string_view>

#include "store/run_codec.h"
#include "store/run_row_values.h"

namespace diagd::store {
namespace {

constexpr std::size_t kRowsPerInsert = 1000;  // keeps a statement far below 65535 parameters

class PgBinder final : public RowBinder {
 public:
  explicit PgBinder(PgParams& params) : params_(params) {}
  void Text(const std::string& held) override { params_.Text(held); }
  void Copy(std::string_view text) override { params_.Text(text); }
  void Int(std::int64_t value) override { params_.Int(value); }
  void Bytes(const std::string& held) override { params_.Bytes(held); }
  void Null() override { params_.Null(); }

 private:
  PgParams& params_;
};

// Many rows per statement: each statement is a round trip to the server.
class PgRowWriter final : public RunRowWriter {
 public:
  explicit PgRowWriter(PgConn& conn) : conn_(conn) {}

  Status WriteRun(const app::RunRecord& run, bool replace) override {
    PgParams params;
    PgBinder binder(params);
    BindRun(run, binder);
    std::string sql =
        InsertSql(kRunRow, '$', 1, replace ? kReplaceRun : " ON CONFLICT (run_id) DO NOTHING");
    auto written = conn_.Query(sql.c_str(), params, kRunRow.what);
    if (!written) return written.error();
    if (written->Affected() == 0) {
      if (!replace) {
        return Error::FailedPrecondition("run store: create run: the run exists already");
      }
      return Error::FailedPrecondition(
          "run store: finish run: the server already ended this run (lost with its instance, or "
          "abandoned at shutdown)");
    }
    return OkStatus();
  }

  Status ClearChildren(const std::string& run_id) override {
    for (const char* sql : {"DELETE FROM agent_step WHERE run_id = $1",
                            "DELETE FROM diagnosis_trace_event WHERE run_id = $1",
                            "DELETE FROM run_event WHERE run_id = $1",
                            "DELETE FROM run_observation WHERE run_id = $1"}) {
      auto cleared = conn_.Query(sql, PgParams().Text(run_id), "replace run steps and trace");
      if (!cleared) return cleared.error();
    }
    return OkStatus();
  }

  Status Insert(const RowTable& table, std::size_t count, const BindRow& row) override {
    return Insert(table, count, row, table.on_conflict);
  }

  // A statement per kRowsPerInsert rows.
  Status Insert(const RowTable& table, std::size_t count, const BindRow& row,
                std::string_view suffix) {
    for (std::size_t first = 0; first < count; first += kRowsPerInsert) {
      std::size_t rows = std::min(kRowsPerInsert, count - first);
      PgParams params;
      PgBinder binder(params);
      for (std::size_t r = 0; r < rows; ++r) row(first + r, binder);
      std::string sql = InsertSql(table, '$', rows, suffix);
      auto inserted = conn_.Query(sql.c_str(), params, table.what);
      if (!inserted) return inserted.error();
    }
    return OkStatus();
  }

 private:
  PgConn& conn_;
};

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
  PgRowWriter writer(conn);
  return WriteRunRows(writer, run, encoded, replace);
}

Status InsertPgEvents(PgConn& conn, const std::string& run_id,
                      const std::vector<app::RunEvent>& events, bool keep_stored) {
  PgRowWriter writer(conn);
  return writer.Insert(
      kEventRows, events.size(),
      [&](std::size_t i, RowBinder& row) { BindEvent(run_id, events[i], row); },
      keep_stored ? " ON CONFLICT DO NOTHING" : kEventRows.on_conflict);
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
