// A real workspace (config file, Markdown docs, log topics, SQLite data)
// behind the real tool adapters, catalog, boundary, interceptors and
// canonical store, driven by the diagnosis agent with the offline model:
// the product's diagnosis path end to end, minus the server.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/diagnosis_agent.h"
#include "config/config.h"
#include "core/clock.h"
#include "harness/run_context.h"
#include "model/offline/offline_model.h"
#include "tools/canonical_store.h"
#include "tools/documents/local_documents_adapter.h"
#include "tools/logs/local_logs_adapter.h"
#include "tools/mysql/mysql_adapter.h"
#include "tools/tool_boundary.h"
#include "tools/tool_catalog.h"

namespace diagd::model::offline::testing {

// The offline model, recording every answer it gave (for transcripts).
class RecordingOfflineModel final : public ChatModel {
 public:
  Result<ChatResponse, CallError> Complete(const ChatRequest& request) override;
  std::string Label(Component component) const override { return inner_.Label(component); }
  std::vector<ChatRequest> Requests() const;
  std::vector<Message> Answers() const;

 private:
  OfflineModel inner_;
  mutable std::mutex mu_;
  std::vector<ChatRequest> requests_;
  std::vector<Message> answers_;
};

class Workspace {
 public:
  // Opens the workspace of `config_file`; failures are test failures
  // (check ok()).
  explicit Workspace(const std::filesystem::path& config_file);
  ~Workspace();

  bool ok() const { return ok_; }
  const config::Config& config() const { return config_; }

  // One diagnosis run (a fresh run context each time).
  agent::DiagnosisAgentExecution Run(const std::string& question);

  harness::RunContext& run() { return *run_; }
  tools::CanonicalInvocationStore& store() { return store_; }
  RecordingOfflineModel& model() { return model_; }
  const std::vector<std::string>& topics() const { return topics_; }

  // The conversation of the last run as readable text: each tool call with
  // its arguments, each observation (cut), and the final answer.
  std::string Transcript() const;

  // The model observation of a direct search_documents call (no run).
  std::string SearchDocumentsObservation(const std::string& query, const std::string& id);

  // Whether `quote` is an exact substring of the canonical record of `id` of
  // the last run: an evidence item's excerpt or title, an event's message,
  // or a cell's text (a number in its JSON form).
  bool QuoteInCanonicalRecord(const std::string& id, const std::string& quote);

 private:
  bool ok_ = false;
  config::Config config_;
  SystemClock clock_;
  std::filesystem::path cache_dir_;
  tools::MemoryCanonicalStore store_{std::chrono::seconds(3600), clock_};
  std::unique_ptr<tools::documents::LocalDocumentsAdapter> documents_;
  std::unique_ptr<tools::logs::LocalLogsAdapter> logs_;
  std::unique_ptr<tools::mysql::MysqlAdapter> mysql_;
  std::vector<std::string> topics_;
  std::unique_ptr<tools::ToolCatalog> catalog_;
  std::unique_ptr<tools::ToolBoundary> boundary_;
  std::unique_ptr<harness::RunContext> run_;
  RecordingOfflineModel model_;
  int runs_ = 0;
};

}  // namespace diagd::model::offline::testing
