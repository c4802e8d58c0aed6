// ChatApplicationUseCase: one chat, end to end. Route (one ROUTER call, or
// the caller's route), execute (diagnosis, knowledge or system chat),
// persist (the run, its steps and trace, the conversation), return the
// released result. The application layer makes no release decision of its
// own: for a diagnosis it publishes what DiagnosisReleaseUseCase decided.
//
// Thread safety: `Handle` may be called concurrently; each call owns its run.
#pragma once

#include <optional>
#include <stop_token>
#include <string>

#include "app/chat_observer.h"
#include "app/chat_result.h"
#include "app/run_record_writer.h"
#include "app/run_store.h"
#include "config/config.h"
#include "core/clock.h"
#include "harness/run_context.h"
#include "harness/tool_interceptor.h"
#include "model/chat_model.h"
#include "release/subject_names.h"
#include "tools/canonical_store.h"
#include "tools/observation.h"
#include "tools/tool_boundary.h"
#include "tools/tool_catalog.h"

namespace diagd::app {

class RunEventRecorder;

struct ChatRequest {
  std::string message;
  std::optional<std::string> conversation_id;  // a follow-up in an earlier conversation
  std::optional<Route> route;                  // skips the router
  // The run's cancellation (POST /api/v1/runs/{id}/cancel): once requested
  // the run makes no further model or tool call, abandons the one in
  // flight, and releases a fallback from what it has checked, stop_reason
  // CANCELLED. None: the run cannot be cancelled.
  std::stop_token cancel;
};

struct ChatDeps {
  model::ChatModel& model;
  const tools::ToolCatalog& catalog;
  const tools::ToolBoundary& boundary;
  tools::CanonicalInvocationStore& canonical_store;
  RunStore& runs;
  RunRecordWriter& records;  // writes finished runs (over `runs`)
  const Clock& clock;
  config::Language language = config::Language::kZh;
  harness::RunLimits limits;
  tools::ObservationLimits observation_limits;
  // Who executes the runs, stored with each, and how far ahead its lease
  // runs at the start (the instance renews it while the run goes on).
  std::string instance_id;
  std::chrono::seconds lease{30};
  // The configured datasources and topic aliases a question's subjects are
  // found by (docs/specs/release.md); the log topics are the catalog's of the
  // moment, added per run.
  release::SubjectVocabulary subjects;
};

class ChatApplicationUseCase {
 public:
  explicit ChatApplicationUseCase(ChatDeps deps) : deps_(std::move(deps)) {}

  // Every outcome of a run, a FAILED fallback included, is a result. An
  // error when the run store refused the run (nothing was executed), or
  // refused its finished record after the writer's retries: then the
  // result is not shown (the watcher gets `error` RUN_NOT_STORED and
  // `done`) until the store has it.
  Result<ChatResult> Handle(const ChatRequest& request, ChatObserver* observer = nullptr) const;

 private:
  RunRecord NewRecord(const ChatRequest& request, const ChatResult& result) const;
  // The asked route, or the router's; records RUN_STARTED, then the
  // router's model call.
  Route ChooseRoute(const ChatRequest& request, harness::RunContext& run) const;
  // Stores the finished run, then shows its result: the end of every route.
  Result<ChatResult> Finish(const ChatRequest& request, harness::RunContext& run,
                            RunRecord record, ChatResult result, RunEventRecorder& events) const;

  ChatDeps deps_;
};

// RunLimits from the [harness] configuration.
harness::RunLimits RunLimitsFrom(const config::HarnessConfig& harness);

}  // namespace diagd::app
