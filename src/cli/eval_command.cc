// `diagd eval` (docs/eval.md): progress on stderr as each incident
// ends; the table (or with --json exactly one JSON document) on stdout; the
// HTML report where --report says. docs/eval.md is the guide.
#include <pthread.h>
#include <signal.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
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
  // Written beside the report and renamed over it at the end: opened
  // before the first run, so that a report that cannot be written costs no
  // model call, and an earlier report stays whole until a new one is.
  std::ofstream report_file;
  std::string partial;
  if (options.report_path) {
    partial = *options.report_path + ".partial";
    report_file.open(partial, std::ios::binary | std::ios::trunc);
    if (!report_file) {
      std::cerr << "diagd: --report " << *options.report_path << ": cannot be written\n";
      return kExitUsage;
    }
  }
  RemoveWhenStopped(stop, {scratch->path(), partial});
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
  if (options.report_path) {
    report_file << eval::ReportHtml(report);
    report_file.close();
    std::error_code renamed;
    if (report_file) std::filesystem::rename(partial, *options.report_path, renamed);
    if (!report_file || renamed) {
      std::error_code ignored;
      std::filesystem::remove(partial, ignored);
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
