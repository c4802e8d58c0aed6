// The run store: what an operator reads back about every run
// (docs/run-store.md) and the conversations that give follow-up questions their
// context. The interface lives with the application layer that uses it; the
// SQLite implementation is in store/.
//
// Thread safety: implementations are safe for concurrent use (the server
// writes runs and reads others at the same time).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/run_events.h"
#include "core/clock.h"
#include "core/result.h"
#include "harness/trace.h"

namespace diagd::app {

// The text every run store keeps exactly as given: well-formed UTF-8
// without NUL (PostgreSQL's text can hold neither an invalid byte nor a
// NUL). Text from outside that a store keeps or looks up (a question, an
// id, a search) is held to it where it comes in.
bool IsStorableText(std::string_view text);

// A model call of the run that got no usable answer (after its retries).
struct ModelFailure {
  std::string component;  // "ROUTER", "DIAGNOSIS_AGENT", ...
  std::string reason;     // a failure_reason code: "MODEL_HTTP_ERROR", ...
};

struct StoredStep {
  int round = 0;
  std::optional<std::int64_t> token_count;
  std::vector<std::string> tool_call_ids;
};

// The observation one executed tool call gave the model
// (docs/specs/tool-contracts.md), exactly as the tool message content carried it.
struct StoredObservation {
  std::string tool_call_id;
  std::string observation_json;
};

struct RunRecord {
  std::string run_id;
  std::string conversation_id;
  std::string question;         // the user's message, whole
  std::string route;            // "DIAGNOSIS", "KNOWLEDGE", "SYSTEM_CHAT"
  std::string status;           // "RUNNING", "SUCCEEDED", "FAILED"
  std::string internal_status;  // "RUNNING", "COMPLETED", "STOPPED", "BUDGET_EXHAUSTED", "FAILED"
  std::optional<std::string> release_outcome;  // "DIAGNOSIS", "FALLBACK", "ANSWER"
  std::optional<std::string> fallback_code;
  std::optional<std::string> stop_reason;
  std::int64_t total_token_count = 0;
  WallTime created_at;
  std::optional<WallTime> finished_at;
  std::string result_json;  // the section 5 user result; empty while running
  std::vector<StoredStep> steps;
  std::vector<harness::TraceEvent> trace;
  // Why a FAILED run failed (docs/model-endpoints.md: MODEL_HTTP_ERROR, ...,
  // INSTANCE_LOST, SERVER_SHUTDOWN, INTERNAL), and at most 300 characters
  // saying what happened in the provider's own words where it gave any,
  // with no credential, prompt, model output or tool payload.
  std::optional<std::string> failure_reason;
  std::optional<std::string> failure_detail;
  // Every failed model call, whether or not the run failed with it (a
  // router that failed sends the run to diagnosis): for operators and
  // diagd_model_failures_total.
  std::vector<ModelFailure> model_failures;
  // The instance executing the run (server.instance_id, or the CLI's own
  // name), and until when it vouches for it: a RUNNING run whose lease ran
  // out was lost with its instance (RenewLeases, ReclaimLostRuns).
  std::string instance_id;
  std::optional<WallTime> lease_until;
  // The run's event stream (run_events.h), written with the finished run.
  std::vector<RunEvent> events;
  // The observations of its executed tool calls, written with the finished
  // run and kept for storage.observation_retention_days (GetObservation);
  // GetRun leaves them out.
  std::vector<StoredObservation> observations;
};

// One row of `diagd runs list` / GET /api/v1/runs.
struct RunSummary {
  std::string run_id;
  std::string conversation_id;
  std::string route;
  std::string status;
  std::optional<std::string> release_outcome;
  std::optional<std::string> fallback_code;
  WallTime created_at;
  std::optional<WallTime> finished_at;
  std::string question;  // whole; the API cuts it for lists
};

// Where a page of runs starts: after this run in the list's order (newest
// first, ties by run id, descending).
struct RunCursor {
  WallTime created_at;
  std::string run_id;
};

// A page of GET /api/v1/runs: filters are ANDed; an empty one matches all.
struct RunQuery {
  int limit = 20;                      // 1..200
  std::optional<RunCursor> before;     // only runs after this one in the order
  std::string route;                   // "DIAGNOSIS", "KNOWLEDGE", "SYSTEM_CHAT"
  std::string release_outcome;         // "DIAGNOSIS", "FALLBACK", "ANSWER"
  std::string status;                  // "RUNNING", "SUCCEEDED", "FAILED"
  std::string question_contains;       // literal text, case-insensitive for ASCII
};

struct RunPage {
  std::vector<RunSummary> runs;
  std::optional<RunCursor> next;  // the last run's, when more may follow
};

// A page of one conversation's runs, oldest first (ties by run id,
// ascending). A page holds at most `limit` runs and, past its first run, no
// more question bytes in all than `max_question_bytes`: a conversation of
// long follow-ups is read a bounded piece at a time, whatever the limit.
struct ConversationQuery {
  std::string conversation_id;
  int limit = 20;                  // 1..200
  std::optional<RunCursor> after;  // only runs after this one in the order
  std::int64_t max_question_bytes = 1 << 20;
};

// A run the server gave up on (AbandonRun).
struct AbandonedRun {
  std::string run_id;
  std::string reason;  // its failure_reason
  std::string route;   // as routed; empty when it never was (the stored one stays)
  WallTime finished_at;
  std::vector<RunEvent> events;  // its whole stream, ending in `error` and `done`
};

// Which RUNNING runs have no instance left to finish them (ReclaimLostRuns).
struct LostRunSweep {
  std::string instance_id;  // the sweeping instance
  // This instance's own runs created before it started were left behind by
  // its previous process (killed, crashed): lost whatever their lease says.
  std::optional<WallTime> started_at;
  WallTime now;  // other instances' runs whose lease ended before now are lost
};

struct ConversationTurn {
  std::string role;     // "user" or "assistant"
  std::string content;  // the question, or the user-facing text of the answer
  std::string run_id;
  WallTime created_at;
};

class RunStore {
 public:
  virtual ~RunStore() = default;
  // A run that started: status RUNNING, no result yet.
  virtual Status CreateRun(const RunRecord& run) = 0;
  // Replaces the run's row and writes its steps, trace and events (all of
  // them, in one transaction). FAILED_PRECONDITION when the stored run is
  // no longer RUNNING (another instance took it as lost): a run is never
  // finished twice.
  virtual Status FinishRun(const RunRecord& run) = 0;
  // Ends a run that is still RUNNING as FAILED (internal status FAILED)
  // with the given failure_reason, route and event stream: for runs the
  // server had to give up on. FAILED_PRECONDITION when the run is not
  // RUNNING (it finished meanwhile: its own record stands); NOT_FOUND when
  // there is no such run.
  virtual Status AbandonRun(const AbandonedRun& run) = 0;
  // Stores events of a run while it is RUNNING, for the instances that
  // stream it live (docs/deploy.md); an event already stored is left as
  // it is. FAILED_PRECONDITION when the run is not stored yet or no longer
  // RUNNING (its record, or its lost stream, is the one that stands).
  virtual Status AppendEvents(const std::string& run_id, const std::vector<RunEvent>& events) = 0;
  // Extends to `until` the lease of every RUNNING run of `instance_id`.
  virtual Status RenewLeases(const std::string& instance_id, WallTime until) = 0;
  // Ends as FAILED, failure_reason INSTANCE_LOST, every RUNNING run that
  // `sweep` finds lost, its stream the events stored so far (`run` when
  // there were none) then `error` (INSTANCE_LOST) and `done`, numbered on;
  // returns their ids. Runs of the sweeping instance are lost only
  // by `started_at`, never by their lease (its own runs are in its hands).
  virtual Result<std::vector<std::string>> ReclaimLostRuns(const LostRunSweep& sweep) = 0;
  // NOT found is an empty optional, not an error. The record comes without
  // its events (RunEvents reads them).
  virtual Result<std::optional<RunRecord>> GetRun(const std::string& run_id) = 0;
  // The run's stored events with an id above `after_id`, in order (none for
  // an unknown run; for a running one, those AppendEvents stored).
  virtual Result<std::vector<RunEvent>> RunEvents(const std::string& run_id,
                                                  std::int64_t after_id) = 0;
  // Newest first; 1 <= limit <= 200.
  virtual Result<std::vector<RunSummary>> ListRuns(int limit) = 0;
  // One page of the runs `query` selects, newest first; INVALID_ARGUMENT
  // for a limit outside 1..200.
  virtual Result<RunPage> ListRunPage(const RunQuery& query) = 0;
  // One page of a conversation's runs (none for an unknown one);
  // INVALID_ARGUMENT for a limit outside 1..200.
  virtual Result<RunPage> ConversationPage(const ConversationQuery& query) = 0;
  // The stored observation of one tool call of the run; empty when there
  // is none (unknown, a rejected request, or purged).
  virtual Result<std::optional<std::string>> GetObservation(const std::string& run_id,
                                                            const std::string& tool_call_id) = 0;
  // Deletes the observations of runs that finished before `before`;
  // returns how many.
  virtual Result<std::int64_t> PurgeObservations(WallTime before) = 0;
  // Appends `turns` to the conversation in order, in one write: all of
  // them, or none on an error. A run's question and answer go together.
  virtual Status AppendTurns(const std::string& conversation_id,
                             std::span<const ConversationTurn> turns) = 0;
  Status AppendTurn(const std::string& conversation_id, const ConversationTurn& turn) {
    return AppendTurns(conversation_id, {&turn, 1});
  }
  // The last `max_turns` turns of the conversation, oldest first.
  virtual Result<std::vector<ConversationTurn>> RecentTurns(const std::string& conversation_id,
                                                            int max_turns) = 0;
};

}  // namespace diagd::app
