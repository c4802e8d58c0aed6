// The diagd commands (docs/specs/chat-and-cli.md), each returning the process
// exit status: 0 for a DIAGNOSIS, an ANSWER or a MISSING_REQUIRED_CONTEXT /
// INSUFFICIENT_EVIDENCE fallback; 1 for a FAILED fallback or a run that could
// not be executed; 2 for usage or configuration errors.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace diagd::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

struct AskOptions {
  std::optional<std::string> config_path;  // --config, else DIAGD_CONFIG, else defaults
  bool json = false;
  std::optional<std::string> route;  // "diagnosis" | "knowledge" | "chat"
  std::optional<std::string> conversation_id;
  std::string question;
};

int Ask(const AskOptions& options);
// The HTTP server until SIGTERM or SIGINT; 0 after a graceful shutdown.
int Serve(const std::optional<std::string>& config_path);
int RunsShow(const std::optional<std::string>& config_path, const std::string& run_id);
int RunsList(const std::optional<std::string>& config_path, int limit);
struct DemoOptions {
  bool json = false;   // one JSON document on stdout
  bool serve = false;  // serve the workspace (the console's URL on stderr) instead of asking
  // A Prometheus serving the demo's metrics recording
  // (examples/demo/tools/serve-metrics): the demo's config gains the metrics
  // tool over it. http:// or https://.
  std::optional<std::string> metrics_url;
};

// Runs the bundled demo workspace's sample question; with `serve`, serves
// the demo workspace instead.
int Demo(const DemoOptions& options);

struct CheckOptions {
  std::optional<std::string> config_path;  // --config, else DIAGD_CONFIG, else defaults
  bool json = false;                       // one JSON document on stdout
  bool probe_models = true;                // false: --no-model
};

// `diagd check` (docs/check.md): 0 when every check is ok, 1 when a
// problem was found, 2 for a configuration error (check_command.cc).
int Check(const CheckOptions& options);

struct EvalOptions {
  std::string suite;                       // the suite's folder
  std::optional<std::string> config_path;  // the model and harness to measure
  bool json = false;                       // one JSON document on stdout
  std::optional<std::string> report_path;  // --report FILE.html
  int jobs = 1;
  std::vector<std::string> only;  // incident names; empty: all
  std::optional<double> min_score;
  std::vector<std::string> data_roots;  // folders incidents may read beside their own
};

// `diagd eval` (docs/eval.md): 0 when it ran, 1 when `min_score` was
// not reached, 2 for usage or configuration errors (eval_command.cc).
int Eval(const EvalOptions& options);

}  // namespace diagd::cli
