#include <boost/json.hpp>

#include "core/json.h"
#include "eval/report.h"

namespace diagd::eval {
namespace {

boost::json::value OptionalString(const std::optional<std::string>& value) {
  if (!value) return nullptr;
  return boost::json::string(*value);
}

boost::json::object IncidentJson(const IncidentScore& score) {
  boost::json::array missing;
  for (const auto& tool : score.missing_checks) missing.emplace_back(tool);
  boost::json::object out{
      {"name", score.name},
      {"question", score.question},
      {"expected_outcome", score.expected_outcome},
      {"outcome", OptionalString(score.outcome)},
      {"fallback_code", OptionalString(score.fallback_code)},
      {"outcome_right", score.outcome_right},
      {"root_cause_right", nullptr},
      {"honest", score.honest},
      {"tool_calls", score.tool_calls},
      {"model_calls", score.model_calls},
      {"total_tokens", score.total_tokens},
      {"wall_ms", score.wall_ms},
      {"run_id", score.run_id.empty() ? boost::json::value(nullptr)
                                      : boost::json::value(score.run_id)},
      {"verdict", VerdictName(score.verdict)},
      {"cause_right", nullptr},
      {"missing_checks", std::move(missing)},
      {"failure_reason", OptionalString(score.failure_reason)},
      {"stop_reason", OptionalString(score.stop_reason)},
  };
  if (score.root_cause_right) out["root_cause_right"] = *score.root_cause_right;
  if (score.cause_right) out["cause_right"] = *score.cause_right;
  return out;
}

}  // namespace

std::string ReportJson(const SuiteReport& report) {
  boost::json::array incidents;
  for (const auto& score : report.run.scores) incidents.emplace_back(IncidentJson(score));
  const SuiteTotals& t = report.totals;
  boost::json::object totals{
      {"incidents", t.incidents},
      {"outcome_right", t.outcome_right},
      {"root_cause_right", t.root_cause_right},
      {"cause_right", t.cause_right},
      {"honest", t.honest},
      {"score", t.score},
      {"right", t.right},
      {"shallow", t.shallow},
      {"wrong", t.wrong},
      {"honest_fallback", t.honest_fallback},
      {"dishonest", t.dishonest},
      {"failed", t.failed},
      {"tool_calls", t.tool_calls},
      {"model_calls", t.model_calls},
      {"total_tokens", t.total_tokens},
      {"elapsed_ms", report.run.elapsed_ms},
  };
  boost::json::array skipped;
  for (const auto& skip : report.skipped) {
    skipped.emplace_back(boost::json::object{{"name", skip.name}, {"reason", skip.reason}});
  }
  boost::json::object document{{"suite", report.suite},
                               {"model", report.model},
                               {"incidents", std::move(incidents)},
                               {"totals", std::move(totals)},
                               {"skipped", std::move(skipped)}};
  return json::Serialize(document);
}

}  // namespace diagd::eval
