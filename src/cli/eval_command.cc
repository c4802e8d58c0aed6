// `diagd eval` (docs/eval.md): progress on stderr as each incident
// ends; the table (or with --json exactly one JSON document) on stdout; the
// HTML report where --report says. docs/eval.md is the guide.
#include <pthread.h>
#include <signal.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/config_file.h"
#include "eval/report.h"
#include "eval/scratch.h"
#include "eval/suite.h"
#include "wiring/chat_model.h"

namespace diagd::cli {
namespace {

// The signals that stop an eval: blocked in every thread from the start,
// so that only the thread of RemoveWhenStopped takes them.
sigset_t BlockStopSignals() {
  sigset_t stop;
  sigemptyset(&stop);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop, signal);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  return stop;
}

// On a stop signal: removes `paths` (the incidents' run stores and
// indexes, a half-written report: destructors never run when a signal ends
// the process), then ends the process by that signal, as the shell expects.
// A signal that came before is pending until then.
void RemoveWhenStopped(sigset_t stop, std::vector<std::filesystem::path> paths) {
  std::thread([stop, paths = std::move(paths)] {
    int signal = 0;
    if (sigwait(&stop, &signal) != 0) return;
    for (const auto& path : paths) {
      std::error_code ignored;
      if (!path.empty()) std::filesystem::remove_all(path, ignored);
    }
    ::signal(signal, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &stop, nullptr);
    ::raise(signal);
  }).detach();
}

// The HTML report, written beside its path and renamed over it at the end:
// opened before the first run, so that a report that cannot be written
// costs no model call, and an earlier report stays whole until a new one is.
class HtmlReportFile {
 public:
  explicit HtmlReportFile(const std::string& path)
      : path_(path), partial_(path + ".partial"),
        file_(partial_, std::ios::binary | std::ios::trunc) {}

  bool Opened() const { return static_cast<bool>(file_); }
  const std::string& partial() const { return partial_; }

  // Writes `html` and renames it over the report; false (and nothing left
  // beside the report) when either fails.
  bool Commit(const std::string& html) {
    file_ << html;
    file_.close();
    std::error_code renamed;
    if (file_) std::filesystem::rename(partial_, path_, renamed);
    if (file_ && !renamed) return true;
    std::error_code ignored;
    std::filesystem::remove(partial_, ignored);
    return false;
  }

 private:
  std::string path_;
  std::string partial_;
  std::ofstream file_;
};

}  // namespace

int Eval(const EvalOptions& options) {
  const sigset_t stop = BlockStopSignals();
  // CLI11's range check lets NaN through (every comparison with it is false).
  if (options.min_score && std::isnan(*options.min_score)) {
    std::cerr << "diagd: --min-score: expected a number from 0 to 1, got nan\n";
    return kExitUsage;
  }
  auto config = LoadConfig(options.config_path);
  if (!config) {
    std::cerr << "diagd: " << config.error().message << "\n";
    return kExitUsage;
  }
  std::vector<std::filesystem::path> data_roots(options.data_roots.begin(),
                                                options.data_roots.end());
  auto suite = eval::LoadSuite(options.suite, *config, options.only, data_roots);
  if (!suite) {
    std::cerr << "diagd: " << suite.error().message << "\n";
    return kExitUsage;
  }
  auto scratch = eval::ScratchRoot::Create();
  if (!scratch) {
    std::cerr << "diagd: " << scratch.error().message << "\n";
    return kExitFailed;
  }
  std::optional<HtmlReportFile> report_file;
  if (options.report_path) {
    report_file.emplace(*options.report_path);
    if (!report_file->Opened()) {
      std::cerr << "diagd: --report " << *options.report_path << ": cannot be written\n";
      return kExitUsage;
    }
  }
  RemoveWhenStopped(stop, {scratch->path(), report_file ? report_file->partial() : ""});
  std::string model = wiring::OpenChatModel(*config)->Label(model::Component::kDiagnosisAgent);
  std::cerr << "eval " << suite->name << ": " << suite->incidents.size() << " incidents, model "
            << model << ", " << options.jobs << " at a time\n";
  for (const auto& skip : suite->skipped) {
    std::cerr << "skipped " << skip.name << ": " << skip.reason << "\n";
  }
  eval::SuiteRun run = eval::RunSuite(
      *suite, options.jobs, SystemClock::Instance(), scratch->path(),
      [](const eval::IncidentScore& score, int done, int total) {
        std::cerr << eval::ProgressLine(score, done, total) << "\n";
      });
  eval::SuiteReport report{suite->name, model, run, eval::Total(run.scores), suite->skipped};
  if (options.json) {
    std::cout << eval::ReportJson(report) << "\n";
  } else {
    std::cout << eval::ReportTable(report);
  }
  if (report_file) {
    if (!report_file->Commit(eval::ReportHtml(report))) {
      std::cerr << "diagd: --report " << *options.report_path << ": write failed\n";
      return kExitFailed;
    }
    std::cerr << "report: " << *options.report_path << "\n";
  }
  if (options.min_score && report.totals.score < *options.min_score) {
    std::cerr << "diagd: score " << report.totals.score << " is below --min-score "
              << *options.min_score << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace diagd::cli
