// How one run maps onto its rows: diagnosis_run, agent_step (one row per
// step, `seq` its position) and diagnosis_trace_event (docs/run-store.md).
// The store's internal helpers; callers hold the store's lock and an open
// transaction.
//
// Thread safety: none beyond the caller's lock.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/run_store.h"
#include "core/result.h"
#include "store/sqlite_db.h"

namespace diagd::store {

// The JSON columns of a run's steps and trace, built before the lock is
// taken (pure work). INVALID_ARGUMENT as EncodeTraceFields.
struct EncodedChildren {
  std::vector<std::string> step_ids;
  std::vector<std::string> event_fields;
  // When the observations are stored, by the store's own clock: what the
  // retention counts from (a run stored late, from the backlog, keeps its
  // observations as long as any other).
  std::string observations_stored_at;
};
Result<EncodedChildren> EncodeChildren(const app::RunRecord& run);

// What every store refuses before writing a run: an empty id, a status
// other than RUNNING, SUCCEEDED or FAILED, event ids that do not count 1,
// 2, 3..., a trace whose seq does not increase. INVALID_ARGUMENT.
Status ValidateRun(const app::RunRecord& run);
// The events of one AppendEvents: ids from 1 up, each one more than the last.
Status ValidateEventSlice(const std::vector<app::RunEvent>& events);
// The turns of one AppendTurns: a conversation id, and roles user or
// assistant.
Status ValidateTurns(const std::string& conversation_id,
                     std::span<const app::ConversationTurn> turns);

// A page of the run list from the `limit` + 1 rows its query read (one
// more than the page: is there a next one?), with the cursor after it.
app::RunPage PageOfRuns(std::vector<app::RunSummary> runs, int limit);

// A page of a conversation from the rows its query read: the first
// `limit` + 1 runs after the cursor (`candidates` of them), cut where their
// questions pass the byte budget (the first always in); more follow when
// the page is cut, or when it read more than `limit`.
app::RunPage PageOfConversation(std::vector<app::RunSummary> fitting, std::int64_t candidates,
                                int limit);
// The statement behind it, for SQLite or PostgreSQL (their placeholders
// and byte length differ): parameters the conversation id, `limit` + 1,
// the byte budget and, `after` a cursor, its time and run id; it reads the
// summary columns, then the count of candidates.
std::string ConversationPageSql(bool postgres, bool after);

// Inserts the run's row (or, with `replace`, inserts or replaces it), then
// replaces its steps and trace. FAILED_PRECONDITION when inserting a run
// that exists.
Status WriteRunRows(SqliteDb& db, const app::RunRecord& run, const EncodedChildren& encoded,
                    bool replace);

// Inserts `events` (the caller cleared or never had any).
Status WriteEvents(SqliteDb& db, const std::string& run_id,
                   const std::vector<app::RunEvent>& events);
// Deletes the run's events and inserts `events` in their place.
Status ReplaceEvents(SqliteDb& db, const std::string& run_id,
                     const std::vector<app::RunEvent>& events);
// The stream of a run ended as lost: the events stored while it ran
// (`stored`, in order; `run` when there are none), then `error`
// (INSTANCE_LOST) and `done` numbered on, so that a client that saw some of
// them resumes with its Last-Event-ID and sees the end.
std::vector<app::RunEvent> LostRunEvents(const std::string& run_id,
                                         const std::string& conversation_id,
                                         std::vector<app::RunEvent> stored);
// Whether a run whose stored status is `status` (empty: no such run) may
// still be changed by `what` ("abandon run", "append run events"): OK only
// while it is RUNNING; NOT_FOUND, else FAILED_PRECONDITION. Both stores ask
// it inside the write's transaction.
Status CheckStillRunning(const std::optional<std::string>& status, std::string_view what);
// The run's events with an id above `after_id`, in order.
Result<std::vector<app::RunEvent>> ReadEvents(SqliteDb& db, const std::string& run_id,
                                              std::int64_t after_id);

// The run with its steps and trace (not its events: see ReadEvents); empty
// when there is no such run.
Result<std::optional<app::RunRecord>> ReadRunRows(SqliteDb& db, const std::string& run_id);

// A time column; INTERNAL when it is not RFC 3339 (a damaged row).
Result<WallTime> ReadTime(const Statement& row, int column);

}  // namespace diagd::store
