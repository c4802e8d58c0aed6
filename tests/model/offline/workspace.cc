#include "model/offline/workspace.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <variant>

#include "core/text.h"
#include "tools/observation.h"
#include "tools/tool_settings.h"

namespace diagd::model::offline::testing {

Result<ChatResponse, CallError> RecordingOfflineModel::Complete(const ChatRequest& request) {
  auto response = inner_.Complete(request);
  std::lock_guard<std::mutex> lock(mu_);
  requests_.push_back(request);
  if (response) answers_.push_back(response->message);
  return response;
}

std::vector<ChatRequest> RecordingOfflineModel::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

std::vector<Message> RecordingOfflineModel::Answers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return answers_;
}

Workspace::Workspace(const std::filesystem::path& config_file) {
  auto loaded = config::LoadConfigFile(config_file, {});
  if (!loaded) {
    ADD_FAILURE() << loaded.error().ToString();
    return;
  }
  config_ = std::move(*loaded);
  std::string pattern = (std::filesystem::temp_directory_path() / "diagd-offline-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    ADD_FAILURE() << "no temp folder";
    return;
  }
  cache_dir_ = pattern;
  const auto& tools = config_.tools;
  auto documents = tools::documents::LocalDocumentsAdapter::Open(
      {tools.documents.path, cache_dir_, static_cast<std::size_t>(tools.documents.max_evidence),
       static_cast<std::size_t>(tools.documents.max_excerpt_chars), std::chrono::milliseconds(0)},
      clock_);
  tools::logs::LocalLogsOptions logs_options;
  logs_options.root = tools.logs.path;
  logs_options.now = config_.now;
  logs_options.max_events = static_cast<std::size_t>(tools.logs.max_events);
  logs_options.max_message_chars = static_cast<std::size_t>(tools.logs.max_message_chars);
  auto logs = tools::logs::LocalLogsAdapter::Open(logs_options, clock_);
  auto mysql = tools::mysql::MysqlAdapter::Open(tools.datasources);
  if (!documents || !logs || !mysql) {
    ADD_FAILURE() << "an adapter did not open";
    return;
  }
  documents_ = std::move(*documents);
  logs_ = std::move(*logs);
  mysql_ = std::move(*mysql);
  topics_ = logs_->ListTopics();
  tools::CatalogOptions options = tools::CatalogOptionsFrom(config_);
  options.logs.topics = topics_;  // what the logs backend's refresh would set
  std::sort(options.logs.topics.begin(), options.logs.topics.end());
  catalog_ = std::make_unique<tools::ToolCatalog>(std::move(options));
  boundary_ = std::make_unique<tools::ToolBoundary>(
      std::map<tools::ToolName, tools::ToolAdapter*>{
          {tools::documents::kSearchDocuments, documents_.get()},
          {tools::logs::kQueryLogs, logs_.get()},
          {tools::mysql::kQueryMysql, mysql_.get()}},
      store_, clock_, tools::BoundaryOptionsFrom(config_), [](std::chrono::milliseconds) {});
  ok_ = true;
}

Workspace::~Workspace() {
  std::error_code ignored;
  if (!cache_dir_.empty()) std::filesystem::remove_all(cache_dir_, ignored);
}

agent::DiagnosisAgentExecution Workspace::Run(const std::string& question) {
  const auto& h = config_.harness;
  harness::BudgetLimits budget{h.max_model_calls,
                               h.max_tool_calls,
                               h.max_total_tokens,
                               h.max_tool_bytes,
                               std::chrono::seconds(h.max_run_seconds),
                               2};
  run_ = std::make_unique<harness::RunContext>(
      "run-" + std::to_string(++runs_),
      harness::RunLimits{budget, {h.no_gain_threshold, h.protocol_violation_threshold}}, clock_);
  agent::DiagnosisAgentUseCase agent({model_, *catalog_, *boundary_, store_, config_.language, {}});
  return agent.Execute(*run_, question);
}

std::string Workspace::Transcript() const {
  auto requests = model_.Requests();
  auto answers = model_.Answers();
  if (requests.empty()) return {};
  std::string out;
  // The last request holds the whole conversation; its answer ends it.
  for (const auto& message : requests.back().messages) {
    if (message.role == Role::kSystem) continue;
    if (message.role == Role::kUser) out += "USER: " + message.content + "\n";
    for (const auto& call : message.tool_calls) {
      out += "CALL " + call.id + " " + call.name + " " + call.arguments + "\n";
    }
    if (message.role == Role::kTool) {
      out += "  -> " + text::TruncateCodePoints(message.content, 600) + "\n";
    }
  }
  const Message& last = answers.back();
  for (const auto& call : last.tool_calls)
    out += "CALL " + call.id + " " + call.name + " " + call.arguments + "\n";
  if (!last.content.empty()) out += "ANSWER: " + last.content + "\n";
  return out;
}

std::string Workspace::SearchDocumentsObservation(const std::string& query, const std::string& id) {
  tools::ToolRequest request = tools::DocumentsRequest{query};
  auto output =
      documents_->Execute(request, std::chrono::steady_clock::now() + std::chrono::seconds(10));
  if (!output) return {};
  tools::Canonicalize(output->result, tools::BoundaryOptionsFrom(config_).limits);
  tools::BindToRequest(output->result, request, id);
  return tools::ResultObservation(output->result, {});
}

bool Workspace::QuoteInCanonicalRecord(const std::string& id, const std::string& quote) {
  if (text::CodePointCount(quote) < 4) return false;
  auto record = store_.Get(run_->run_id(), id);
  if (!record || !record->has_value()) return false;
  const tools::ToolResult& result = (*record)->result;
  if (tools::EvidenceStatusOf(result) != tools::EvidenceStatus::kEvidenceFound) return false;
  auto holds = [&](const std::string& text) { return text.find(quote) != std::string::npos; };
  if (const auto* docs = std::get_if<tools::DocumentsResult>(&result)) {
    for (const auto& item : docs->evidence) {
      if (holds(item.excerpt) || holds(item.title)) return true;
    }
  }
  if (const auto* logs = std::get_if<tools::LogsResult>(&result)) {
    for (const auto& event : logs->events) {
      if (holds(event.message)) return true;
    }
  }
  if (const auto* rows = std::get_if<tools::MysqlResult>(&result)) {
    for (const auto& row : rows->rows) {
      for (const auto& cell : row) {
        if (const auto* s = std::get_if<std::string>(&cell); s && holds(*s)) return true;
        if (const auto* n = std::get_if<std::int64_t>(&cell); n && std::to_string(*n) == quote)
          return true;
      }
    }
  }
  return false;
}

}  // namespace diagd::model::offline::testing
