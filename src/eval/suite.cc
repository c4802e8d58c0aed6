#include "eval/suite.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "eval/incident_run.h"

namespace diagd::eval {

Result<Suite> LoadSuite(const std::filesystem::path& dir, const config::Config& base,
                        const std::vector<std::string>& only) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    return Error::InvalidArgument("suite " + dir.string() + ": not a folder");
  }
  std::vector<std::filesystem::path> folders;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.is_directory(error) && std::filesystem::exists(entry.path() / "incident.toml", error)) {
      folders.push_back(entry.path());
    }
  }
  if (error) return Error::InvalidArgument("suite " + dir.string() + ": " + error.message());
  std::sort(folders.begin(), folders.end());

  const std::set<std::string> wanted(only.begin(), only.end());
  std::set<std::string> unmatched = wanted;
  Suite suite;
  auto absolute = std::filesystem::absolute(dir, error).lexically_normal();
  if (!absolute.has_filename()) absolute = absolute.parent_path();  // "eval/incidents/"
  suite.name = absolute.filename().string();
  for (const auto& folder : folders) {
    if (!wanted.empty() && wanted.count(folder.filename().string()) == 0) continue;
    auto incident = config::LoadIncident(folder, base);
    if (!incident) return Error::InvalidArgument(incident.error().message);
    unmatched.erase(incident->name);
    suite.incidents.push_back(std::move(*incident));
  }
  if (!unmatched.empty()) {
    return Error::InvalidArgument("--only: no incident " + *unmatched.begin() + " in " + dir.string());
  }
  if (suite.incidents.empty()) {
    return Error::InvalidArgument("suite " + dir.string() + ": no incident (a folder with an incident.toml)");
  }
  return suite;
}

SuiteRun RunSuite(const Suite& suite, int jobs, const Clock& clock, const ProgressFn& progress) {
  const int total = static_cast<int>(suite.incidents.size());
  SuiteRun out;
  out.scores.resize(suite.incidents.size());
  std::atomic<int> next{0};
  std::mutex progress_mu;
  int done = 0;
  auto start = std::chrono::steady_clock::now();
  auto work = [&] {
    for (int i = next++; i < total; i = next++) {
      IncidentScore score = Score(RunIncident(suite.incidents[i], clock));
      std::lock_guard lock(progress_mu);
      out.scores[i] = std::move(score);
      ++done;
      if (progress) progress(out.scores[i], done, total);
    }
  };
  std::vector<std::thread> workers;
  for (int j = 1; j < std::clamp(jobs, 1, total); ++j) workers.emplace_back(work);
  work();
  for (auto& worker : workers) worker.join();
  out.elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  return out;
}

}  // namespace diagd::eval
