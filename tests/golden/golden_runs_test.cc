// Golden runs: what the model is shown and what the trace records, byte for
// byte, for whole runs through the real tools over the bundled data. The
// files under tests/golden/runs/ were written by this test; a change to any
// observation, trace event or released result shows up as a diff against
// them. A change meant to alter what runs look like rewrites them with
//
//   DIAGD_UPDATE_GOLDEN=1 build/tests/golden/golden_tests
//
// and the diff is reviewed with the change. Two sources of runs:
// - the offline provider on every incident of eval/incidents (the three
//   tools, answers and fallbacks);
// - the real OpenAI-compatible client against the scripted model server
//   (it plays a script; it is no model) on the demo workspace, with a script
//   that breaks the protocol in every way the harness answers: an unknown
//   tool, a missing grade, a bad input, a repeated scope, a write statement.
//
// What varies between two runs of the same input is masked: run and
// conversation ids, times and durations.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/clock.h"
#include "eval/suite.h"
#include "testing/scripted_model_server.h"
#include "wiring/chat_service.h"

namespace diagd {
namespace {

namespace fs = std::filesystem;
using diagd::testing::ScriptedModelServer;
using diagd::testing::ScriptedToolCall;

const fs::path kSource = DIAGD_SOURCE_DIR;
const fs::path kGolden = kSource / "tests" / "golden" / "runs";

// Trace fields whose values differ from one run of the same input to the next.
const std::set<std::string> kVolatileFields = {"duration_ms", "run_id", "conversation_id"};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern = (fs::temp_directory_path() / "diagd-golden-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string Masked(std::string text, const std::string& secret, const std::string& mask) {
  if (secret.empty()) return text;
  for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
    text.replace(at, secret.size(), mask);
    at += mask.size();
  }
  return text;
}

std::string TraceValueText(const harness::TraceValue& value) {
  if (std::holds_alternative<std::nullptr_t>(value)) return "null";
  if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const auto* n = std::get_if<std::int64_t>(&value)) return std::to_string(*n);
  return boost::json::serialize(boost::json::value(std::get<std::string>(value)));
}

// The run as a golden file: its outcome, each trace event, each stored
// observation (exactly as the model was shown it) and the released result.
std::string Describe(const app::RunRecord& run, app::RunStore& store) {
  std::ostringstream out;
  out << "status " << run.status << " / " << run.internal_status << "\n";
  out << "release " << run.release_outcome.value_or("-") << " "
      << run.fallback_code.value_or("-") << " stop " << run.stop_reason.value_or("-") << "\n";
  out << "\n# trace\n";
  std::vector<std::string> call_ids;
  for (const auto& event : run.trace) {
    out << event.seq << " " << harness::TraceEventTypeString(event.type);
    for (const auto& field : event.fields) {
      out << " " << field.key << "=";
      out << (kVolatileFields.count(field.key) ? "*" : TraceValueText(field.value));
    }
    out << "\n";
  }
  out << "\n# observations\n";
  for (const auto& step : run.steps) {
    for (const auto& id : step.tool_call_ids) {
      auto observation = store.GetObservation(run.run_id, id);
      out << id << " ";
      if (!observation) {
        out << "(unreadable: " << observation.error().message << ")\n";
      } else {
        out << observation->value_or("(none stored)") << "\n";
      }
    }
  }
  out << "\n# result\n" << run.result_json << "\n";
  std::string text = Masked(out.str(), run.run_id, "<run>");
  return Masked(std::move(text), run.conversation_id, "<conversation>");
}

// Compares `actual` with the golden file `name`, or rewrites the file when
// DIAGD_UPDATE_GOLDEN is set.
void ExpectGolden(const std::string& name, const std::string& actual) {
  fs::path file = kGolden / (name + ".txt");
  if (std::getenv("DIAGD_UPDATE_GOLDEN") != nullptr) {
    fs::create_directories(kGolden);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(file)) << file << " is missing: run with DIAGD_UPDATE_GOLDEN=1";
  std::string expected = ReadFile(file);
  if (expected == actual) return;
  // The first line that differs, to read in the failure; the whole run is
  // written beside the build for a diff.
  std::istringstream want(expected), got(actual);
  std::string want_line, got_line;
  int line = 0;
  while (true) {
    ++line;
    bool more_want = static_cast<bool>(std::getline(want, want_line));
    bool more_got = static_cast<bool>(std::getline(got, got_line));
    if (!more_want && !more_got) break;
    if (want_line != got_line || more_want != more_got) break;
  }
  fs::path written = fs::temp_directory_path() / ("diagd-golden-" + name + ".txt");
  std::ofstream(written, std::ios::binary | std::ios::trunc) << actual;
  ADD_FAILURE() << name << " differs from " << file << " at line " << line << ":\n  golden: "
                << want_line << "\n  actual: " << got_line << "\nthe whole run: " << written;
}

// One run of `question` under `config`, its store in a scratch folder.
std::string RunAndDescribe(config::Config config, const std::string& question,
                           std::optional<app::Route> route) {
  ScratchFolder scratch;
  config.storage.runs = "sqlite:" + (scratch.path() / "runs.db").string();
  config.storage.canonical = "memory:";
  config.tools.documents.cache_path = scratch.path() / "cache";
  auto service = wiring::OpenChatService(config, SystemClock::Instance());
  if (!service) return "cannot open the service: " + service.error().message;
  auto result = (*service)->chat->Handle({question, std::nullopt, route, {}}, nullptr);
  if (!result) return "the run failed: " + result.error().message;
  auto record = (*service)->runs->GetRun(result->run_id);
  if (!record || !record->has_value()) return "the run was not stored";
  return Describe(**record, *(*service)->runs);
}

TEST(GoldenRunsTest, TheOfflineProviderOnTheBundledSuite) {
  auto base = config::ParseConfig("[model]\nprovider = \"offline\"\n", kSource, {});
  ASSERT_TRUE(base) << base.error().message;
  fs::path suite_dir = kSource / "eval" / "incidents";
  auto suite = eval::LoadSuite(suite_dir, *base, {});
  ASSERT_TRUE(suite) << suite.error().message;
  ASSERT_GE(suite->incidents.size(), 20u);
  for (const auto& incident : suite->incidents) {
    SCOPED_TRACE(incident.name);
    ExpectGolden("offline-" + incident.name,
                 RunAndDescribe(incident.config, incident.question, std::nullopt));
  }
}

std::string Envelope(const std::string& input, const std::string& previous = "") {
  std::string grade = previous.empty() ? "" : R"("previous_observation":{"tool_call_id":")" +
                                                  previous + R"(","information_gain":"GAINED"},)";
  return "{" + grade + R"("input":)" + input + "}";
}

TEST(GoldenRunsTest, EveryProtocolAnswerOfTheHarnessOverTheWire) {
  ScriptedModelServer model;
  const std::string logs = R"({"topic":"payment-service","query":"HikariPool"})";
  model
      .CallTools({{"call_1", "search_documents", Envelope(R"({"query":"连接池 耗尽"})"), false}})
      // No grade of call_1: a protocol violation, answered with a repair.
      .CallTools({{"call_2", "query_logs", Envelope(logs), false}})
      .CallTools({{"call_3", "query_logs", Envelope(logs, "call_1"), false}})
      // The same scope again: NO_GAIN by the harness, DUPLICATE_SCOPE.
      .CallTools({{"call_4", "query_logs", Envelope(logs, "call_3"), false}})
      // A write statement: the tool's own input rules refuse it.
      .CallTools({{"call_5", "query_mysql",
                   Envelope(R"({"datasource":"orders","sql":"DELETE FROM payments"})"), false}})
      .CallTools({{"call_6", "query_mysql",
                   Envelope(R"({"datasource":"orders","sql":"SELECT service, version, )"
                            R"(deployed_at FROM deployments ORDER BY deployed_at"})"),
                   false}})
      // A tool that does not exist, then the draft.
      .CallTools({{"call_7", "restart_service", Envelope(R"({"service":"payment"})", "call_6"),
                   false}})
      .Answer(R"({"conclusion":{"root_cause":"payment-service 的数据库连接池耗尽，)"
              R"(订单服务调用支付超时","confidence":"MEDIUM","evidence":[)"
              R"({"tool_call_id":"call_3","quote":"HikariPool-1 - Connection is not available"}]},)"
              R"("findings":[],"next_steps":["检查 payment-db 慢查询"]})")
      .Answer(R"({"verdict":"SUPPORTED"})");
  auto config = config::LoadConfigFile(kSource / "examples" / "demo" / "diagd.toml", {});
  ASSERT_TRUE(config) << config.error().message;
  config->model.defaults.provider = config::ModelProvider::kOpenAi;
  config->model.defaults.base_url = model.BaseUrl();
  config->model.defaults.name = "scripted";
  for (auto component : config::kAllModelComponents) {
    config->model.per_component[component] = config->model.defaults;
  }
  std::string run = RunAndDescribe(*config, "支付服务从 10 点左右开始大量返回 500，为什么？",
                                   app::Route::kDiagnosis);
  // What the provider was sent: every tool message of the last agent turn
  // (it carries the whole history), in order. The stored observations are
  // in the run's description; each must be the very bytes that were sent.
  std::ostringstream shown;
  shown << "\n# tool messages of the last agent request (rejections; executed calls above)\n";
  auto requests = model.Requests();
  auto last_agent = std::find_if(requests.rbegin(), requests.rend(), [](const auto& request) {
    return request.headers.at("x-diagd-component") == "DIAGNOSIS_AGENT";
  });
  ASSERT_NE(last_agent, requests.rend());
  for (const auto& message : last_agent->json.at("messages").as_array()) {
    if (message.at("role") != "tool") continue;
    std::string id(message.at("tool_call_id").as_string());
    std::string content(message.at("content").as_string());
    std::string stored = id + " " + content + "\n";
    if (run.find(stored) != std::string::npos) continue;
    shown << stored;
  }
  ExpectGolden("scripted-protocol", run + shown.str());
}

}  // namespace
}  // namespace diagd
