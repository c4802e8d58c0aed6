#include "cli/commands.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "app/chat_application.h"
#include "cli/config_file.h"
#include "app/run_record_json.h"
#include "server/server.h"
#include "wiring/chat_service.h"
#include "wiring/run_store.h"

namespace diagd::cli {
namespace {

// The sample question `diagd demo` asks (examples/demo/README.md).
constexpr const char* kDemoQuestion = "订单服务从 10 点左右开始大量 500，为什么？";

int UsageError(const std::string& message) {
  std::cerr << "diagd: " << message << "\n";
  return kExitUsage;
}

// Human-readable progress on stderr, as it happens.
class StderrProgress final : public app::ChatObserver {
 public:
  void OnRunStarted(const std::string& run_id, const std::string& conversation_id) override {
    std::cerr << "run " << run_id << " (conversation " << conversation_id << ")\n";
  }
  void OnRouted(app::Route route) override {
    std::cerr << "route: " << app::RouteString(route) << "\n";
  }
  void OnToolProgress(const harness::ToolProgress& p) override {
    if (p.status == harness::ProgressStatus::kStarted) {
      std::cerr << "[" << p.index << "] " << p.tool << "  " << p.scope << " ...\n";
    } else {
      std::cerr << "[" << p.index << "]   -> " << harness::ProgressStatusString(p.status) << "\n";
    }
  }
  // docs/model-endpoints.md: a failed run says why, in the provider's own words.
  void OnRunRecorded(const app::RunRecord& run) override {
    for (const auto& failure : run.model_failures) {
      if (!run.failure_reason) {
        std::cerr << "model call failed: " << failure.component << " " << failure.reason << "\n";
      }
    }
    if (run.failure_reason) {
      std::cerr << "diagd: the run failed: " << *run.failure_reason;
      if (run.failure_detail) std::cerr << ": " << *run.failure_detail;
      std::cerr << "\n";
    }
  }
};

int ExitStatusOf(const app::ChatResult& result) {
  bool failed = result.fallback && result.fallback->code == release::FallbackCode::kFailed;
  return failed ? kExitFailed : kExitOk;
}

// CLI11 has already refused any other name (main.cc).
std::optional<app::Route> ParseRoute(const std::optional<std::string>& route) {
  if (!route) return std::nullopt;
  return app::ParseRouteName(*route);
}

int AskWith(const config::Config& config, const AskOptions& options) {
  auto service = wiring::OpenChatService(config, SystemClock::Instance());
  if (!service) return UsageError(service.error().message);
  std::cerr << "model: " << (*service)->model->Label(model::Component::kDiagnosisAgent) << "\n";

  StderrProgress progress;
  auto result = (*service)->chat->Handle({options.question, options.conversation_id, ParseRoute(options.route)},
                            &progress);
  if (!result) {
    std::cerr << "diagd: " << result.error().message << "\n";
    return kExitFailed;
  }
  if (options.json) {
    std::cout << app::ChatResultJson(*result) << "\n";
  } else {
    std::cout << app::ChatResultText(*result, config.language == config::Language::kEn);
    std::cerr << "run " << result->run_id << ": diagd runs show " << result->run_id << "\n";
  }
  return ExitStatusOf(*result);
}

// The bundled demo workspace: $DIAGD_DEMO_DIR, the source tree this binary
// was built from, or beside the binary.
std::optional<std::filesystem::path> FindDemo() {
  std::vector<std::filesystem::path> candidates;
  if (const char* dir = std::getenv("DIAGD_DEMO_DIR"); dir != nullptr && *dir != '\0') {
    candidates.emplace_back(dir);
  }
  candidates.emplace_back(std::filesystem::path(DIAGD_SOURCE_DIR) / "examples/demo");
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    candidates.push_back(self.parent_path() / "../examples/demo");
    candidates.push_back(self.parent_path() / "../../examples/demo");
    candidates.push_back(self.parent_path() / "../share/diagd/examples/demo");
  }
  for (const auto& dir : candidates) {
    if (std::filesystem::exists(dir / "diagd.toml", error)) return dir;
  }
  return std::nullopt;
}

}  // namespace

int Ask(const AskOptions& options) {
  auto config = LoadConfig(options.config_path);
  if (!config) return UsageError(config.error().message);
  return AskWith(*config, options);
}

namespace {

// Serves `config` until SIGTERM or SIGINT; with `print_url` the console's
// address goes to stderr once the server listens.
int ServeWith(const config::Config& config, bool print_url) {
  auto service =
      wiring::OpenChatService(config, SystemClock::Instance(), wiring::ServerRunOwner(config));
  if (!service) return UsageError(service.error().message);
  auto listen = config::ParseListenAddress(config.server.listen);
  if (!listen) return UsageError("server.listen: not host:port");
  auto bus = wiring::OpenRunBus(config);  // outlives the server, which stops it
  if (!bus) return UsageError(bus.error().message);
  server::ServerLog log(std::cerr);
  auto server = server::Server::Start({config.server, *listen, **service, log, bus->get()});
  if (!server) {
    std::cerr << "diagd: " << server.error().message << "\n";
    return server.error().code == ErrorCode::kFailedPrecondition ? kExitUsage : kExitFailed;
  }
  if (print_url) {
    bool v6 = listen->host.find(':') != std::string::npos;
    std::cerr << "console: http://" << (v6 ? "[" + listen->host + "]" : listen->host) << ":"
              << listen->port << "/ (Ctrl-C stops the server)\n";
  }
  int abandoned = (*server)->Run(/*handle_signals=*/true);
  if (abandoned > 0) {
    // Their workers are still blocked inside the service: leave without
    // destroying what they use. Everything they could lose is stored.
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(kExitOk);
  }
  return kExitOk;
}

}  // namespace

int Serve(const std::optional<std::string>& config_path) {
  auto config = LoadConfig(config_path);
  if (!config) return UsageError(config.error().message);
  return ServeWith(*config, /*print_url=*/false);
}

int RunsShow(const std::optional<std::string>& config_path, const std::string& run_id) {
  auto config = LoadConfig(config_path);
  if (!config) return UsageError(config.error().message);
  auto runs = wiring::OpenRunStore(*config, SystemClock::Instance());
  if (!runs) return UsageError(runs.error().message);
  auto run = (*runs)->GetRun(run_id);
  if (!run) {
    std::cerr << "diagd: " << run.error().message << "\n";
    return kExitFailed;
  }
  if (!run->has_value()) {
    std::cerr << "diagd: no run " << run_id << "\n";
    return kExitFailed;
  }
  std::cout << app::RunRecordJson(**run) << "\n";
  return kExitOk;
}

int RunsList(const std::optional<std::string>& config_path, int limit) {
  auto config = LoadConfig(config_path);
  if (!config) return UsageError(config.error().message);
  auto runs = wiring::OpenRunStore(*config, SystemClock::Instance());
  if (!runs) return UsageError(runs.error().message);
  auto list = (*runs)->ListRuns(limit);
  if (!list) {
    std::cerr << "diagd: " << list.error().message << "\n";
    return kExitFailed;
  }
  std::printf("%-32s  %-24s  %-11s  %-9s  %-9s  %s\n", "RUN", "CREATED", "ROUTE", "STATUS",
              "OUTCOME", "FALLBACK");
  for (const auto& run : *list) {
    std::printf("%-32s  %-24s  %-11s  %-9s  %-9s  %s\n", run.run_id.c_str(),
                FormatRfc3339Millis(run.created_at).c_str(), run.route.c_str(), run.status.c_str(),
                run.release_outcome.value_or("-").c_str(), run.fallback_code.value_or("-").c_str());
  }
  return kExitOk;
}

int Demo(const DemoOptions& options) {
  if (options.metrics_url && options.metrics_url->rfind("http://", 0) != 0 &&
      options.metrics_url->rfind("https://", 0) != 0) {
    return UsageError("--metrics-url: not an http:// or https:// URL: " + *options.metrics_url);
  }
  auto dir = FindDemo();
  if (!dir) return UsageError("the demo workspace (examples/demo) was not found; set DIAGD_DEMO_DIR");
  auto config = config::LoadConfigFile(*dir / "diagd.toml", config::ProcessEnvironment());
  if (!config) return UsageError(config.error().message);
  // The recorded metrics are served by a Prometheus scripts/demo starts
  // where it is installed; without one the demo runs without query_metrics.
  if (options.metrics_url) config->tools.metrics.emplace().url = *options.metrics_url;
  std::cerr << "demo workspace: " << std::filesystem::weakly_canonical(*dir).string() << "\n";
  if (options.serve) {
    std::cerr << "ask it: " << kDemoQuestion << "\n";
    return ServeWith(*config, /*print_url=*/true);
  }
  std::cerr << "question: " << kDemoQuestion << "\n";
  AskOptions ask;
  ask.json = options.json;
  ask.question = kDemoQuestion;
  return AskWith(*config, ask);
}

}  // namespace diagd::cli
