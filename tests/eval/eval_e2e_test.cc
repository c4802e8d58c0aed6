// `diagd eval` (docs/eval.md) through the binary: suites of incidents
// over the demo workspace's real tools, the real model client against the
// scripted model server (it plays a diagnosis script; it is no model). Each
// path is scored as docs/eval.md says: a right, a shallow and a wrong
// diagnosis, a dishonest one, a fallback where one was expected and where a
// diagnosis was, a model that cannot be reached, a run out of time; then
// the JSON document, the table, the HTML report, --min-score and the usage
// errors.
#include <gmock/gmock.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <thread>

#include "e2e/cli_fixture.h"
#include "testing/free_port.h"
#include "testing/scripted_diagnosis.h"

namespace diagd::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ScriptedAnswer;
using testing::ScriptedReply;

// The scripted diagnosis's root cause is "payment-service 数据库连接池耗尽",
// citing the payment-service log's Hikari line; one query_logs call, four
// model calls of 120 tokens each (router, two agent turns, semantic guard).
constexpr int kScriptedModelCalls = 4;
constexpr int kScriptedTokens = 4 * 120;

// As ScriptedDiagnosis, but the semantic guard finds the conclusion
// unsupported: the release falls back from the verified facts.
ScriptedModelServer::Responder GuardRefuses() {
  auto diagnosis = testing::ScriptedDiagnosis(1, std::chrono::milliseconds(0));
  return [diagnosis](const ScriptedModelServer::RecordedRequest& request) {
    auto component = request.headers.find("x-diagd-component");
    if (component != request.headers.end() && component->second == "SEMANTIC_GUARD") {
      return ScriptedReply{ScriptedAnswer{R"({"verdict":"UNSUPPORTED"})"}, {}};
    }
    return diagnosis(request);
  };
}

class EvalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("diagd-eval-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "suite");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // An incident over the demo workspace (absolute paths) with `expect`, the
  // body of its [expect] table.
  void Incident(const std::string& name, const std::string& question, const std::string& expect) {
    std::string demo = std::string(DIAGD_SOURCE_DIR) + "/examples/demo";
    fs::create_directories(dir_ / "suite" / name);
    std::ofstream(dir_ / "suite" / name / "incident.toml")
        << "question = " << boost::json::serialize(boost::json::string(question)) << "\n"
        << "language = \"zh\"\nnow = \"2026-11-29T10:30:00Z\"\n"
        << "[tools.documents]\npath = \"" << demo << "/docs\"\n"
        << "[tools.logs]\npath = \"" << demo << "/logs\"\n"
        << "[tools.mysql.datasources.orders]\nurl = \"sqlite:" << demo << "/data/orders.db\"\n"
        << "[expect]\n"
        << expect;
  }

  // The team's configuration: the model at `base_url`, and `extra`.
  std::string TeamConfig(const std::string& base_url, const std::string& extra = "") {
    fs::path file = dir_ / "team.toml";
    std::ofstream(file) << "[model]\nprovider = \"openai\"\nbase_url = \"" << base_url
                        << "\"\nname = \"scripted\"\ntimeout_seconds = 10\nmax_attempts = 1\n"
                        << extra;
    return file.string();
  }

  // `diagd eval ARGS`, the demo workspace (which Incident() points at)
  // allowed as a data root.
  Invocation Eval(std::vector<std::string> args) {
    args.insert(args.end(), {"--data-root", std::string(DIAGD_SOURCE_DIR) + "/examples/demo"});
    return EvalAsGiven(std::move(args));
  }
  Invocation EvalAsGiven(std::vector<std::string> args) {
    args.insert(args.begin(), "eval");
    return RunDiagd(args, dir_);
  }

  // --json's incidents by name, and its totals.
  struct Document {
    std::map<std::string, boost::json::object> incidents;
    boost::json::object totals;
    boost::json::object whole;
  };
  static Document Parse(const Invocation& run) {
    Document document;
    boost::system::error_code error;
    auto value = boost::json::parse(run.out, error);
    EXPECT_FALSE(error) << "stdout is one JSON document:\n" << run.out << "\nstderr:\n" << run.err;
    if (error || !value.is_object()) return document;
    document.whole = value.as_object();
    for (const auto& incident : document.whole.at("incidents").as_array()) {
      document.incidents[std::string(incident.at("name").as_string())] = incident.as_object();
    }
    document.totals = document.whole.at("totals").as_object();
    return document;
  }

  fs::path dir_;
};

TEST_F(EvalTest, RightShallowWrongUncheckedAndDishonestDiagnosesAreScoredAndTotalled) {
  ScriptedModelServer model(testing::ScriptedDiagnosis(1, std::chrono::milliseconds(0)));
  Incident("right", "支付为什么失败？",
           "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"磁盘满\", \"连接池耗尽\"]\n"
           "must_check = [\"query_logs\"]\n");
  Incident("wrong", "支付为什么失败？",
           "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"证书过期\"]\n");
  Incident("shallow", "支付为什么失败？",
           "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"连接池耗尽\"]\n"
           "cause_any = [\"PAY-1234\", \"慢查询\"]\n");
  Incident("unchecked", "支付为什么失败？",
           "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"连接池\"]\nmust_check = [\"query_mysql\"]\n");
  // No Latin name in it: the subject check is skipped, the scripted
  // diagnosis is released where a fallback was expected.
  Incident("unanswerable", "推荐服务昨晚为什么 OOM？", "outcome = \"FALLBACK\"\n");
  std::string team = TeamConfig(model.BaseUrl());

  auto run = Eval({(dir_ / "suite").string(), "--config", team, "--json", "--jobs", "3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Document document = Parse(run);
  EXPECT_EQ(document.whole.at("suite"), "suite");
  EXPECT_EQ(document.whole.at("model"), "scripted");
  ASSERT_EQ(document.incidents.size(), 5u);

  const auto& right = document.incidents["right"];
  EXPECT_EQ(right.at("expected_outcome"), "DIAGNOSIS");
  EXPECT_EQ(right.at("outcome"), "DIAGNOSIS");
  EXPECT_TRUE(right.at("fallback_code").is_null());
  EXPECT_EQ(right.at("outcome_right"), true);
  EXPECT_EQ(right.at("root_cause_right"), true);
  EXPECT_EQ(right.at("honest"), true);
  EXPECT_EQ(right.at("verdict"), "RIGHT");
  EXPECT_TRUE(right.at("cause_right").is_null()) << "no cause_any";
  EXPECT_EQ(right.at("tool_calls"), 1);
  EXPECT_EQ(right.at("model_calls"), kScriptedModelCalls);
  EXPECT_EQ(right.at("total_tokens"), kScriptedTokens);
  EXPECT_EQ(right.at("question"), "支付为什么失败？");
  EXPECT_EQ(right.at("run_id").as_string().size(), 32u);
  EXPECT_GT(right.at("wall_ms").as_int64(), 0);

  const auto& wrong = document.incidents["wrong"];
  EXPECT_EQ(wrong.at("outcome_right"), true) << "a diagnosis, as expected";
  EXPECT_EQ(wrong.at("root_cause_right"), false);
  EXPECT_EQ(wrong.at("verdict"), "WRONG");

  const auto& shallow = document.incidents["shallow"];
  EXPECT_EQ(shallow.at("outcome_right"), true);
  EXPECT_EQ(shallow.at("root_cause_right"), true) << "the mechanism is named";
  EXPECT_EQ(shallow.at("cause_right"), false) << "what caused it is not";
  EXPECT_EQ(shallow.at("verdict"), "SHALLOW");

  const auto& unchecked = document.incidents["unchecked"];
  EXPECT_EQ(unchecked.at("outcome_right"), false) << "it never queried the database";
  EXPECT_EQ(unchecked.at("root_cause_right"), true);
  EXPECT_EQ(unchecked.at("missing_checks"), boost::json::array{"query_mysql"});
  EXPECT_EQ(unchecked.at("verdict"), "WRONG");

  const auto& dishonest = document.incidents["unanswerable"];
  EXPECT_EQ(dishonest.at("outcome"), "DIAGNOSIS");
  EXPECT_EQ(dishonest.at("outcome_right"), false);
  EXPECT_TRUE(dishonest.at("root_cause_right").is_null()) << "no diagnosis was expected";
  EXPECT_EQ(dishonest.at("honest"), false);
  EXPECT_EQ(dishonest.at("verdict"), "DISHONEST");

  const auto& totals = document.totals;
  EXPECT_EQ(totals.at("incidents"), 5);
  EXPECT_EQ(totals.at("outcome_right"), 3);
  EXPECT_EQ(totals.at("root_cause_right"), 3);
  EXPECT_EQ(totals.at("honest"), 4);
  EXPECT_DOUBLE_EQ(totals.at("score").to_number<double>(), 0.2) << "a shallow diagnosis scores 0";
  EXPECT_EQ(totals.at("right"), 1);
  EXPECT_EQ(totals.at("shallow"), 1);
  EXPECT_EQ(totals.at("wrong"), 2);
  EXPECT_EQ(totals.at("honest_fallback"), 0);
  EXPECT_EQ(totals.at("dishonest"), 1);
  EXPECT_EQ(totals.at("failed"), 0);
  EXPECT_EQ(totals.at("total_tokens"), 5 * kScriptedTokens);
  EXPECT_EQ(model.Requests().size(), 5u * kScriptedModelCalls);

  // Progress: a line per incident on stderr, with its verdict.
  for (const char* line : {"] right  RIGHT  DIAGNOSIS", "] wrong  WRONG", "] shallow  SHALLOW",
                           "] unanswerable  DISHONEST"}) {
    EXPECT_THAT(run.err, HasSubstr(line));
  }
  EXPECT_THAT(run.err, HasSubstr("[5/5] "));
}

TEST_F(EvalTest, AFallbackIsRightWhereOneWasExpectedAndOnlyHonestWhereADiagnosisWas) {
  ScriptedModelServer model(GuardRefuses());
  Incident("expected-fallback", "user-service 昨晚为什么 OOM？",
           "outcome = \"FALLBACK\"\nfallback_code = \"INSUFFICIENT_EVIDENCE\"\n");
  Incident("missed-diagnosis", "支付为什么失败？",
           "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"连接池\"]\n");
  auto run = Eval({(dir_ / "suite").string(), "--config", TeamConfig(model.BaseUrl()), "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Document document = Parse(run);
  const auto& expected = document.incidents["expected-fallback"];
  EXPECT_EQ(expected.at("outcome"), "FALLBACK");
  EXPECT_EQ(expected.at("fallback_code"), "INSUFFICIENT_EVIDENCE");
  EXPECT_EQ(expected.at("outcome_right"), true);
  EXPECT_EQ(expected.at("honest"), true);
  EXPECT_EQ(expected.at("verdict"), "RIGHT") << "the fallback that was expected";
  const auto& missed = document.incidents["missed-diagnosis"];
  EXPECT_EQ(missed.at("outcome_right"), false);
  EXPECT_EQ(missed.at("root_cause_right"), false);
  EXPECT_EQ(missed.at("honest"), true);
  EXPECT_EQ(missed.at("verdict"), "HONEST_FALLBACK");
  EXPECT_DOUBLE_EQ(document.totals.at("score").to_number<double>(), 0.5);
  EXPECT_EQ(document.totals.at("right"), 1);
  EXPECT_EQ(document.totals.at("honest_fallback"), 1);
}

TEST_F(EvalTest, AModelThatCannotBeReachedFailsEveryIncidentAndNeverScoresByAccident) {
  Incident("a-fallback-expected", "user-service 昨晚为什么 OOM？", "outcome = \"FALLBACK\"\n");
  Incident("a-failure-expected", "user-service 昨晚为什么 OOM？",
           "outcome = \"FALLBACK\"\nfallback_code = \"FAILED\"\n");
  std::string dead = "http://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort()) + "/v1";
  auto run = Eval({(dir_ / "suite").string(), "--config", TeamConfig(dead), "--json"});
  ASSERT_EQ(run.exit_code, 0) << "it ran: " << run.err;
  Document document = Parse(run);
  const auto& fallback = document.incidents["a-fallback-expected"];
  EXPECT_EQ(fallback.at("outcome"), "FALLBACK");
  EXPECT_EQ(fallback.at("fallback_code"), "FAILED");
  EXPECT_EQ(fallback.at("outcome_right"), false) << "a FAILED fallback is no honest one";
  EXPECT_EQ(fallback.at("verdict"), "FAILED");
  EXPECT_EQ(fallback.at("failure_reason"), "MODEL_UNREACHABLE");
  EXPECT_EQ(document.incidents["a-failure-expected"].at("outcome_right"), true);
  EXPECT_EQ(document.totals.at("failed"), 1);
  EXPECT_THAT(run.err, HasSubstr("(MODEL_UNREACHABLE)"));
}

// The release falls back on the time budget (release rule 3, docs/specs/release.md), but the
// run measured nothing: failed, for a fallback expected too.
TEST_F(EvalTest, ARunOutOfTimeIsFailedWithRunTimeoutWhateverWasExpected) {
  ScriptedModelServer model([](const ScriptedModelServer::RecordedRequest&) {
    return ScriptedReply{ScriptedAnswer{R"({"route":"DIAGNOSIS"})"}, std::chrono::seconds(30)};
  });
  Incident("slow", "支付为什么失败？", "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"连接池\"]\n");
  Incident("slow-fallback", "user-service 昨晚为什么 OOM？", "outcome = \"FALLBACK\"\n");
  auto run = Eval({(dir_ / "suite").string(), "--config",
                   TeamConfig(model.BaseUrl(), "[harness]\nmax_run_seconds = 2\n"), "--json",
                   "--jobs", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Document document = Parse(run);
  const auto& slow = document.incidents["slow"];
  EXPECT_EQ(slow.at("verdict"), "FAILED");
  EXPECT_EQ(slow.at("failure_reason"), "RUN_TIMEOUT");
  EXPECT_EQ(slow.at("root_cause_right"), false);
  EXPECT_EQ(slow.at("outcome"), "FALLBACK");
  const auto& fallback = document.incidents["slow-fallback"];
  EXPECT_EQ(fallback.at("outcome_right"), false) << "no model answered: nothing was measured";
  EXPECT_EQ(fallback.at("verdict"), "FAILED");
  EXPECT_DOUBLE_EQ(document.totals.at("score").to_number<double>(), 0.0);
  EXPECT_EQ(document.totals.at("failed"), 2);
}

TEST_F(EvalTest, TheTableTheReportAndMinScore) {
  ScriptedModelServer model(testing::ScriptedDiagnosis(1, std::chrono::milliseconds(0)));
  Incident("pool", "<script>alert(1)</script> 支付为什么失败？",
           "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"连接池\"]\n");
  Incident("oom", "推荐服务昨晚为什么 OOM？", "outcome = \"FALLBACK\"\n");
  std::string team = TeamConfig(model.BaseUrl());
  fs::path report = dir_ / "report.html";
  std::ofstream(report) << "an earlier report";

  auto run = Eval({(dir_ / "suite").string(), "--config", team, "--report", report.string(),
                   "--min-score", "0.5"});
  // Written beside it and renamed over it once whole.
  EXPECT_FALSE(fs::exists(report.string() + ".partial"));
  EXPECT_EQ(run.exit_code, 0) << "0.5 reached: " << run.err;
  EXPECT_THAT(run.out, HasSubstr("pool"));
  EXPECT_THAT(run.out, HasSubstr("1 released and right, 0 released and wrong (0 shallow), "
                                 "0 honest fallback, 1 dishonest diagnosis, 0 failed"));
  EXPECT_THAT(run.out, HasSubstr("score 0.50"));
  EXPECT_THAT(run.out, ::testing::ContainsRegex("oom +FALLBACK +DIAGNOSIS +DISHONEST +no "));
  EXPECT_THAT(run.out, ::testing::ContainsRegex("pool +DIAGNOSIS +DIAGNOSIS +RIGHT +yes "));

  std::string html = ReadFile(report);
  EXPECT_THAT(html, HasSubstr("<!doctype html>"));
  EXPECT_THAT(html, HasSubstr("id=\"incident-pool\""));
  EXPECT_THAT(html, HasSubstr("id=\"incident-oom\""));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt; 支付为什么失败？"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, HasSubstr("payment-service 数据库连接池耗尽")) << "the root cause";
  EXPECT_THAT(html, HasSubstr(testing::kScriptedDiagnosisQuote)) << "the verified quote";
  EXPECT_THAT(html, HasSubstr("<svg")) << "the timeline";
  EXPECT_THAT(html, HasSubstr("query_logs"));
  EXPECT_THAT(html, HasSubstr("DISHONEST"));
  for (const char* outside : {"http://", "https://", "src=", "<link", "@import", "url("}) {
    EXPECT_THAT(html, Not(HasSubstr(outside))) << "no external asset: " << outside;
  }

  auto below = Eval({(dir_ / "suite").string(), "--config", team, "--min-score", "0.75"});
  EXPECT_EQ(below.exit_code, 1);
  EXPECT_THAT(below.err, HasSubstr("below --min-score"));
  auto only = Eval({(dir_ / "suite").string(), "--config", team, "--only", "pool", "--min-score",
                    "1"});
  EXPECT_EQ(only.exit_code, 0) << only.err;
}

// A suite over ../shared/data on a clone without it: each incident whose
// workspace is absent is named and skipped, and the rest run.
TEST_F(EvalTest, AnIncidentWhoseWorkspaceIsAbsentIsSkippedAndNamed) {
  ScriptedModelServer model(testing::ScriptedDiagnosis(1, std::chrono::milliseconds(0)));
  Incident("present", "支付为什么失败？", "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"连接池\"]\n");
  fs::create_directories(dir_ / "suite" / "absent");
  std::ofstream(dir_ / "suite" / "absent" / "incident.toml")
      << "question = \"why?\"\n[tools.logs]\npath = \"../../no-such-data/logs\"\n"
      << "[tools.documents]\npath = \"" << DIAGD_SOURCE_DIR << "/examples/demo/docs\"\n"
      << "[expect]\noutcome = \"FALLBACK\"\n";
  std::string team = TeamConfig(model.BaseUrl());
  auto run = Eval({(dir_ / "suite").string(), "--config", team, "--json", "--data-root",
                   dir_.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Document document = Parse(run);
  EXPECT_EQ(document.incidents.size(), 1u);
  EXPECT_EQ(document.totals.at("incidents"), 1);
  const auto& skipped = document.whole.at("skipped").as_array();
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].at("name"), "absent");
  EXPECT_THAT(std::string(skipped[0].at("reason").as_string()),
              HasSubstr("no-such-data/logs does not exist"));
  EXPECT_THAT(run.err, HasSubstr("skipped absent: [tools.logs] path"));

  auto only_absent = Eval({(dir_ / "suite").string(), "--config", team, "--only", "absent",
                           "--data-root", dir_.string()});
  EXPECT_EQ(only_absent.exit_code, 0) << "nothing to run is no error";
  EXPECT_THAT(only_absent.out, HasSubstr("0 incidents"));
  EXPECT_THAT(only_absent.out, HasSubstr("1 skipped"));
}

TEST_F(EvalTest, UsageErrorsAreExitTwoAndCostNoModelCall) {
  ScriptedModelServer model(testing::ScriptedDiagnosis(1, std::chrono::milliseconds(0)));
  Incident("fine", "支付为什么失败？", "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"连接池\"]\n");
  std::string team = TeamConfig(model.BaseUrl());
  std::string suite = (dir_ / "suite").string();

  auto missing = Eval({(dir_ / "nothing").string(), "--config", team});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("not a folder"));
  auto unknown = Eval({suite, "--config", team, "--only", "fine,nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("no incident nope"));
  auto score = Eval({suite, "--config", team, "--min-score", "1.5"});
  EXPECT_EQ(score.exit_code, 2);
  auto nan = Eval({suite, "--config", team, "--min-score", "nan"});
  EXPECT_EQ(nan.exit_code, 2);
  EXPECT_THAT(nan.err, HasSubstr("--min-score: expected a number from 0 to 1"));
  auto report = Eval({suite, "--config", team, "--report", (dir_ / "no/such/dir.html").string()});
  EXPECT_EQ(report.exit_code, 2);
  EXPECT_THAT(report.err, HasSubstr("cannot be written"));

  Incident("broken", "q", "outcome = \"DIAGNOSES\"\n");
  auto broken = Eval({suite, "--config", team});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_THAT(broken.err, HasSubstr("broken/incident.toml:"));
  EXPECT_THAT(broken.err, HasSubstr("expect.outcome"));
  EXPECT_TRUE(model.Requests().empty()) << "nothing ran";
}

// An escape sequence in a folder's name reaches the table and the progress
// lines as visible text, never as a raw control for the terminal.
TEST_F(EvalTest, AnEscapeSequenceInAFolderNameIsPrintedAsText) {
  ScriptedModelServer model(testing::ScriptedDiagnosis(1, std::chrono::milliseconds(0)));
  Incident("bad\x1b[31mred", "支付为什么失败？", "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"连接池\"]\n");
  auto run = Eval({(dir_ / "suite").string(), "--config", TeamConfig(model.BaseUrl())});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos);
  EXPECT_THAT(run.out, HasSubstr("bad\\x1B[31mred"));
  EXPECT_THAT(run.err, HasSubstr("bad\\x1B[31mred"));
}

// Files that are no files: an incident.toml that is a folder, a --config
// that is a FIFO (a read would wait forever) or /dev/zero (it would never
// end). Each is exit 2 with a message, at once; nothing runs.
TEST_F(EvalTest, AFolderAFifoOrADeviceForAFileIsExitTwoNotACrashOrAHang) {
  ScriptedModelServer model(testing::ScriptedDiagnosis(1, std::chrono::milliseconds(0)));
  std::string team = TeamConfig(model.BaseUrl());
  fs::create_directories(dir_ / "suite" / "folder" / "incident.toml");
  auto folder = Eval({(dir_ / "suite").string(), "--config", team});
  EXPECT_EQ(folder.exit_code, 2) << folder.err;
  EXPECT_THAT(folder.err, HasSubstr("incident.toml: is a folder, not a file"));
  fs::path fifo = dir_ / "team.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Incident("fine", "支付为什么失败？", "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"连接池\"]\n");
  fs::remove_all(dir_ / "suite" / "folder");
  for (const std::string& config : {fifo.string(), std::string("/dev/zero")}) {
    auto run = Eval({(dir_ / "suite").string(), "--config", config});
    EXPECT_EQ(run.exit_code, 2) << config << ": " << run.err;
    EXPECT_THAT(run.err, HasSubstr("is not a regular file")) << config;
  }
  EXPECT_TRUE(model.Requests().empty()) << "nothing ran";
}

// A suite from someone else must not read this machine's files: a path
// that leaves the incident's folder, by "..", an absolute path or a
// symlink, is refused before any run unless --data-root allows its folder.
TEST_F(EvalTest, AnIncidentThatReadsOutsideItsFolderIsRefusedUnlessADataRootAllowsIt) {
  ScriptedModelServer model(testing::ScriptedDiagnosis(1, std::chrono::milliseconds(0)));
  std::string team = TeamConfig(model.BaseUrl());
  fs::path outside = dir_ / "outside";
  fs::create_directories(outside / "logs");
  std::ofstream(outside / "logs" / "secrets.log") << "2026-11-29T10:00:00Z password=hunter2\n";
  fs::path incident = dir_ / "suite" / "sneaky";
  fs::create_directories(incident / "docs");
  fs::create_directory_symlink(outside / "logs", incident / "linked-logs");
  auto write = [&](const std::string& logs) {
    std::ofstream(incident / "incident.toml")
        << "question = \"why?\"\n[tools.documents]\npath = \"docs\"\n[tools.logs]\npath = \""
        << logs << "\"\n[expect]\noutcome = \"FALLBACK\"\n";
  };
  for (const std::string& logs : {std::string("../../outside/logs"), (outside / "logs").string(),
                                  std::string("linked-logs")}) {
    write(logs);
    auto run = EvalAsGiven({(dir_ / "suite").string(), "--config", team});
    EXPECT_EQ(run.exit_code, 2) << logs << ": " << run.err;
    EXPECT_THAT(run.err, HasSubstr("incident sneaky: [tools.logs] path")) << logs;
    EXPECT_THAT(run.err, HasSubstr("is outside the incident's folder")) << logs;
  }
  EXPECT_TRUE(model.Requests().empty()) << "nothing ran";

  write("../../outside/logs");
  auto allowed = EvalAsGiven({(dir_ / "suite").string(), "--config", team, "--data-root",
                              outside.string(), "--json"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(Parse(allowed).incidents.size(), 1u);
}

// The names in `folder` that start with "diagd-eval-".
std::vector<std::string> ScratchRoots(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) {
    std::string name = entry.path().filename().string();
    if (name.starts_with("diagd-eval-")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// An eval stopped by Ctrl-C (or killed earlier with -9) leaves no run
// stores or indexes in $TMPDIR: the signal removes them, and a folder a
// dead eval left is removed by the next one, a live eval's never.
TEST_F(EvalTest, AnInterruptedEvalLeavesNoScratchFolderBehind) {
  ScriptedModelServer model([](const ScriptedModelServer::RecordedRequest&) {
    return ScriptedReply{ScriptedAnswer{"unused"}, std::chrono::minutes(5)};
  });
  std::string team = TeamConfig(model.BaseUrl());
  Incident("slow", "支付为什么失败？", "outcome = \"DIAGNOSIS\"\nroot_cause_any = [\"连接池\"]\n");
  fs::path tmp = dir_ / "tmp";
  fs::create_directories(tmp);
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  fs::create_directories(tmp / ("diagd-eval-" + std::to_string(dead) + "-left"));
  const std::string live = "diagd-eval-" + std::to_string(::getpid()) + "-busy";
  fs::create_directories(tmp / live);

  std::string tmpdir = "TMPDIR=" + tmp.string();
  std::vector<std::string> args{DIAGD_BINARY, "eval", (dir_ / "suite").string(), "--config", team,
                                "--data-root", std::string(DIAGD_SOURCE_DIR) + "/examples/demo",
                                "--report", (dir_ / "report.html").string()};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  char* envp[] = {tmpdir.data(), nullptr};
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 2, (dir_ / "err").c_str(), O_WRONLY | O_CREAT, 0600);
  pid_t eval = 0;
  ASSERT_EQ(::posix_spawn(&eval, DIAGD_BINARY, &quiet, nullptr, argv.data(), envp), 0);
  posix_spawn_file_actions_destroy(&quiet);
  for (int i = 0; i < 600 && model.Requests().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(model.Requests().empty()) << "the incident is running: " << ReadFile(dir_ / "err");
  auto running = ScratchRoots(tmp);
  EXPECT_EQ(running.size(), 2u) << "the dead eval's folder is gone, the live one's kept, one made";
  EXPECT_TRUE(fs::exists(dir_ / "report.html.partial"));

  ASSERT_EQ(::kill(eval, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(eval, &status, 0), eval);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_EQ(ScratchRoots(tmp), std::vector<std::string>{live});
  EXPECT_FALSE(fs::exists(dir_ / "report.html.partial"));
  EXPECT_FALSE(fs::exists(dir_ / "report.html"));
}

}  // namespace
}  // namespace diagd::e2e

namespace diagd::e2e {
namespace {

// The offline provider's bar on the bundled suite (eval/incidents): no
// wrong, shallow or dishonest release and nothing failed; at least 10 of
// the 13 answerable incidents right, the cause named as well as the
// mechanism; every other incident right (its fallback or answer).
// Deterministic: the provider is rules, the workspaces are checked in with
// a fixed clock.
TEST_F(EvalTest, OfflineOnTheBundledSuiteIsNeverWrongShallowOrDishonestAndRightOnTenOfThirteen) {
  fs::path team = dir_ / "offline.toml";
  std::ofstream(team) << "[model]\nprovider = \"offline\"\n";
  auto run = Eval({std::string(DIAGD_SOURCE_DIR) + "/eval/incidents", "--config", team.string(),
                   "--json", "--jobs", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Document document = Parse(run);
  ASSERT_EQ(document.incidents.size(), 20u);
  int answerable = 0, right = 0;
  std::string verdicts;
  for (const auto& [name, incident] : document.incidents) {
    std::string verdict(incident.at("verdict").as_string());
    verdicts += name + " " + verdict + "\n";
    for (const char* never : {"WRONG", "SHALLOW", "DISHONEST", "FAILED"}) {
      EXPECT_NE(verdict, never) << name;
    }
    if (incident.at("expected_outcome") == "DIAGNOSIS") {
      ++answerable;
      if (verdict == "RIGHT") ++right;
    } else {
      EXPECT_EQ(verdict, "RIGHT") << name;
    }
  }
  EXPECT_EQ(answerable, 13);
  EXPECT_GE(right, 10) << right << " of " << answerable << " right\n" << verdicts;
  EXPECT_EQ(document.totals.at("wrong"), 0);
  EXPECT_EQ(document.totals.at("shallow"), 0);
  EXPECT_EQ(document.totals.at("dishonest"), 0);
}

}  // namespace
}  // namespace diagd::e2e
