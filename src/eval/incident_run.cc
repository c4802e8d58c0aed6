#include "eval/incident_run.h"

#include <stdlib.h>

#include <chrono>
#include <exception>
#include <filesystem>
#include <system_error>

#include "wiring/chat_service.h"

namespace diagd::eval {
namespace {

// A private folder for the incident's run store and index, gone with it.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "diagd-eval-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void Run(const config::Incident& incident, const Clock& clock, IncidentRun& out) {
  ScratchDir scratch;
  if (scratch.path().empty()) {
    out.error = "cannot create a temporary folder";
    return;
  }
  config::Config config = incident.config;
  config.storage.runs = "sqlite:" + (scratch.path() / "runs.db").string();
  config.storage.canonical = "memory:";
  config.tools.documents.cache_path = scratch.path() / "cache";
  auto service = wiring::OpenChatService(config, clock);
  if (!service) {
    out.error = service.error().message;
    return;
  }
  auto result = (*service)->chat->Handle({incident.question, std::nullopt, std::nullopt}, nullptr);
  if (!result) {
    out.error = result.error().message;
    return;
  }
  auto record = (*service)->runs->GetRun(result->run_id);
  if (!record || !record->has_value()) {
    out.error = record ? "the run was not stored" : record.error().message;
    return;
  }
  out.result = std::move(*result);
  out.record = std::move(**record);
}

}  // namespace

IncidentRun RunIncident(const config::Incident& incident, const Clock& clock) {
  IncidentRun out;
  out.incident = &incident;
  auto start = std::chrono::steady_clock::now();
  try {
    Run(incident, clock, out);
  } catch (const std::exception& error) {
    out.result.reset();
    out.record.reset();
    out.error = std::string("the run threw: ") + error.what();
  }
  out.wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  return out;
}

}  // namespace diagd::eval
