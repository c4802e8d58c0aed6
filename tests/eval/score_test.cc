// The verdicts of docs/eval.md on released results built in memory: a
// root cause that names the mechanism and the cause is RIGHT, the mechanism
// alone SHALLOW (released and wrong), neither WRONG; a fallback where one
// was expected is RIGHT, elsewhere HONEST_FALLBACK; then the totals, the
// score and what the three reports show of a verdict.
#include "eval/score.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "eval/report.h"

namespace diagd::eval {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

config::Incident Expecting(config::ExpectedOutcome outcome, std::vector<std::string> mechanism = {},
                           std::vector<std::string> cause = {}) {
  config::Incident incident;
  incident.name = "pool-slow-query";
  incident.question = "订单服务为什么 500？";
  incident.expect.outcome = outcome;
  incident.expect.root_cause_any = std::move(mechanism);
  incident.expect.cause_any = std::move(cause);
  return incident;
}

config::Incident PoolIncident() {
  return Expecting(config::ExpectedOutcome::kDiagnosis, {"连接池耗尽", "full scan"},
                   {"INV-882", "缺少索引"});
}

app::ChatResult Diagnosed(const std::string& root_cause, const std::string& quote = "") {
  app::ChatResult result;
  result.release_outcome = release::ReleaseOutcome::kDiagnosis;
  result.diagnosis.emplace();
  result.diagnosis->root_cause = root_cause;
  if (!quote.empty()) {
    release::PublishedCitation citation;
    citation.quote = quote;
    result.diagnosis->evidence.push_back(citation);
  }
  return result;
}

app::ChatResult FellBack(release::FallbackCode code) {
  app::ChatResult result;
  result.release_outcome = release::ReleaseOutcome::kFallback;
  result.fallback.emplace();
  result.fallback->code = code;
  return result;
}

IncidentScore ScoreOf(const config::Incident& incident, std::optional<app::ChatResult> result) {
  IncidentRun run;
  run.incident = &incident;
  run.result = std::move(result);
  if (!run.result) run.error = "the workspace could not be opened";
  return Score(run);
}

TEST(VerdictTest, ARootCauseNamingTheMechanismAndTheCauseIsRight) {
  config::Incident incident = PoolIncident();
  IncidentScore score =
      ScoreOf(incident, Diagnosed("inventory-service 连接池耗尽：inv-882 删除了索引，全表扫描"));
  EXPECT_EQ(score.root_cause_right, true);
  EXPECT_EQ(score.cause_right, true) << "matched after case folding";
  EXPECT_EQ(score.verdict, Verdict::kRight);
  EXPECT_TRUE(ScoredRight(score));
}

TEST(VerdictTest, ARootCauseNamingOnlyTheMechanismIsShallowAndNotScoredRight) {
  config::Incident incident = PoolIncident();
  IncidentScore score = ScoreOf(incident, Diagnosed("inventory-service 数据库连接池耗尽"));
  EXPECT_TRUE(score.outcome_right);
  EXPECT_EQ(score.root_cause_right, true);
  EXPECT_EQ(score.cause_right, false);
  EXPECT_EQ(score.verdict, Verdict::kShallow);
  EXPECT_STREQ(VerdictName(score.verdict), "SHALLOW");
  EXPECT_FALSE(ScoredRight(score));
}

// What the user reads is the root cause: a quote of the change row beside
// a root cause that does not name the change leaves the cause unnamed.
TEST(VerdictTest, ACauseOnlyInTheCitedQuotesIsNotNamed) {
  config::Incident incident = PoolIncident();
  IncidentScore score = ScoreOf(
      incident, Diagnosed("inventory-service 连接池耗尽", "INV-882 drop index idx_sku on stock_ledger"));
  EXPECT_EQ(score.cause_right, false);
  EXPECT_EQ(score.verdict, Verdict::kShallow);
}

TEST(VerdictTest, ARootCauseNamingNeitherOrOnlyTheCauseIsWrong) {
  config::Incident incident = PoolIncident();
  IncidentScore neither = ScoreOf(incident, Diagnosed("网关限流配置错误"));
  EXPECT_EQ(neither.root_cause_right, false);
  EXPECT_EQ(neither.cause_right, false);
  EXPECT_EQ(neither.verdict, Verdict::kWrong);
  IncidentScore cause_only = ScoreOf(incident, Diagnosed("INV-882 之后订单服务报错"));
  EXPECT_EQ(cause_only.root_cause_right, false);
  EXPECT_EQ(cause_only.cause_right, true);
  EXPECT_EQ(cause_only.verdict, Verdict::kWrong) << "what fails is not named";
}

TEST(VerdictTest, AShallowDiagnosisThatAlsoSkippedARequiredToolIsWrong) {
  config::Incident incident = PoolIncident();
  incident.expect.must_check = {"query_mysql"};
  IncidentScore score = ScoreOf(incident, Diagnosed("inventory-service 连接池耗尽"));
  EXPECT_FALSE(score.outcome_right);
  EXPECT_EQ(score.verdict, Verdict::kWrong);
}

TEST(VerdictTest, WithoutCauseAnyTheCauseIsNotCheckedAndTheMechanismSuffices) {
  config::Incident incident =
      Expecting(config::ExpectedOutcome::kDiagnosis, {"连接池耗尽"}, /*cause=*/{});
  IncidentScore score = ScoreOf(incident, Diagnosed("inventory-service 连接池耗尽"));
  EXPECT_FALSE(score.cause_right) << "null: no cause_any";
  EXPECT_EQ(score.verdict, Verdict::kRight);
  EXPECT_TRUE(ScoredRight(score));
}

TEST(VerdictTest, AFallbackIsRightWhereExpectedAndHonestWhereADiagnosisWas) {
  config::Incident unanswerable = Expecting(config::ExpectedOutcome::kFallback);
  IncidentScore expected =
      ScoreOf(unanswerable, FellBack(release::FallbackCode::kInsufficientEvidence));
  EXPECT_EQ(expected.verdict, Verdict::kRight);
  EXPECT_FALSE(expected.root_cause_right);
  EXPECT_FALSE(expected.cause_right);

  unanswerable.expect.fallback_code = "MISSING_REQUIRED_CONTEXT";
  IncidentScore wrong_code =
      ScoreOf(unanswerable, FellBack(release::FallbackCode::kInsufficientEvidence));
  EXPECT_EQ(wrong_code.verdict, Verdict::kHonestFallback) << "honest, but not the fallback asked for";

  config::Incident answerable = PoolIncident();
  IncidentScore missed = ScoreOf(answerable, FellBack(release::FallbackCode::kInsufficientEvidence));
  EXPECT_EQ(missed.verdict, Verdict::kHonestFallback);
  EXPECT_EQ(missed.root_cause_right, false);
  EXPECT_EQ(missed.cause_right, false);
}

TEST(VerdictTest, ADiagnosisWhereAFallbackWasExpectedIsDishonestAndNoResultFailed) {
  config::Incident unanswerable = Expecting(config::ExpectedOutcome::kFallback);
  EXPECT_EQ(ScoreOf(unanswerable, Diagnosed("连接池耗尽")).verdict, Verdict::kDishonest);
  EXPECT_EQ(ScoreOf(unanswerable, std::nullopt).verdict, Verdict::kFailed);
  EXPECT_EQ(ScoreOf(unanswerable, FellBack(release::FallbackCode::kFailed)).verdict,
            Verdict::kFailed);
}

// One incident of each verdict, for the totals and the reports.
class VerdictReportTest : public ::testing::Test {
 protected:
  VerdictReportTest()
      : pool_(PoolIncident()),
        unanswerable_(Expecting(config::ExpectedOutcome::kFallback)),
        plain_(Expecting(config::ExpectedOutcome::kDiagnosis, {"连接池耗尽"})) {
    Add("right", pool_, Diagnosed("连接池耗尽：INV-882 删除了索引"));
    Add("shallow", pool_, Diagnosed("连接池耗尽 <b>now</b>"));
    Add("wrong", pool_, Diagnosed("网关限流"));
    Add("plain", plain_, Diagnosed("连接池耗尽"));
    Add("missed", pool_, FellBack(release::FallbackCode::kInsufficientEvidence));
    Add("unanswerable", unanswerable_, FellBack(release::FallbackCode::kInsufficientEvidence));
    Add("dishonest", unanswerable_, Diagnosed("连接池耗尽"));
    Add("failed", unanswerable_, std::nullopt);
    totals_ = Total(run_.scores);
  }

  void Add(const std::string& name, const config::Incident& incident,
           std::optional<app::ChatResult> result) {
    run_.scores.push_back(ScoreOf(incident, std::move(result)));
    run_.scores.back().name = name;
  }
  SuiteReport Report() const { return SuiteReport{"suite", "model", run_, totals_, skipped_}; }
  const IncidentScore& Named(const std::string& name) const {
    for (const auto& score : run_.scores) {
      if (score.name == name) return score;
    }
    throw std::out_of_range(name);
  }

  config::Incident pool_, unanswerable_, plain_;
  SuiteRun run_;
  SuiteTotals totals_;
  std::vector<SkippedIncident> skipped_;
};

TEST_F(VerdictReportTest, TotalsCountEachVerdictAndAShallowDiagnosisScoresNothing) {
  EXPECT_EQ(Named("plain").verdict, Verdict::kRight);
  EXPECT_EQ(totals_.incidents, 8);
  EXPECT_EQ(totals_.right, 3) << "right, plain, unanswerable";
  EXPECT_EQ(totals_.shallow, 1);
  EXPECT_EQ(totals_.wrong, 1);
  EXPECT_EQ(totals_.honest_fallback, 1);
  EXPECT_EQ(totals_.dishonest, 1);
  EXPECT_EQ(totals_.failed, 1);
  EXPECT_EQ(totals_.root_cause_right, 3) << "right, shallow, plain name the mechanism";
  EXPECT_EQ(totals_.cause_right, 1);
  EXPECT_DOUBLE_EQ(totals_.score, 3.0 / 8.0);
}

TEST_F(VerdictReportTest, TheJsonGivesEachVerdictAndCauseRightNullWhereNoCauseAny) {
  auto document = boost::json::parse(ReportJson(Report())).as_object();
  std::map<std::string, boost::json::object> incidents;
  for (const auto& incident : document.at("incidents").as_array()) {
    incidents[std::string(incident.at("name").as_string())] = incident.as_object();
  }
  EXPECT_EQ(incidents["right"].at("verdict"), "RIGHT");
  EXPECT_EQ(incidents["right"].at("cause_right"), true);
  EXPECT_EQ(incidents["shallow"].at("verdict"), "SHALLOW");
  EXPECT_EQ(incidents["shallow"].at("root_cause_right"), true);
  EXPECT_EQ(incidents["shallow"].at("cause_right"), false);
  EXPECT_TRUE(incidents["plain"].at("cause_right").is_null());
  EXPECT_TRUE(incidents["unanswerable"].at("cause_right").is_null());
  EXPECT_EQ(incidents["unanswerable"].at("verdict"), "RIGHT");
  EXPECT_EQ(incidents["missed"].at("cause_right"), false);
  const auto& totals = document.at("totals").as_object();
  for (const auto& [key, count] : std::map<std::string, int>{{"right", 3},
                                                              {"shallow", 1},
                                                              {"wrong", 1},
                                                              {"honest_fallback", 1},
                                                              {"dishonest", 1},
                                                              {"failed", 1}}) {
    EXPECT_EQ(totals.at(key), count) << key;
  }
}

TEST_F(VerdictReportTest, TheTableCountsShallowAmongTheReleasedAndWrong) {
  std::string table = ReportTable(Report());
  EXPECT_THAT(table, ContainsRegex("shallow +DIAGNOSIS +DIAGNOSIS +SHALLOW +no "));
  EXPECT_THAT(table, HasSubstr("8 incidents: 3 released and right, 2 released and wrong "
                               "(1 shallow), 1 honest fallback, 1 dishonest diagnosis, 1 failed"));
  EXPECT_THAT(table, HasSubstr("root cause right 3, cause right 1"));
}

TEST_F(VerdictReportTest, TheHtmlShowsTheVerdictAsABadgeInTheRowAndTheSection) {
  std::string html = ReportHtml(Report());
  EXPECT_THAT(html, HasSubstr(".v-SHALLOW{"));
  EXPECT_THAT(html, HasSubstr("<td><span class=\"v v-SHALLOW\">SHALLOW</span></td>"));
  EXPECT_THAT(html, HasSubstr("shallow <span class=\"v v-SHALLOW\">SHALLOW</span></h2>"));
  EXPECT_THAT(html, HasSubstr("names the mechanism: yes; the cause: no"));
  EXPECT_THAT(html, HasSubstr("names the mechanism: yes; the cause: not checked"));
  EXPECT_THAT(html, HasSubstr("连接池耗尽 &lt;b&gt;now&lt;/b&gt;")) << "escaped";
  EXPECT_THAT(html, HasSubstr("2 released and wrong (1 shallow)"));
}

}  // namespace
}  // namespace diagd::eval
