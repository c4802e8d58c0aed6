// The rows one run is written as, in column order, for both stores: one
// description of each table's columns and of the values a run gives them,
// that SQLite binds to ?n and PostgreSQL to $n; and the order a run's rows
// are written in (WriteRunRows over a store's RunRowWriter).
//
// Thread safety: pure functions; the writer is the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "app/run_store.h"
#include "core/result.h"

namespace diagd::store {

struct EncodedChildren;

// Where one row's values go, in column order: a statement's parameters.
class RowBinder {
 public:
  virtual ~RowBinder() = default;
  // Text the record holds, alive until the statement has run (SQLite binds
  // it without a copy).
  virtual void Text(const std::string& held) = 0;
  // Text made for this row (a formatted time, a type name): copied.
  virtual void Copy(std::string_view text) = 0;
  virtual void Int(std::int64_t value) = 0;
  // Bytes that need not be UTF-8, held as Text is: PostgreSQL's bytea;
  // SQLite keeps them as text, byte for byte.
  virtual void Bytes(const std::string& held) = 0;
  virtual void Null() = 0;

  void OptionalText(const std::optional<std::string>& held) { held ? Text(*held) : Null(); }
  void OptionalCopy(const std::optional<std::string>& text) { text ? Copy(*text) : Null(); }
};

// One table's insert: INSERT INTO <table_and_columns> VALUES (...)<on_conflict>.
struct RowTable {
  const char* table_and_columns;
  int columns;
  const char* on_conflict;  // "" or " ON CONFLICT ..."
  const char* what;         // the operation, for errors
};

inline constexpr RowTable kRunRow{
    "diagnosis_run (run_id, conversation_id, route, status, internal_status, release_outcome, "
    "fallback_code, stop_reason, total_token_count, created_at, finished_at, result_json, "
    "failure_reason, instance_id, lease_until, failure_detail, model_failures, question)",
    18, "", "write run"};
inline constexpr RowTable kStepRows{"agent_step (run_id, seq, round, token_count, tool_call_ids)",
                                    5, "", "write run steps"};
inline constexpr RowTable kTraceRows{"diagnosis_trace_event (run_id, seq, type, time, fields)", 5,
                                     "", "write run trace"};
inline constexpr RowTable kEventRows{"run_event (run_id, id, name, data)", 4, "",
                                     "write run events"};
inline constexpr RowTable kObservationRows{
    "run_observation (run_id, tool_call_id, observation, stored_at)", 4,
    " ON CONFLICT (run_id, tool_call_id) DO NOTHING", "write run observations"};

// Appended to the run's insert to replace it, unless the server ended it
// without its result (lost with its instance, abandoned at shutdown): the
// client was told so, and a run is never finished after that. Writing the
// same finished run again (a retried write) replaces it.
extern const char* const kReplaceRun;

// The insert of `rows` rows of `table`, placeholders `?n` (SQLite) or `$n`
// (PostgreSQL) counted across the rows, then `suffix`.
std::string InsertSql(const RowTable& table, char placeholder, std::size_t rows,
                      std::string_view suffix);

// The values of a run's rows, as their tables list the columns.
void BindRun(const app::RunRecord& run, RowBinder& row);
void BindEvent(const std::string& run_id, const app::RunEvent& event, RowBinder& row);

// The rows of one table, bound one at a time.
using BindRow = std::function<void(std::size_t index, RowBinder& row)>;

// One store's statements for WriteRunRows.
class RunRowWriter {
 public:
  virtual ~RunRowWriter() = default;
  // Inserts the run's row (`replace`: with kReplaceRun). FAILED_PRECONDITION
  // when inserting a run that exists, or replacing one the server ended.
  virtual Status WriteRun(const app::RunRecord& run, bool replace) = 0;
  // Deletes the run's steps, trace, events and observations.
  virtual Status ClearChildren(const std::string& run_id) = 0;
  // Inserts `count` rows of `table`.
  virtual Status Insert(const RowTable& table, std::size_t count, const BindRow& row) = 0;
};

// Writes the run's row, then replaces its steps, trace, events and
// observations.
Status WriteRunRows(RunRowWriter& writer, const app::RunRecord& run, const EncodedChildren& encoded,
                    bool replace);

}  // namespace diagd::store
