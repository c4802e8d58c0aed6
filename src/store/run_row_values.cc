#include "store/run_row_values.h"

#include "store/run_codec.h"
#include "store/run_rows.h"

namespace diagd::store {

const char* const kReplaceRun =
    " ON CONFLICT (run_id) DO UPDATE SET conversation_id = excluded.conversation_id, "
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

std::string InsertSql(const RowTable& table, char placeholder, std::size_t rows,
                      std::string_view suffix) {
  std::string sql = "INSERT INTO " + std::string(table.table_and_columns) + " VALUES ";
  const auto columns = static_cast<std::size_t>(table.columns);
  for (std::size_t r = 0; r < rows; ++r) {
    sql += r == 0 ? "(" : ", (";
    for (std::size_t c = 0; c < columns; ++c) {
      if (c > 0) sql += ", ";
      sql += placeholder;
      sql += std::to_string(r * columns + c + 1);
    }
    sql += ")";
  }
  sql += suffix;
  return sql;
}

void BindRun(const app::RunRecord& run, RowBinder& row) {
  row.Text(run.run_id);
  row.Text(run.conversation_id);
  row.Text(run.route);
  row.Text(run.status);
  row.Text(run.internal_status);
  row.OptionalText(run.release_outcome);
  row.OptionalText(run.fallback_code);
  row.OptionalText(run.stop_reason);
  row.Int(run.total_token_count);
  row.Copy(FormatRfc3339Millis(run.created_at));
  run.finished_at ? row.Copy(FormatRfc3339Millis(*run.finished_at)) : row.Null();
  run.result_json.empty() ? row.Null() : row.Bytes(run.result_json);
  row.OptionalText(run.failure_reason);
  run.instance_id.empty() ? row.Null() : row.Text(run.instance_id);
  run.lease_until ? row.Copy(FormatRfc3339Millis(*run.lease_until)) : row.Null();
  row.OptionalText(run.failure_detail);
  row.OptionalCopy(EncodeModelFailures(run.model_failures));
  row.Text(run.question);
}

void BindEvent(const std::string& run_id, const app::RunEvent& event, RowBinder& row) {
  row.Text(run_id);
  row.Int(event.id);
  row.Text(event.name);
  row.Text(event.data);
}

Status WriteRunRows(RunRowWriter& writer, const app::RunRecord& run, const EncodedChildren& encoded,
                    bool replace) {
  if (Status written = writer.WriteRun(run, replace); !written) return written;
  if (Status cleared = writer.ClearChildren(run.run_id); !cleared) return cleared;
  Status steps = writer.Insert(kStepRows, run.steps.size(), [&](std::size_t i, RowBinder& row) {
    const app::StoredStep& step = run.steps[i];
    row.Text(run.run_id);
    row.Int(static_cast<std::int64_t>(i) + 1);
    row.Int(step.round);
    step.token_count ? row.Int(*step.token_count) : row.Null();
    row.Text(encoded.step_ids[i]);
  });
  if (!steps) return steps;
  Status trace = writer.Insert(kTraceRows, run.trace.size(), [&](std::size_t i, RowBinder& row) {
    const harness::TraceEvent& event = run.trace[i];
    row.Text(run.run_id);
    row.Int(event.seq);
    row.Copy(harness::TraceEventTypeString(event.type));
    row.Copy(FormatRfc3339Millis(event.time));
    row.Text(encoded.event_fields[i]);
  });
  if (!trace) return trace;
  Status events = writer.Insert(kEventRows, run.events.size(), [&](std::size_t i, RowBinder& row) {
    BindEvent(run.run_id, run.events[i], row);
  });
  if (!events) return events;
  return writer.Insert(kObservationRows, run.observations.size(),
                       [&](std::size_t i, RowBinder& row) {
                         const app::StoredObservation& observation = run.observations[i];
                         row.Text(run.run_id);
                         row.Text(observation.tool_call_id);
                         row.Text(observation.observation_json);
                         row.Text(encoded.observations_stored_at);
                       });
}

}  // namespace diagd::store
