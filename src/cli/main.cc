// diagd: the command line. Parses arguments and hands over to commands.cc.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"
#include "cli/terminal_text.h"

int main(int argc, char** argv) {
  using namespace diagd::cli;
  CLI::App app{"diagd: why is this failing? A diagnosis agent whose every cited fact is verified."};
  app.require_subcommand(1);

  AskOptions ask;
  auto* ask_cmd = app.add_subcommand("ask", "Ask a question and print the released answer");
  ask_cmd->add_option("--config", ask.config_path, "Configuration file (default: $DIAGD_CONFIG)");
  ask_cmd->add_flag("--json", ask.json, "Print exactly one JSON document on stdout");
  ask_cmd->add_option("--route", ask.route, "Skip the router: diagnosis, knowledge or chat")
      ->check(CLI::IsMember({"diagnosis", "knowledge", "chat"}));
  ask_cmd->add_option("--conversation", ask.conversation_id, "Continue this conversation");
  ask_cmd->add_option("question", ask.question, "The question")->required();

  std::optional<std::string> runs_config;
  auto* runs = app.add_subcommand("runs", "Inspect stored runs");
  runs->require_subcommand(1);
  std::string run_id;
  auto* show = runs->add_subcommand("show", "Print one run record as JSON");
  show->add_option("run_id", run_id, "The run id")->required();
  show->add_option("--config", runs_config, "Configuration file (default: $DIAGD_CONFIG)");
  int limit = 20;
  auto* list = runs->add_subcommand("list", "List recent runs, newest first");
  list->add_option("--config", runs_config, "Configuration file (default: $DIAGD_CONFIG)");
  list->add_option("--limit", limit, "How many (1..200)")->check(CLI::Range(1, 200));

  std::optional<std::string> serve_config;
  auto* serve = app.add_subcommand("serve", "Serve the HTTP API until SIGTERM");
  serve->add_option("--config", serve_config, "Configuration file (default: $DIAGD_CONFIG)");

  bool demo_json = false;
  auto* demo = app.add_subcommand("demo", "Run the sample question over the bundled demo workspace");
  demo->add_flag("--json", demo_json, "Print exactly one JSON document on stdout");
  bool demo_serve = false;
  demo->add_flag("--serve", demo_serve,
                 "Serve the demo workspace (the web console at http://127.0.0.1:8080/) instead");

  CheckOptions check;
  auto* check_cmd =
      app.add_subcommand("check", "Check the configuration, every backend and each model endpoint");
  check_cmd->add_option("--config", check.config_path,
                        "Configuration file (default: $DIAGD_CONFIG)");
  check_cmd->add_flag("--json", check.json, "Print exactly one JSON document on stdout");
  bool no_model = false;
  check_cmd->add_flag("--no-model", no_model, "Send no request to the model endpoints");

  EvalOptions eval;
  auto* eval_cmd = app.add_subcommand(
      "eval", "Run a suite of incidents against the configured model and score each");
  eval_cmd->add_option("suite", eval.suite, "The suite's folder (eval/incidents)")->required();
  eval_cmd->add_option("--config", eval.config_path,
                       "Configuration file: the model to measure (default: $DIAGD_CONFIG)");
  eval_cmd->add_flag("--json", eval.json, "Print exactly one JSON document on stdout");
  eval_cmd->add_option("--report", eval.report_path, "Write a self-contained HTML report here");
  eval_cmd->add_option("--jobs", eval.jobs, "Incidents run at once (1..64)")
      ->check(CLI::Range(1, 64));
  eval_cmd->add_option("--only", eval.only, "Only these incidents (NAME,...)")->delimiter(',');
  eval_cmd->add_option("--min-score", eval.min_score, "Exit 1 below this score (0 to 1)")
      ->check(CLI::Range(0.0, 1.0));
  eval_cmd->add_option("--data-root", eval.data_roots,
                       "A folder incidents may also read from (repeatable); otherwise every "
                       "path of an incident stays inside its folder");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kExitUsage;
  }
  // The server logs JSON lines (no raw controls in them); everything else
  // is read by a person.
  bool serving = serve->parsed() || (demo->parsed() && demo_serve);
  if (!serving) EscapeControlsOnStandardStreams();
  if (ask_cmd->parsed()) return Ask(ask);
  if (serve->parsed()) return Serve(serve_config);
  if (show->parsed()) return RunsShow(runs_config, run_id);
  if (list->parsed()) return RunsList(runs_config, limit);
  if (demo->parsed()) return Demo(demo_json, demo_serve);
  if (eval_cmd->parsed()) return Eval(eval);
  if (check_cmd->parsed()) {
    check.probe_models = !no_model;
    return Check(check);
  }
  return kExitUsage;
}
