// EvidenceRepairAnswer (component_answers.h): the draft rebuilt against the
// violations the evidence guard found.
#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "core/json.h"
#include "core/text.h"
#include "model/offline/component_answers.h"
#include "model/offline/conclusion_writer.h"
#include "model/offline/observation_text.h"

namespace diagd::model::offline {
namespace {

namespace bj = boost::json;

struct Violation {
  std::string call_id, quote, problem;
};

std::string StringOf(const bj::object& o, std::string_view key) {
  return std::string(json::GetString(o, key).value_or(""));
}

std::vector<std::string> Strings(const bj::value* value) {
  std::vector<std::string> out;
  if (value == nullptr || !value->is_array()) return out;
  for (const auto& item : value->as_array()) {
    if (item.is_string()) out.emplace_back(item.as_string());
  }
  return out;
}

const Violation* ViolationOf(const std::vector<Violation>& violations, const std::string& id,
                             const std::string& quote) {
  for (const auto& v : violations) {
    if (v.call_id == id && v.quote == quote) return &v;
  }
  for (const auto& v : violations) {
    if (v.call_id == id && v.quote.empty()) return &v;
  }
  return nullptr;
}

bool CallIsBad(const std::string& problem) {
  return problem == "UNKNOWN_CALL" || problem == "FOREIGN_CALL" || problem == "NOT_EVIDENCE";
}

using Observations = std::map<std::string, std::vector<QuotableText>>;

std::vector<Violation> ViolationsOf(const bj::object& request) {
  std::vector<Violation> violations;
  if (const auto* list = request.if_contains("violations"); list && list->is_array()) {
    for (const auto& item : list->as_array()) {
      if (!item.is_object()) continue;
      const auto& o = item.as_object();
      violations.push_back(
          {StringOf(o, "tool_call_id"), StringOf(o, "quote"), StringOf(o, "problem")});
    }
  }
  return violations;
}

Observations ObservationsOf(const bj::object& request) {
  Observations observations;
  if (const auto* map = request.if_contains("observations"); map && map->is_object()) {
    for (const auto& [id, observation] : map->as_object()) {
      observations[std::string(id)] = QuotableTexts(json::Serialize(observation));
    }
  }
  return observations;
}

// The conclusion with its citations kept or fixed; none when no citation
// is left (`dropped_root_cause` then says what was withdrawn).
std::optional<DraftConclusion> RepairedConclusion(const bj::object& conclusion,
                                                  const std::vector<Violation>& violations,
                                                  const Observations& observations,
                                                  std::string& dropped_root_cause) {
  DraftConclusion kept{StringOf(conclusion, "root_cause"), StringOf(conclusion, "confidence"), {}};
  if (kept.confidence != "HIGH" && kept.confidence != "MEDIUM" && kept.confidence != "LOW") {
    kept.confidence = "LOW";
  }
  if (const auto* evidence = conclusion.if_contains("evidence"); evidence && evidence->is_array()) {
    for (const auto& item : evidence->as_array()) {
      if (!item.is_object()) continue;
      std::string id = StringOf(item.as_object(), "tool_call_id");
      std::string quote = StringOf(item.as_object(), "quote");
      const Violation* violation = ViolationOf(violations, id, quote);
      if (violation == nullptr) {
        kept.evidence.push_back({id, quote});
      } else if (!CallIsBad(violation->problem)) {
        auto it = observations.find(id);
        if (it == observations.end()) continue;
        if (auto fixed = FixQuote(quote, it->second)) kept.evidence.push_back({id, *fixed});
      }
    }
  }
  if (kept.evidence.empty() || kept.root_cause.empty()) {
    dropped_root_cause = kept.root_cause;
    return std::nullopt;
  }
  // Fewer citations than claimed: the confidence cannot stay the same.
  if (kept.evidence.size() == 1 && kept.confidence == "HIGH") kept.confidence = "MEDIUM";
  return kept;
}

// The findings whose call exists and whose quote is (or could be made) true.
std::vector<DraftFinding> RepairedFindings(const bj::array& findings,
                                           const std::vector<Violation>& violations,
                                           const Observations& observations) {
  std::vector<DraftFinding> kept;
  for (const auto& item : findings) {
    if (!item.is_object()) continue;
    const auto& o = item.as_object();
    DraftFinding finding{StringOf(o, "tool_call_id"), StringOf(o, "kind") != "NOT_FOUND",
                         StringOf(o, "statement"), StringOf(o, "quote")};
    if (finding.call_id.empty() || finding.statement.empty()) continue;
    const Violation* violation = ViolationOf(violations, finding.call_id, finding.quote);
    if (violation != nullptr && CallIsBad(violation->problem)) continue;
    if (finding.found) {
      auto it = observations.find(finding.call_id);
      if (it != observations.end()) {
        auto fixed = FixQuote(finding.quote, it->second);
        if (!fixed) continue;
        finding.quote = *fixed;
      } else if (text::CodePointCount(finding.quote) < 4) {
        continue;
      }
    }
    kept.push_back(std::move(finding));
  }
  return kept;
}

}  // namespace

std::string EvidenceRepairAnswer(const std::string& user_message, Lang lang) {
  bool en = lang == Lang::kEn;
  Draft draft;
  auto parsed = json::Parse(user_message);
  if (!parsed || !parsed->is_object()) return DraftToJson(draft);
  const auto& request = parsed->as_object();
  std::vector<Violation> violations = ViolationsOf(request);
  Observations observations = ObservationsOf(request);

  const bj::object empty;
  const auto* draft_value = request.if_contains("draft");
  const bj::object& input =
      draft_value && draft_value->is_object() ? draft_value->as_object() : empty;

  std::string dropped_root_cause;
  if (const auto* conclusion = input.if_contains("conclusion");
      conclusion && conclusion->is_object()) {
    draft.conclusion = RepairedConclusion(conclusion->as_object(), violations, observations,
                                          dropped_root_cause);
  }
  if (const auto* findings = input.if_contains("findings"); findings && findings->is_array()) {
    draft.findings = RepairedFindings(findings->as_array(), violations, observations);
  }
  if (const auto* limitations = input.if_contains("limitations");
      limitations && limitations->is_object()) {
    draft.missing_info = Strings(limitations->as_object().if_contains("missing_info"));
    draft.notes = Strings(limitations->as_object().if_contains("notes"));
  }
  draft.next_steps = Strings(input.if_contains("next_steps"));
  if (!draft.conclusion && !dropped_root_cause.empty()) {
    draft.notes.push_back(en ? "Withdrawn, as no citation could be verified: " + dropped_root_cause
                             : "原结论的引用均无法核实，已撤回：" + dropped_root_cause);
    draft.next_steps.clear();
  }
  return DraftToJson(draft);
}

}  // namespace diagd::model::offline
