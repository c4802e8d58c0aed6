#include "eval/suite.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "eval/incident_run.h"

namespace diagd::eval {
namespace {

// Every file and folder of `incident`'s workspace, as its tools' sections
// name them.
std::vector<tools::LocalPath> WorkspacePaths(const config::Incident& incident) {
  std::vector<tools::LocalPath> paths;
  tools::RegisteredSections::ForEach([&]<typename Section>(std::type_identity<Section>) {
    for (auto& path : Section::LocalPaths(incident.config.tools)) paths.push_back(std::move(path));
  });
  return paths;
}

// Why `incident` cannot run here: a folder or file of its workspace that
// does not exist; empty when all are there.
std::string MissingWorkspace(const config::Incident& incident) {
  std::error_code error;
  for (const tools::LocalPath& local : WorkspacePaths(incident)) {
    bool there = local.folder ? std::filesystem::is_directory(local.path, error)
                              : std::filesystem::is_regular_file(local.path, error);
    if (!there) return local.key + " " + local.path.string() + " does not exist";
  }
  return {};
}

namespace fs = std::filesystem;

// `path` with symlinks and ".." resolved as far as it exists, so that
// neither can lead out of a folder unseen.
fs::path Resolved(const fs::path& path) {
  std::error_code error;
  fs::path resolved = fs::weakly_canonical(path, error);
  return error ? path.lexically_normal() : resolved;
}

bool IsWithin(const fs::path& path, const fs::path& folder) {
  fs::path relative = path.lexically_relative(folder);
  return !relative.empty() && *relative.begin() != "..";
}

// The first path of `incident`'s workspace that lies outside its folder
// and every one of `data_roots`, named with its key; empty when all stay
// inside. An incident from someone else must not send this machine's
// files to a model or into a report.
std::string PathOutside(const config::Incident& incident, const std::vector<fs::path>& data_roots) {
  std::vector<fs::path> allowed{Resolved(incident.dir)};
  for (const auto& root : data_roots) allowed.push_back(Resolved(fs::absolute(root)));
  auto outside = [&](const fs::path& path) {
    fs::path resolved = Resolved(path);
    return std::none_of(allowed.begin(), allowed.end(),
                        [&](const fs::path& folder) { return IsWithin(resolved, folder); });
  };
  for (const tools::LocalPath& local : WorkspacePaths(incident)) {
    if (outside(local.path)) {
      return "incident " + incident.name + ": " + local.key + " " + local.path.string() +
             " is outside the incident's folder (allow a folder of data with --data-root DIR)";
    }
  }
  return {};
}

}  // namespace

Result<Suite> LoadSuite(const std::filesystem::path& dir, const config::Config& base,
                        const std::vector<std::string>& only,
                        const std::vector<std::filesystem::path>& data_roots) {
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
    if (std::string outside = PathOutside(*incident, data_roots); !outside.empty()) {
      return Error::InvalidArgument(std::move(outside));
    }
    if (std::string missing = MissingWorkspace(*incident); !missing.empty()) {
      suite.skipped.push_back({incident->name, std::move(missing)});
      continue;
    }
    suite.incidents.push_back(std::move(*incident));
  }
  if (!unmatched.empty()) {
    return Error::InvalidArgument("--only: no incident " + *unmatched.begin() + " in " + dir.string());
  }
  if (suite.incidents.empty() && suite.skipped.empty()) {
    return Error::InvalidArgument("suite " + dir.string() + ": no incident (a folder with an incident.toml)");
  }
  return suite;
}

SuiteRun RunSuite(const Suite& suite, int jobs, const Clock& clock,
                  const std::filesystem::path& scratch_root, const ProgressFn& progress) {
  const int total = static_cast<int>(suite.incidents.size());
  SuiteRun out;
  if (total == 0) return out;
  out.scores.resize(suite.incidents.size());
  std::atomic<int> next{0};
  std::mutex progress_mu;
  int done = 0;
  auto start = std::chrono::steady_clock::now();
  auto work = [&] {
    for (int i = next++; i < total; i = next++) {
      IncidentScore score = Score(RunIncident(suite.incidents[i], clock, scratch_root));
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
