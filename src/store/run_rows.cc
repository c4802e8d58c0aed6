#include "store/run_rows.h"

#include <sqlite3.h>

#include <map>
#include <mutex>
#include <utility>

#include "core/json_writer.h"
#include "store/run_codec.h"
#include "store/run_row_values.h"

namespace diagd::store {
namespace {

// A statement's text for SQLite: built once per table for the life of the
// process, as the statement cache keys on its address.
const char* SqliteInsert(const RowTable& table, bool replace) {
  static std::mutex mu;
  static std::map<std::pair<const RowTable*, bool>, std::string> built;
  std::lock_guard<std::mutex> lock(mu);
  auto [it, added] = built.try_emplace({&table, replace});
  if (added) it->second = InsertSql(table, '?', 1, replace ? kReplaceRun : table.on_conflict);
  return it->second.c_str();
}

class SqliteBinder final : public RowBinder {
 public:
  explicit SqliteBinder(Statement& stmt) : stmt_(stmt) {}
  void Text(const std::string& held) override { stmt_.Bind(next_++, held); }
  void Copy(std::string_view text) override { stmt_.Bind(next_++, text); }
  void Int(std::int64_t value) override { stmt_.Bind(next_++, value); }
  void Bytes(const std::string& held) override { stmt_.Bind(next_++, held); }
  void Null() override { stmt_.BindNull(next_++); }

 private:
  Statement& stmt_;
  int next_ = 1;
};

// One statement per row: SQLite has no round trip to save.
class SqliteRowWriter final : public RunRowWriter {
 public:
  explicit SqliteRowWriter(SqliteDb& db) : db_(db) {}

  Status WriteRun(const app::RunRecord& run, bool replace) override {
    auto stmt = db_.Prepare(SqliteInsert(kRunRow, replace), kRunRow.what);
    if (!stmt) return stmt.error();
    SqliteBinder binder(*stmt);
    BindRun(run, binder);
    Status written = stmt->Run();
    if (!written && !replace && db_.LastErrorCode() == SQLITE_CONSTRAINT) {
      return Error::FailedPrecondition("run store: create run: the run exists already");
    }
    if (written && replace && db_.Changes() == 0) {
      return Error::FailedPrecondition(
          "run store: finish run: the server already ended this run (lost with its instance, or "
          "abandoned at shutdown)");
    }
    return written;
  }

  Status ClearChildren(const std::string& run_id) override {
    for (const char* sql : {"DELETE FROM agent_step WHERE run_id = ?1",
                            "DELETE FROM diagnosis_trace_event WHERE run_id = ?1",
                            "DELETE FROM run_event WHERE run_id = ?1",
                            "DELETE FROM run_observation WHERE run_id = ?1"}) {
      auto clear = db_.Prepare(sql, "replace run steps and trace");
      if (!clear) return clear.error();
      if (Status cleared = clear->Bind(1, run_id).Run(); !cleared) return cleared;
    }
    return OkStatus();
  }

  Status Insert(const RowTable& table, std::size_t count, const BindRow& row) override {
    if (count == 0) return OkStatus();
    const char* sql = SqliteInsert(table, false);
    for (std::size_t i = 0; i < count; ++i) {
      auto insert = db_.Prepare(sql, table.what);
      if (!insert) return insert.error();
      SqliteBinder binder(*insert);
      row(i, binder);
      if (Status written = insert->Run(); !written) return written;
    }
    return OkStatus();
  }

 private:
  SqliteDb& db_;
};

}  // namespace

Status WriteEvents(SqliteDb& db, const std::string& run_id,
                   const std::vector<app::RunEvent>& events) {
  SqliteRowWriter writer(db);
  return writer.Insert(kEventRows, events.size(),
                       [&](std::size_t i, RowBinder& row) { BindEvent(run_id, events[i], row); });
}

Status ReplaceEvents(SqliteDb& db, const std::string& run_id,
                     const std::vector<app::RunEvent>& events) {
  auto clear = db.Prepare("DELETE FROM run_event WHERE run_id = ?1", "replace run events");
  if (!clear) return clear.error();
  if (Status cleared = clear->Bind(1, run_id).Run(); !cleared) return cleared;
  return WriteEvents(db, run_id, events);
}

std::vector<app::RunEvent> LostRunEvents(const std::string& run_id,
                                         const std::string& conversation_id,
                                         std::vector<app::RunEvent> stored) {
  std::vector<app::RunEvent> events = std::move(stored);
  if (events.empty()) {
    json::JsonWriter run(128);
    run.BeginObject().Key("run_id").String(run_id).Key("conversation_id").String(conversation_id);
    events.push_back({1, "run", run.EndObject().Take()});
  }
  json::JsonWriter error(160);
  error.BeginObject()
      .Key("code")
      .String(app::kInstanceLost)
      .Key("message")
      .String("the diagd instance running this question stopped before it finished; ask again")
      .EndObject();
  std::int64_t last = events.back().id;
  events.push_back({last + 1, "error", error.Take()});
  events.push_back({last + 2, "done", "{}"});
  return events;
}

Status CheckStillRunning(const std::optional<std::string>& status, std::string_view what) {
  if (!status) return Error::NotFound("run store: " + std::string(what) + ": no such run");
  if (*status != "RUNNING") {
    return Error::FailedPrecondition("run store: " + std::string(what) +
                                     ": the run is no longer running");
  }
  return OkStatus();
}

Result<std::vector<app::RunEvent>> ReadEvents(SqliteDb& db, const std::string& run_id,
                                              std::int64_t after_id) {
  auto stmt = db.Prepare(
      "SELECT id, name, data FROM run_event WHERE run_id = ?1 AND id > ?2 ORDER BY id",
      "read run events");
  if (!stmt) return stmt.error();
  stmt->Bind(1, run_id).Bind(2, after_id);
  std::vector<app::RunEvent> events;
  while (true) {
    Result<bool> row = stmt->Step();
    if (!row) return row.error();
    if (!*row) return events;
    events.push_back({stmt->Int(0), stmt->Text(1), stmt->Text(2)});
  }
}

namespace {

Status ReadSteps(SqliteDb& db, app::RunRecord& run) {
  auto stmt = db.Prepare(
      "SELECT round, token_count, tool_call_ids FROM agent_step WHERE run_id = ?1 ORDER BY seq",
      "read run steps");
  if (!stmt) return stmt.error();
  stmt->Bind(1, run.run_id);
  while (true) {
    Result<bool> row = stmt->Step();
    if (!row) return row.error();
    if (!*row) return OkStatus();
    app::StoredStep step;
    step.round = static_cast<int>(stmt->Int(0));
    if (!stmt->IsNull(1)) step.token_count = stmt->Int(1);
    Result<std::vector<std::string>> ids = DecodeToolCallIds(stmt->Text(2));
    if (!ids) return ids.error();
    step.tool_call_ids = std::move(*ids);
    run.steps.push_back(std::move(step));
  }
}

Status ReadTrace(SqliteDb& db, app::RunRecord& run) {
  auto stmt = db.Prepare(
      "SELECT seq, type, time, fields FROM diagnosis_trace_event WHERE run_id = ?1 ORDER BY seq",
      "read run trace");
  if (!stmt) return stmt.error();
  stmt->Bind(1, run.run_id);
  while (true) {
    Result<bool> row = stmt->Step();
    if (!row) return row.error();
    if (!*row) return OkStatus();
    harness::TraceEvent event;
    event.seq = stmt->Int(0);
    std::optional<harness::TraceEventType> type = harness::ParseTraceEventType(stmt->Text(1));
    if (!type) return Error::Internal("run store: a stored trace event has an unknown type");
    event.type = *type;
    Result<WallTime> time = ReadTime(*stmt, 2);
    if (!time) return time.error();
    event.time = *time;
    Result<std::vector<harness::TraceField>> fields = DecodeTraceFields(stmt->Text(3));
    if (!fields) return fields.error();
    event.fields = std::move(*fields);
    run.trace.push_back(std::move(event));
  }
}

}  // namespace

Status ValidateTurns(const std::string& conversation_id,
                     std::span<const app::ConversationTurn> turns) {
  if (conversation_id.empty()) {
    return Error::InvalidArgument("run store: the conversation id is empty");
  }
  for (const app::ConversationTurn& turn : turns) {
    if (turn.role != "user" && turn.role != "assistant") {
      return Error::InvalidArgument("run store: a turn's role must be user or assistant");
    }
  }
  return OkStatus();
}

Status ValidateEventSlice(const std::vector<app::RunEvent>& events) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    bool counts_on = i == 0 ? events[i].id >= 1 : events[i].id == events[i - 1].id + 1;
    if (!counts_on) {
      return Error::InvalidArgument("run store: appended run event ids must count on by one");
    }
  }
  return OkStatus();
}

Status ValidateRun(const app::RunRecord& run) {
  if (run.run_id.empty()) return Error::InvalidArgument("run store: the run id is empty");
  if (run.status != "RUNNING" && run.status != "SUCCEEDED" && run.status != "FAILED") {
    return Error::InvalidArgument("run store: status must be RUNNING, SUCCEEDED or FAILED");
  }
  for (std::size_t i = 0; i < run.events.size(); ++i) {
    if (run.events[i].id != static_cast<std::int64_t>(i) + 1) {
      return Error::InvalidArgument("run store: run event ids must count 1, 2, 3...");
    }
  }
  for (std::size_t i = 1; i < run.trace.size(); ++i) {
    if (run.trace[i].seq <= run.trace[i - 1].seq) {
      return Error::InvalidArgument("run store: trace event seq must increase");
    }
  }
  return OkStatus();
}

app::RunPage PageOfRuns(std::vector<app::RunSummary> runs, int limit) {
  app::RunPage page;
  page.runs = std::move(runs);
  if (page.runs.size() > static_cast<std::size_t>(limit)) {
    page.runs.resize(static_cast<std::size_t>(limit));
    page.next = app::RunCursor{page.runs.back().created_at, page.runs.back().run_id};
  }
  return page;
}

app::RunPage PageOfConversation(std::vector<app::RunSummary> fitting, std::int64_t candidates,
                                int limit) {
  bool cut = static_cast<std::int64_t>(fitting.size()) < candidates;
  app::RunPage page = PageOfRuns(std::move(fitting), limit);
  if (cut && !page.runs.empty() && !page.next) {
    page.next = app::RunCursor{page.runs.back().created_at, page.runs.back().run_id};
  }
  return page;
}

std::string ConversationPageSql(bool postgres, bool after) {
  // The candidates (the next limit + 1 runs) are found with their question
  // lengths only; the questions themselves are read for the runs that fit,
  // so a page of long follow-ups never holds more than its budget (and its
  // first question) in memory. The cursor's test is left out of the first
  // page: PostgreSQL cannot type a parameter that is only tested for null.
  auto p = [postgres](int n) { return (postgres ? "$" : "?") + std::to_string(n); };
  std::string length = postgres ? "coalesce(octet_length(question), 0)"
                                : "coalesce(length(CAST(question AS BLOB)), 0)";
  std::string cursor = after ? " AND (created_at, run_id) > (" + p(4) + ", " + p(5) + ")" : "";
  return "WITH candidate AS ("
         "SELECT run_id, created_at, " + length + " AS bytes FROM diagnosis_run "
         "WHERE conversation_id = " + p(1) + cursor +
         " ORDER BY created_at, run_id LIMIT " + p(2) + "), "
         "page AS (SELECT run_id, "
         "sum(bytes) OVER (ORDER BY created_at, run_id) AS through, "
         "row_number() OVER (ORDER BY created_at, run_id) AS position, "
         "count(*) OVER () AS candidates FROM candidate) "
         "SELECT run_id, conversation_id, route, status, release_outcome, fallback_code, "
         "created_at, finished_at, coalesce(question, ''), candidates "
         "FROM diagnosis_run JOIN page USING (run_id) "
         "WHERE position = 1 OR through <= " + p(3) + " ORDER BY created_at, run_id";
}

Result<EncodedChildren> EncodeChildren(const app::RunRecord& run) {
  EncodedChildren encoded;
  encoded.step_ids.reserve(run.steps.size());
  for (const auto& step : run.steps) {
    encoded.step_ids.push_back(EncodeToolCallIds(step.tool_call_ids));
  }
  encoded.event_fields.reserve(run.trace.size());
  for (const auto& event : run.trace) {
    Result<std::string> fields = EncodeTraceFields(event.fields);
    if (!fields) return fields.error();
    encoded.event_fields.push_back(std::move(*fields));
  }
  return encoded;
}

Status WriteRunRows(SqliteDb& db, const app::RunRecord& run, const EncodedChildren& encoded,
                    bool replace) {
  SqliteRowWriter writer(db);
  return WriteRunRows(writer, run, encoded, replace);
}

Result<std::optional<app::RunRecord>> ReadRunRows(SqliteDb& db, const std::string& run_id) {
  app::RunRecord run;
  {
    auto stmt = db.Prepare(
        "SELECT run_id, conversation_id, route, status, internal_status, release_outcome, "
        "fallback_code, stop_reason, total_token_count, created_at, finished_at, result_json, "
        "failure_reason, instance_id, lease_until, failure_detail, model_failures, "
        "coalesce(question, '') FROM diagnosis_run WHERE run_id = ?1",
        "read run");
    if (!stmt) return stmt.error();
    stmt->Bind(1, run_id);
    Result<bool> row = stmt->Step();
    if (!row) return row.error();
    if (!*row) return std::optional<app::RunRecord>();
    run.run_id = stmt->Text(0);
    run.conversation_id = stmt->Text(1);
    run.route = stmt->Text(2);
    run.status = stmt->Text(3);
    run.internal_status = stmt->Text(4);
    run.release_outcome = stmt->OptionalText(5);
    run.fallback_code = stmt->OptionalText(6);
    run.stop_reason = stmt->OptionalText(7);
    run.total_token_count = stmt->Int(8);
    Result<WallTime> created_at = ReadTime(*stmt, 9);
    if (!created_at) return created_at.error();
    run.created_at = *created_at;
    if (!stmt->IsNull(10)) {
      Result<WallTime> finished_at = ReadTime(*stmt, 10);
      if (!finished_at) return finished_at.error();
      run.finished_at = *finished_at;
    }
    run.result_json = stmt->Text(11);
    run.failure_reason = stmt->OptionalText(12);
    run.instance_id = stmt->Text(13);
    if (!stmt->IsNull(14)) {
      Result<WallTime> lease_until = ReadTime(*stmt, 14);
      if (!lease_until) return lease_until.error();
      run.lease_until = *lease_until;
    }
    run.failure_detail = stmt->OptionalText(15);
    Result<std::vector<app::ModelFailure>> failures = DecodeModelFailures(stmt->Text(16));
    if (!failures) return failures.error();
    run.model_failures = std::move(*failures);
    run.question = stmt->Text(17);
  }
  if (Status steps = ReadSteps(db, run); !steps) return steps.error();
  if (Status trace = ReadTrace(db, run); !trace) return trace.error();
  return std::optional<app::RunRecord>(std::move(run));
}

Result<WallTime> ReadTime(const Statement& row, int column) {
  std::optional<WallTime> time = ParseRfc3339(row.Text(column));
  if (!time) return Error::Internal("run store: a stored time is not RFC 3339");
  return *time;
}

}  // namespace diagd::store
