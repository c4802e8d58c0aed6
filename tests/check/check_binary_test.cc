// The diagd binary's `check` command end to end: exit statuses (0 all well,
// 1 a problem, 2 a bad config), exactly one JSON document on stdout with
// --json, a table without it, progress on stderr, and no API key in any
// output. The model is the scripted model server (it plays scripted
// bodies; it is no model).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "check/check_workspace.h"
#include "testing/scripted_model_server.h"

namespace diagd::check {
namespace {

namespace fs = std::filesystem;
using testing::CheckWorkspace;
using testing::OpenAiModelToml;

constexpr const char* kKey = "sk-binary-check-2b7e41";

struct Invocation {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

class CheckBinaryTest : public ::testing::Test {
 protected:
  Invocation Run(std::vector<std::string> args) {
    std::string command =
        "env -u DIAGD_MODEL_API_KEY -u DIAGD_MODEL_NAME -u DIAGD_MODEL_BASE_URL "
        "-u DIAGD_MODEL_PROVIDER -u DIAGD_CONFIG " +
        std::string(DIAGD_BINARY) + " check";
    for (const auto& arg : args) command += " " + Quote(arg);
    fs::path out = workspace_.dir() / "out", err = workspace_.dir() / "err";
    command += " >" + Quote(out.string()) + " 2>" + Quote(err.string());
    Invocation result;
    int status = std::system(command.c_str());
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = ReadFile(out);
    result.err = ReadFile(err);
    return result;
  }
  std::string config() const { return workspace_.config_file().string(); }

  CheckWorkspace workspace_;
  diagd::testing::ScriptedModelServer server_;
};

TEST_F(CheckBinaryTest, AllWellExitsZeroWithExactlyOneJsonDocument) {
  workspace_.WriteConfig({.tables = OpenAiModelToml(server_.BaseUrl())});
  auto run = Run({"--config", config(), "--json", "--no-model"});
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  boost::json::value document = boost::json::parse(run.out);  // throws on a second document
  EXPECT_EQ(document.at("ok"), true);
  EXPECT_GE(document.at("checks").as_array().size(), 5u);
  EXPECT_NE(run.err.find("checking documents: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("checking datasource: orders"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("all well"), std::string::npos) << run.err;
  EXPECT_TRUE(server_.Requests().empty()) << "--no-model sends nothing";
}

TEST_F(CheckBinaryTest, AProblemExitsOneAndTheKeyIsInNoOutput) {
  server_.AnswerRaw(401, "application/json",
                    std::string(R"({"error":{"message":"Incorrect API key provided: )") + kKey +
                        R"(","type":"invalid_request_error","code":"invalid_api_key"}})");
  workspace_.WriteConfig({.tables = OpenAiModelToml(server_.BaseUrl(), "gpt-4o-mini", kKey)});
  auto run = Run({"--config", config(), "--json"});
  ASSERT_EQ(run.exit_code, 1) << run.err << run.out;
  auto document = boost::json::parse(run.out).as_object();
  EXPECT_EQ(document.at("ok"), false);
  const auto& last = document.at("checks").as_array().back();
  EXPECT_EQ(last.at("part"), "model");
  EXPECT_EQ(last.at("ok"), false);
  EXPECT_EQ(last.at("advice"),
            "the endpoint refused the API key: set model.api_key or DIAGD_MODEL_API_KEY to a "
            "valid key");
  EXPECT_EQ(run.out.find(kKey), std::string::npos);
  EXPECT_EQ(run.err.find(kKey), std::string::npos);
  EXPECT_NE(run.err.find("1 problem found"), std::string::npos) << run.err;
}

TEST_F(CheckBinaryTest, ABadConfigExitsTwoNamingTheKey) {
  workspace_.WriteConfig({.tables = "[harness]\nmax_tool_calls = -1\n"});
  auto run = Run({"--config", config(), "--json"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("harness.max_tool_calls"), std::string::npos) << run.err;
  EXPECT_EQ(run.out, "") << "nothing on stdout for a config error";

  auto missing = Run({"--config", (workspace_.dir() / "none.toml").string()});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
}

TEST_F(CheckBinaryTest, WithoutJsonTheReportIsATable) {
  workspace_.WriteConfig({.tables = "[model]\nprovider = \"offline\"\n"});
  auto run = Run({"--config", config()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("PART", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("ADVICE"), std::string::npos);
  EXPECT_NE(run.out.find("offline provider, nothing to check"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("datasource  orders"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace diagd::check
