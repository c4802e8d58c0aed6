// incident.toml (docs/eval.md) read over a team's configuration: the
// workspace replaces the team's tools, paths resolve against the incident's
// folder, the team's model stays, and every mistake names file, line, key.
#include "config/incident.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace diagd::config {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class IncidentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("diagd-incident-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name()) /
           "slow-query";
    fs::create_directories(dir_);
    auto team = ParseConfig(R"(
language = "en"
now = "2026-01-01T00:00:00Z"
[model]
provider = "openai"
base_url = "http://model.internal:8000/v1"
name = "qwen"
[harness]
max_tool_calls = 7
[tools.logs]
path = "/var/log/team"
[tools.mysql.datasources.prod]
url = "mysql://reader@db.internal/prod"
)",
                            "/etc/diagd", {});
    ASSERT_TRUE(team) << team.error().message;
    team_ = std::move(*team);
  }
  void TearDown() override { fs::remove_all(dir_.parent_path()); }

  Result<Incident> Load(const std::string& text) {
    std::ofstream(dir_ / "incident.toml") << text;
    return LoadIncident(dir_, team_);
  }

  fs::path dir_;
  Config team_;
};

constexpr char kGood[] = R"(
question = "订单服务为什么超时？"
language = "zh"
now = "2026-11-29T10:30:00Z"
[tools.documents]
path = "docs"
[tools.logs]
path = "logs"
default_lookback_minutes = 90
[tools.mysql.datasources.ops]
url = "sqlite:data/ops.db"
[expect]
outcome = "DIAGNOSIS"
root_cause_any = ["慢查询", "Connection pool"]
cause_any = ["INV-882", "缺少索引"]
must_check = ["query_logs", "query_mysql"]
)";

TEST_F(IncidentTest, TheWorkspaceReplacesTheTeamsToolsAndTheModelStays) {
  auto incident = Load(kGood);
  ASSERT_TRUE(incident) << incident.error().message;
  EXPECT_EQ(incident->name, "slow-query");
  EXPECT_EQ(incident->question, "订单服务为什么超时？");
  const Config& config = incident->config;
  EXPECT_EQ(config.language, Language::kZh);
  ASSERT_TRUE(config.now);
  EXPECT_EQ(FormatRfc3339Millis(*config.now), "2026-11-29T10:30:00.000Z");
  EXPECT_EQ(config.tools.documents.path, dir_ / "docs");
  EXPECT_EQ(config.tools.logs.path, dir_ / "logs");
  EXPECT_EQ(config.tools.logs.default_lookback_minutes, 90);
  ASSERT_EQ(config.tools.datasources.size(), 1u) << "the team's prod datasource stays out";
  EXPECT_EQ(config.tools.datasources[0].name, "ops");
  EXPECT_EQ(config.tools.datasources[0].url, "sqlite:" + (dir_ / "data/ops.db").string());
  EXPECT_EQ(config.model.defaults.name, "qwen");
  EXPECT_EQ(config.model.For(ModelComponent::kSemanticGuard).base_url,
            "http://model.internal:8000/v1");
  EXPECT_EQ(config.harness.max_tool_calls, 7);
  EXPECT_EQ(incident->expect.outcome, ExpectedOutcome::kDiagnosis);
  EXPECT_EQ(incident->expect.root_cause_any,
            (std::vector<std::string>{"慢查询", "Connection pool"}));
  EXPECT_EQ(incident->expect.cause_any, (std::vector<std::string>{"INV-882", "缺少索引"}));
  EXPECT_EQ(incident->expect.must_check, (std::vector<std::string>{"query_logs", "query_mysql"}));
  EXPECT_FALSE(incident->expect.fallback_code);
}

TEST_F(IncidentTest, WithoutAClockOfItsOwnAnIncidentUsesNoneOfTheTeams) {
  auto incident = Load(R"(
question = "why?"
[expect]
outcome = "FALLBACK"
fallback_code = "MISSING_REQUIRED_CONTEXT"
)");
  ASSERT_TRUE(incident) << incident.error().message;
  EXPECT_FALSE(incident->config.now);
  EXPECT_EQ(incident->config.language, Language::kEn) << "the team's language by default";
  EXPECT_TRUE(incident->config.tools.datasources.empty());
  EXPECT_EQ(incident->expect.fallback_code, "MISSING_REQUIRED_CONTEXT");
  EXPECT_TRUE(incident->expect.cause_any.empty()) << "no cause to check";
}

TEST_F(IncidentTest, EachMistakeIsNamedWithItsLineAndKey) {
  struct Case {
    const char* text;
    const char* problem;
  };
  for (const Case& c : {
           Case{"[expect]\noutcome = \"FALLBACK\"\n", "incident.toml: question: required"},
           Case{"question = \"q\"\n", "incident.toml: expect: required"},
           Case{"question = \"q\"\n[expect]\noutcome = \"MAYBE\"\n", ":3: expect.outcome"},
           Case{"question = \"q\"\n[expect]\n", "incident.toml: expect.outcome: required"},
           Case{"question = \"q\"\n[expect]\noutcome = \"DIAGNOSIS\"\n",
                "expect.root_cause_any: required when outcome is DIAGNOSIS"},
           Case{"question = \"q\"\n[expect]\noutcome = \"DIAGNOSIS\"\nroot_cause_any = [\"x\"]\n"
                "fallback_code = \"FAILED\"\n",
                "expect.fallback_code: only with outcome FALLBACK"},
           Case{"question = \"q\"\n[expect]\noutcome = \"FALLBACK\"\nmust_check = [\"grep\"]\n",
                "expect.must_check[0]"},
           Case{"question = \"q\"\n[expect]\noutcome = \"DIAGNOSIS\"\nroot_cause_any = [\"x\"]\n"
                "cause_any = [\"INV-1\", \"\"]\n",
                ":5: expect.cause_any[1]: expected text with something other than white space"},
           Case{"question = \"q\"\n[expect]\noutcome = \"DIAGNOSIS\"\nroot_cause_any = [\" \"]\n",
                ":4: expect.root_cause_any[0]: expected text with something other than white"},
           Case{"question = \"q\"\n[expect]\noutcome = \"DIAGNOSIS\"\nroot_cause_any = [\"x\"]\n"
                "cause_any = \"INV-1\"\n",
                "expect.cause_any: expected an array of strings"},
           Case{"question = \"q\"\n[expect]\noutcome = \"DIAGNOSIS\"\nroot_cause_any = [\"x\"]\n"
                "cause_any = []\n",
                "expect.cause_any: at least one phrase"},
           Case{"question = \"q\"\n[expect]\noutcome = \"FALLBACK\"\ncause_any = [\"INV-1\"]\n",
                "expect.cause_any: only with outcome DIAGNOSIS"},
           Case{"question = \"q\"\nquestoin = \"typo\"\n[expect]\noutcome = \"FALLBACK\"\n",
                ":2: questoin: unknown key"},
           Case{"question = \"q\"\n[storage]\nruns = \"sqlite:x.db\"\n[expect]\noutcome = \"FALLBACK\"\n",
                "storage: unknown key"},
           Case{"question = \"q\"\n[tools.logs]\npath = \"logs\"\nmax_lookback_minutes = 30\n"
                "default_lookback_minutes = 60\n[expect]\noutcome = \"FALLBACK\"\n",
                "default_lookback_minutes"},
           Case{"question = \"   \"\n[expect]\noutcome = \"FALLBACK\"\n",
                "question: expected text with something other than white space"},
           Case{"question = \"q\"\n[expect]\noutcome = \"DIAGNOSIS\"\nroot_cause_any = []\n",
                "root_cause_any: at least one phrase"},
           Case{"question = \"q\"\n[expect\n", "incident.toml:2: syntax error"},
       }) {
    auto incident = Load(c.text);
    ASSERT_FALSE(incident) << c.text;
    EXPECT_THAT(incident.error().message, HasSubstr(c.problem)) << c.text;
  }
}

TEST_F(IncidentTest, AnIncidentFileThatIsAFolderOrADeviceIsAClearError) {
  fs::create_directories(dir_ / "folder" / "incident.toml");
  auto folder = LoadIncident(dir_ / "folder", team_);
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(folder.error().message, HasSubstr("incident.toml: is a folder, not a file"));
  fs::create_directories(dir_ / "zero");
  fs::create_symlink("/dev/zero", dir_ / "zero" / "incident.toml");
  auto zero = LoadIncident(dir_ / "zero", team_);
  ASSERT_FALSE(zero);
  EXPECT_THAT(zero.error().message, HasSubstr("is not a regular file"));
}

TEST_F(IncidentTest, AFolderWithoutAnIncidentFileIsNotFound) {
  auto incident = LoadIncident(dir_ / "nothing-here", team_);
  ASSERT_FALSE(incident);
  EXPECT_EQ(incident.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(incident.error().message, HasSubstr("incident.toml"));
}

}  // namespace
}  // namespace diagd::config
