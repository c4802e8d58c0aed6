#include "eval/incident_run.h"

#include <chrono>
#include <exception>
#include <filesystem>
#include <system_error>
#include <utility>

#include "eval/scratch.h"
#include "wiring/chat_service.h"

namespace diagd::eval {
namespace {

// An incident's folder inside the eval's scratch root, gone with the run:
// a suite of hundreds must not keep hundreds of indexes on disk.
class RemovedAfter {
 public:
  explicit RemovedAfter(std::filesystem::path path) : path_(std::move(path)) {}
  ~RemovedAfter() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  RemovedAfter(const RemovedAfter&) = delete;
  RemovedAfter& operator=(const RemovedAfter&) = delete;

 private:
  std::filesystem::path path_;
};

void Run(const config::Incident& incident, const Clock& clock,
         const std::filesystem::path& scratch_root, IncidentRun& out) {
  auto scratch = MakeScratchFolder(scratch_root);
  if (!scratch) {
    out.error = scratch.error().message;
    return;
  }
  RemovedAfter removed(*scratch);
  config::Config config = incident.config;
  config.storage.runs = "sqlite:" + (*scratch / "runs.db").string();
  config.storage.canonical = "memory:";
  config.tools.documents.cache_path = *scratch / "cache";
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

IncidentRun RunIncident(const config::Incident& incident, const Clock& clock,
                        const std::filesystem::path& scratch_root) {
  IncidentRun out;
  out.incident = &incident;
  auto start = std::chrono::steady_clock::now();
  try {
    Run(incident, clock, scratch_root, out);
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
