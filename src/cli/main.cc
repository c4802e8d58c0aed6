// diagd: the command line. Parses arguments and hands over to commands.cc.
//
// Each subcommand is declared by one function that adds its options and,
// once CLI11 has parsed it, sets the command to run: main parses, then runs
// what was chosen.
#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/terminal_text.h"

namespace diagd::cli {
namespace {

// What the parsed command line asks for.
struct Chosen {
  std::function<int()> run;
  // The server logs JSON lines (no raw controls in them); every other
  // command is read by a person.
  bool serving = false;
};

constexpr const char* kConfigHelp = "Configuration file (default: $DIAGD_CONFIG)";

void AddAsk(CLI::App& app, Chosen& chosen) {
  auto ask = std::make_shared<AskOptions>();
  auto* cmd = app.add_subcommand("ask", "Ask a question and print the released answer");
  cmd->add_option("--config", ask->config_path, kConfigHelp);
  cmd->add_flag("--json", ask->json, "Print exactly one JSON document on stdout");
  cmd->add_option("--route", ask->route, "Skip the router: diagnosis, knowledge or chat")
      ->check(CLI::IsMember({"diagnosis", "knowledge", "chat"}));
  cmd->add_option("--conversation", ask->conversation_id, "Continue this conversation");
  cmd->add_option("question", ask->question, "The question")->required();
  cmd->callback([ask, &chosen] { chosen.run = [ask] { return Ask(*ask); }; });
}

void AddRuns(CLI::App& app, Chosen& chosen) {
  auto* runs = app.add_subcommand("runs", "Inspect stored runs");
  runs->require_subcommand(1);
  auto config = std::make_shared<std::optional<std::string>>();

  auto run_id = std::make_shared<std::string>();
  auto* show = runs->add_subcommand("show", "Print one run record as JSON");
  show->add_option("run_id", *run_id, "The run id")->required();
  show->add_option("--config", *config, kConfigHelp);
  show->callback([config, run_id, &chosen] {
    chosen.run = [config, run_id] { return RunsShow(*config, *run_id); };
  });

  auto limit = std::make_shared<int>(20);
  auto* list = runs->add_subcommand("list", "List recent runs, newest first");
  list->add_option("--config", *config, kConfigHelp);
  list->add_option("--limit", *limit, "How many (1..200)")->check(CLI::Range(1, 200));
  list->callback([config, limit, &chosen] {
    chosen.run = [config, limit] { return RunsList(*config, *limit); };
  });
}

void AddServe(CLI::App& app, Chosen& chosen) {
  auto config = std::make_shared<std::optional<std::string>>();
  auto* serve = app.add_subcommand("serve", "Serve the HTTP API until SIGTERM");
  serve->add_option("--config", *config, kConfigHelp);
  serve->callback([config, &chosen] {
    chosen.serving = true;
    chosen.run = [config] { return Serve(*config); };
  });
}

void AddDemo(CLI::App& app, Chosen& chosen) {
  auto demo = std::make_shared<DemoOptions>();
  auto* cmd = app.add_subcommand("demo", "Run the sample question over the bundled demo workspace");
  cmd->add_flag("--json", demo->json, "Print exactly one JSON document on stdout");
  cmd->add_flag("--serve", demo->serve,
                "Serve the demo workspace (the web console at http://127.0.0.1:8080/) instead");
  cmd->add_option("--metrics-url", demo->metrics_url,
                  "Offer the metrics tool over the Prometheus at this URL, one serving the demo's "
                  "recording (examples/demo/tools/serve-metrics)");
  cmd->callback([demo, &chosen] {
    chosen.serving = demo->serve;
    chosen.run = [demo] { return Demo(*demo); };
  });
}

void AddCheck(CLI::App& app, Chosen& chosen) {
  auto check = std::make_shared<CheckOptions>();
  auto no_model = std::make_shared<bool>(false);
  auto* cmd =
      app.add_subcommand("check", "Check the configuration, every backend and each model endpoint");
  cmd->add_option("--config", check->config_path, kConfigHelp);
  cmd->add_flag("--json", check->json, "Print exactly one JSON document on stdout");
  cmd->add_flag("--no-model", *no_model, "Send no request to the model endpoints");
  cmd->callback([check, no_model, &chosen] {
    check->probe_models = !*no_model;
    chosen.run = [check] { return Check(*check); };
  });
}

void AddEval(CLI::App& app, Chosen& chosen) {
  auto eval = std::make_shared<EvalOptions>();
  auto* cmd = app.add_subcommand(
      "eval", "Run a suite of incidents against the configured model and score each");
  cmd->add_option("suite", eval->suite, "The suite's folder (eval/incidents)")->required();
  cmd->add_option("--config", eval->config_path,
                  "Configuration file: the model to measure (default: $DIAGD_CONFIG)");
  cmd->add_flag("--json", eval->json, "Print exactly one JSON document on stdout");
  cmd->add_option("--report", eval->report_path, "Write a self-contained HTML report here");
  cmd->add_option("--jobs", eval->jobs, "Incidents run at once (1..64)")->check(CLI::Range(1, 64));
  cmd->add_option("--only", eval->only, "Only these incidents (NAME,...)")->delimiter(',');
  cmd->add_option("--min-score", eval->min_score, "Exit 1 below this score (0 to 1)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--data-root", eval->data_roots,
                  "A folder incidents may also read from (repeatable); otherwise every "
                  "path of an incident stays inside its folder");
  cmd->callback([eval, &chosen] { chosen.run = [eval] { return Eval(*eval); }; });
}

}  // namespace
}  // namespace diagd::cli

int main(int argc, char** argv) {
  using namespace diagd::cli;
  CLI::App app{"diagd: why is this failing? A diagnosis agent whose every cited fact is verified."};
  app.require_subcommand(1);
  Chosen chosen;
  AddAsk(app, chosen);
  AddRuns(app, chosen);
  AddServe(app, chosen);
  AddDemo(app, chosen);
  AddCheck(app, chosen);
  AddEval(app, chosen);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kExitUsage;
  }
  if (!chosen.run) return kExitUsage;
  if (!chosen.serving) EscapeControlsOnStandardStreams();
  return chosen.run();
}
