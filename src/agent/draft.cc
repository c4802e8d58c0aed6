#include "agent/draft.h"

#include <boost/json.hpp>

#include "core/json.h"
#include "core/text.h"

namespace diagd::agent {
namespace {

using Obj = boost::json::object;
using Rejected = Unexpected<DraftRejection>;

Rejected Schema() { return Rejected(DraftRejection::kSchemaViolation); }

bool OnlyKeys(const Obj& object, std::initializer_list<std::string_view> allowed) {
  for (const auto& member : object) {
    if (std::find(allowed.begin(), allowed.end(), member.key()) == allowed.end()) return false;
  }
  return true;
}

Result<std::string, DraftRejection> RequiredString(const Obj& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  if (value == nullptr || !value->is_string()) return Schema();
  return std::string(value->get_string());
}

// An optional list of strings: absent or null is empty.
Result<std::vector<std::string>, DraftRejection> StringList(const Obj& object,
                                                            std::string_view key) {
  std::vector<std::string> out;
  const auto* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return out;
  if (!value->is_array()) return Schema();
  for (const auto& item : value->get_array()) {
    if (!item.is_string()) return Schema();
    out.emplace_back(item.get_string());
  }
  return out;
}

Result<Conclusion, DraftRejection> ParseConclusion(const Obj& object) {
  if (!OnlyKeys(object, {"root_cause", "confidence", "evidence"})) return Schema();
  Conclusion conclusion;
  auto root_cause = RequiredString(object, "root_cause");
  auto confidence = RequiredString(object, "confidence");
  if (!root_cause || !confidence) return Schema();
  conclusion.root_cause = std::move(*root_cause);
  if (*confidence == "HIGH") {
    conclusion.confidence = Confidence::kHigh;
  } else if (*confidence == "MEDIUM") {
    conclusion.confidence = Confidence::kMedium;
  } else if (*confidence == "LOW") {
    conclusion.confidence = Confidence::kLow;
  } else {
    return Schema();
  }
  const auto* evidence = object.if_contains("evidence");
  if (evidence == nullptr || !evidence->is_array()) return Schema();
  for (const auto& item : evidence->get_array()) {
    if (!item.is_object() || !OnlyKeys(item.get_object(), {"tool_call_id", "quote"})) {
      return Schema();
    }
    auto id = RequiredString(item.get_object(), "tool_call_id");
    auto quote = RequiredString(item.get_object(), "quote");
    if (!id || !quote) return Schema();
    conclusion.evidence.push_back({std::move(*id), std::move(*quote)});
  }
  return conclusion;
}

Result<Finding, DraftRejection> ParseFinding(const boost::json::value& value) {
  if (!value.is_object()) return Schema();
  const auto& object = value.get_object();
  if (!OnlyKeys(object, {"tool_call_id", "kind", "statement", "quote"})) return Schema();
  auto id = RequiredString(object, "tool_call_id");
  auto kind = RequiredString(object, "kind");
  auto statement = RequiredString(object, "statement");
  if (!id || !kind || !statement) return Schema();
  Finding finding;
  finding.tool_call_id = std::move(*id);
  finding.statement = std::move(*statement);
  if (*kind == "FOUND") {
    finding.kind = FindingKind::kFound;
  } else if (*kind == "NOT_FOUND") {
    finding.kind = FindingKind::kNotFound;
  } else {
    return Schema();
  }
  if (const auto* quote = object.if_contains("quote"); quote != nullptr && !quote->is_null()) {
    if (!quote->is_string()) return Schema();
    finding.quote = std::string(quote->get_string());
  }
  return finding;
}

}  // namespace

const char* ConfidenceString(Confidence confidence) {
  switch (confidence) {
    case Confidence::kHigh:
      return "HIGH";
    case Confidence::kMedium:
      return "MEDIUM";
    case Confidence::kLow:
      return "LOW";
  }
  return "";
}

const char* FindingKindString(FindingKind kind) {
  return kind == FindingKind::kFound ? "FOUND" : "NOT_FOUND";
}

const char* DraftRejectionString(DraftRejection rejection) {
  switch (rejection) {
    case DraftRejection::kEmpty:
      return "EMPTY_OUTPUT";
    case DraftRejection::kTooLarge:
      return "OUTPUT_TOO_LARGE";
    case DraftRejection::kNotJson:
      return "NOT_JSON";
    case DraftRejection::kNotObject:
      return "NOT_AN_OBJECT";
    case DraftRejection::kSchemaViolation:
      return "SCHEMA_VIOLATION";
  }
  return "";
}

Result<DiagnosisDraft, DraftRejection> ParseDraft(std::string_view text) {
  if (text::IsBlank(text)) return Rejected(DraftRejection::kEmpty);
  if (text.size() > kMaxDraftBytes) return Rejected(DraftRejection::kTooLarge);
  auto parsed = json::Parse(text);
  if (!parsed) return Rejected(DraftRejection::kNotJson);
  if (!parsed->is_object()) return Rejected(DraftRejection::kNotObject);
  const Obj& root = parsed->get_object();
  if (!OnlyKeys(root, {"conclusion", "findings", "limitations", "next_steps"})) return Schema();

  DiagnosisDraft draft;
  const auto* conclusion = root.if_contains("conclusion");
  if (conclusion == nullptr) return Schema();  // required, even when null
  if (!conclusion->is_null()) {
    if (!conclusion->is_object()) return Schema();
    auto parsed_conclusion = ParseConclusion(conclusion->get_object());
    if (!parsed_conclusion) return Rejected(parsed_conclusion.error());
    draft.conclusion = std::move(*parsed_conclusion);
  }
  if (const auto* findings = root.if_contains("findings"); findings && !findings->is_null()) {
    if (!findings->is_array()) return Schema();
    for (const auto& item : findings->get_array()) {
      auto finding = ParseFinding(item);
      if (!finding) return Rejected(finding.error());
      draft.findings.push_back(std::move(*finding));
    }
  }
  if (const auto* limits = root.if_contains("limitations"); limits && !limits->is_null()) {
    if (!limits->is_object() || !OnlyKeys(limits->get_object(), {"missing_info", "notes"})) {
      return Schema();
    }
    auto missing = StringList(limits->get_object(), "missing_info");
    auto notes = StringList(limits->get_object(), "notes");
    if (!missing || !notes) return Schema();
    draft.limitations = {std::move(*missing), std::move(*notes)};
  }
  auto next_steps = StringList(root, "next_steps");
  if (!next_steps) return Schema();
  draft.next_steps = std::move(*next_steps);
  return draft;
}

std::string DraftJson(const DiagnosisDraft& draft) {
  Obj root;
  if (draft.conclusion) {
    boost::json::array evidence;
    for (const auto& c : draft.conclusion->evidence) {
      evidence.push_back({{"tool_call_id", c.tool_call_id}, {"quote", c.quote}});
    }
    root["conclusion"] = Obj{{"root_cause", draft.conclusion->root_cause},
                             {"confidence", ConfidenceString(draft.conclusion->confidence)},
                             {"evidence", std::move(evidence)}};
  } else {
    root["conclusion"] = nullptr;
  }
  boost::json::array findings;
  for (const auto& f : draft.findings) {
    Obj finding{{"tool_call_id", f.tool_call_id},
                {"kind", FindingKindString(f.kind)},
                {"statement", f.statement}};
    if (f.quote) finding["quote"] = *f.quote;
    findings.push_back(std::move(finding));
  }
  root["findings"] = std::move(findings);
  boost::json::array missing(draft.limitations.missing_info.begin(),
                             draft.limitations.missing_info.end());
  boost::json::array notes(draft.limitations.notes.begin(), draft.limitations.notes.end());
  root["limitations"] = Obj{{"missing_info", std::move(missing)}, {"notes", std::move(notes)}};
  root["next_steps"] = boost::json::array(draft.next_steps.begin(), draft.next_steps.end());
  return json::Serialize(root);
}

}  // namespace diagd::agent
