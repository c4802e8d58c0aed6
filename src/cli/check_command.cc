// `diagd check` (docs/check.md): progress on stderr, the report on
// stdout (a table, or with --json exactly one JSON document), exit 0 when
// all is well, 1 when a problem was found, 2 for a configuration error.
#include <iostream>

#include "check/check.h"
#include "cli/commands.h"
#include "cli/config_file.h"
#include "config/config.h"

namespace diagd::cli {
namespace {

class StderrCheckProgress final : public check::CheckProgress {
 public:
  void OnChecking(std::string_view part, std::string_view name) override {
    std::cerr << "checking " << part << ": " << name << "\n";
  }
};

}  // namespace

int Check(const CheckOptions& options) {
  check::CheckOptions check;
  check.environment = config::ProcessEnvironment();
  check.probe_models = options.probe_models;
  auto file = ConfigFileFor(options.config_path);
  check.config_source = file.value_or("(defaults)");
  auto config = LoadConfig(options.config_path, check.environment);
  if (!config) {
    std::cerr << "diagd: " << config.error().message << "\n";
    return kExitUsage;
  }
  StderrCheckProgress progress;
  check::CheckReport report = check::RunChecks(*config, check, SystemClock::Instance(), &progress);
  if (options.json) {
    std::cout << check::ReportJson(report) << "\n";
  } else {
    std::cout << check::ReportTable(report);
  }
  std::size_t problems = 0;
  for (const auto& item : report.checks) problems += item.ok ? 0 : 1;
  if (problems == 0) {
    std::cerr << "all well\n";
    return kExitOk;
  }
  std::cerr << problems << (problems == 1 ? " problem" : " problems")
            << " found: each row marked NO says what to change\n";
  return kExitFailed;
}

}  // namespace diagd::cli
