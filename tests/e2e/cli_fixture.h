// What the end-to-end tests of the diagd binary share: a temporary folder
// with a config over the demo workspace's real tools, the run store in that
// folder, and the real OpenAI-compatible client pointed at the scripted
// model server (it plays scripted turns; it is no model). `Run` executes the
// built binary and captures its exit code, stdout and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "testing/scripted_model_server.h"

namespace diagd::e2e {

namespace fs = std::filesystem;
using testing::ScriptedModelServer;
using testing::ScriptedToolCall;

struct Invocation {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string Quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Runs the built diagd binary with `args`; its stdout and stderr pass
// through files in `dir`.
inline Invocation RunDiagd(const std::vector<std::string>& args, const fs::path& dir) {
  std::string command = std::string(DIAGD_BINARY);
  // Appended piece by piece: a short literal + std::string is a false
  // -Wrestrict on GCC 12 at -O3.
  for (const auto& arg : args) {
    command += ' ';
    command += Quote(arg);
  }
  command += " >";
  command += Quote((dir / "out").string());
  command += " 2>";
  command += Quote((dir / "err").string());
  Invocation result;
  int status = std::system(command.c_str());
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFile(dir / "out");
  result.err = ReadFile(dir / "err");
  return result;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A parameterised test's name is "Name/Param": one folder, not a folder
    // in a folder that TearDown's remove_all would leave behind.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '-');
    dir_ = fs::temp_directory_path() / ("diagd-e2e-" + std::to_string(::getpid()) + "-" + name);
    fs::create_directories(dir_);
    WriteConfig("");
  }
  void TearDown() override {
    // Every stored run of every test: RUN_FINISHED totals equal the sum of
    // its MODEL_CALL events, and its user result holds nothing internal.
    if (fs::exists(dir_ / "runs.db")) {
      auto list = Run({"runs", "list", "--config", (dir_ / "diagd.toml").string(), "--limit", "200"});
      std::istringstream lines(list.out);
      std::string line;
      std::getline(lines, line);  // header
      while (std::getline(lines, line)) {
        std::string run_id = line.substr(0, line.find(' '));
        auto record = RunRecord(run_id);
        ExpectTokensReconcile(record);
        ExpectNothingForbidden(boost::json::serialize(record.at("result")));
      }
    }
    fs::remove_all(dir_);
  }

  void WriteConfig(const std::string& extra) {
    std::string demo = std::string(DIAGD_SOURCE_DIR) + "/examples/demo";
    std::ofstream(dir_ / "diagd.toml")
        << "now = \"2026-11-29T10:30:00Z\"\n"
        << extra << "[storage]\nruns = \"sqlite:" << (dir_ / "runs.db").string() << "\"\n"
        << "[model]\nprovider = \"openai\"\nbase_url = \"" << server_.BaseUrl() << "\"\n"
        << "name = \"scripted\"\ntimeout_seconds = 5\n"
        << "[tools.documents]\npath = \"" << demo << "/docs\"\ncache_path = \""
        << (dir_ / "cache").string() << "\"\n"
        << "[tools.logs]\npath = \"" << demo << "/logs\"\n"
        << "[tools.mysql.datasources.orders]\nurl = \"sqlite:" << demo << "/data/orders.db\"\n";
  }

  Invocation Run(const std::vector<std::string>& args) { return RunDiagd(args, dir_); }

  Invocation Ask(const std::string& question, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"ask", "--config", (dir_ / "diagd.toml").string(), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(question);
    return Run(args);
  }

  boost::json::object RunRecord(const std::string& run_id) {
    auto shown = Run({"runs", "show", run_id, "--config", (dir_ / "diagd.toml").string()});
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    return boost::json::parse(shown.out).as_object();
  }

  // RUN_FINISHED totals equal the sum of the MODEL_CALL events.
  void ExpectTokensReconcile(const boost::json::object& record) {
    std::int64_t sum = 0, calls = 0;
    const boost::json::object* finished = nullptr;
    for (const auto& event : record.at("trace").as_array()) {
      const auto& type = event.at("type").as_string();
      const auto& fields = event.at("fields").as_object();
      if (type == "MODEL_CALL") {
        ++calls;
        if (fields.contains("total_tokens")) sum += fields.at("total_tokens").as_int64();
      }
      if (type == "RUN_FINISHED") finished = &fields;
    }
    ASSERT_NE(finished, nullptr);
    EXPECT_EQ(finished->at("audited_total_tokens").as_int64(), sum);
    EXPECT_EQ(finished->at("budget_total_tokens").as_int64(), sum);
    EXPECT_EQ(finished->at("audited_calls").as_int64(), calls);
    EXPECT_EQ(record.at("total_token_count").as_int64(), sum);
  }

  // Nothing internal reaches a user or the stored user result.
  static void ExpectNothingForbidden(const std::string& text) {
    for (const char* word : {"INFORMATION_SATURATED", "PROGRESS_PROTOCOL_VIOLATED",
                             "BUDGET_LIMIT_REACHED", "consecutive", "threshold", "budget",
                             "score", "returned_count", "raw_response", "stop_required"}) {
      EXPECT_EQ(text.find(word), std::string::npos) << word << " leaked into:\n" << text;
    }
  }

  fs::path dir_;
  ScriptedModelServer server_;
};

}  // namespace diagd::e2e
