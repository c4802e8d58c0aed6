#include "app/chat_result.h"

#include "core/json_writer.h"

namespace diagd::app {
namespace {

using json::JsonWriter;

void WriteProcess(const std::vector<release::ProcessEntry>& process, JsonWriter& w) {
  w.BeginArray();
  for (const auto& entry : process) {
    w.BeginObject()
        .Key("tool_call_id").String(entry.tool_call_id)
        .Key("tool").String(tools::ToolNameString(entry.tool))
        .Key("scope").String(entry.scope)
        .Key("evidence_status");
    if (entry.evidence_status) {
      w.String(tools::EvidenceStatusString(*entry.evidence_status));
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
}

void WriteStrings(const std::vector<std::string>& items, JsonWriter& w) {
  w.BeginArray();
  for (const auto& item : items) w.String(item);
  w.EndArray();
}

void WriteFindings(const std::vector<release::PublishedFinding>& findings, JsonWriter& w) {
  w.BeginArray();
  for (const auto& f : findings) {
    w.BeginObject()
        .Key("tool_call_id").String(f.tool_call_id)
        .Key("kind").String(agent::FindingKindString(f.kind))
        .Key("statement").String(f.statement);
    if (f.quote) w.Key("quote").String(*f.quote);
    w.EndObject();
  }
  w.EndArray();
}

void WriteDiagnosis(const release::Diagnosis& d, JsonWriter& w) {
  w.BeginObject()
      .Key("root_cause").String(d.root_cause)
      .Key("confidence").String(agent::ConfidenceString(d.confidence))
      .Key("evidence").BeginArray();
  for (const auto& c : d.evidence) {
    w.BeginObject()
        .Key("tool_call_id").String(c.tool_call_id)
        .Key("tool").String(tools::ToolNameString(c.tool))
        .Key("scope").String(c.scope)
        .Key("quote").String(c.quote)
        .EndObject();
  }
  w.EndArray().Key("findings");
  WriteFindings(d.findings, w);
  w.Key("next_steps");
  WriteStrings(d.next_steps, w);
  w.Key("limitations").BeginObject().Key("missing_info");
  WriteStrings(d.limitations.missing_info, w);
  w.Key("notes");
  WriteStrings(d.limitations.notes, w);
  w.EndObject().EndObject();
}

void WriteFallback(const release::SafeFallback& f, JsonWriter& w) {
  w.BeginObject()
      .Key("code").String(release::FallbackCodeString(f.code))
      .Key("message").String(f.message)
      .Key("checked");
  WriteProcess(f.checked, w);
  w.Key("observed_facts").BeginArray();
  for (const auto& fact : f.observed_facts) {
    w.BeginObject()
        .Key("tool_call_id").String(fact.tool_call_id)
        .Key("tool").String(tools::ToolNameString(fact.tool))
        .Key("fact").String(fact.fact)
        .EndObject();
  }
  w.EndArray().Key("findings");
  WriteFindings(f.findings, w);
  w.Key("missing_info");
  WriteStrings(f.missing_info, w);
  w.Key("limitations");
  WriteStrings(f.limitations, w);
  w.EndObject();
}

}  // namespace

std::optional<Route> ParseRouteName(std::string_view name) {
  if (name == "diagnosis") return Route::kDiagnosis;
  if (name == "knowledge") return Route::kKnowledge;
  if (name == "chat") return Route::kSystemChat;
  return std::nullopt;
}

const char* RouteString(Route route) {
  switch (route) {
    case Route::kDiagnosis:
      return "DIAGNOSIS";
    case Route::kKnowledge:
      return "KNOWLEDGE";
    case Route::kSystemChat:
      return "SYSTEM_CHAT";
  }
  return "";
}

std::string ChatResultJson(const ChatResult& r) {
  JsonWriter w;
  w.BeginObject()
      .Key("run_id").String(r.run_id)
      .Key("conversation_id").String(r.conversation_id)
      .Key("route").String(RouteString(r.route))
      .Key("release_outcome").String(release::ReleaseOutcomeString(r.release_outcome))
      .Key("diagnosis");
  if (r.diagnosis) {
    WriteDiagnosis(*r.diagnosis, w);
  } else {
    w.Null();
  }
  w.Key("fallback");
  if (r.fallback) {
    WriteFallback(*r.fallback, w);
  } else {
    w.Null();
  }
  w.Key("answer");
  if (r.answer) {
    w.BeginObject().Key("text").String(r.answer->text).Key("citations").BeginArray();
    for (const auto& c : r.answer->citations) {
      w.BeginObject()
          .Key("document_id").String(c.document_id)
          .Key("source").String(c.source)
          .Key("title").String(c.title)
          .EndObject();
    }
    w.EndArray().EndObject();
  } else {
    w.Null();
  }
  w.Key("process");
  WriteProcess(r.process, w);
  w.EndObject();
  return w.Take();
}

std::string ChatResultText(const ChatResult& r, bool english) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  if (r.answer) {
    line(r.answer->text);
    for (const auto& c : r.answer->citations) line("  - " + c.title + " (" + c.source + ")");
    return out;
  }
  if (r.diagnosis) {
    const auto& d = *r.diagnosis;
    line((english ? "Root cause: " : "根因：") + d.root_cause);
    line((english ? "Confidence: " : "置信度：") + std::string(agent::ConfidenceString(d.confidence)));
    line(english ? "Evidence (verified quotes):" : "证据（已逐字核验）：");
    for (const auto& c : d.evidence) {
      line("  [" + c.tool_call_id + "] " + tools::ToolNameString(c.tool) + " " + c.scope);
      line("      \"" + c.quote + "\"");
    }
    if (!d.next_steps.empty()) {
      line(english ? "Next steps:" : "建议：");
      for (const auto& s : d.next_steps) line("  - " + s);
    }
    return out;
  }
  if (r.fallback) {
    const auto& f = *r.fallback;
    line(f.message);
    if (!f.missing_info.empty()) {
      line(english ? "Please tell me:" : "请补充：");
      for (const auto& m : f.missing_info) line("  - " + m);
    }
    if (!f.observed_facts.empty()) {
      line(english ? "What was observed:" : "已观察到的事实：");
      for (const auto& fact : f.observed_facts) line("  [" + fact.tool_call_id + "] " + fact.fact);
    }
    if (!f.checked.empty()) {
      line(english ? "What was checked:" : "已检查：");
      for (const auto& c : f.checked) {
        line("  [" + c.tool_call_id + "] " + tools::ToolNameString(c.tool) + " " + c.scope + " -> " +
             (c.evidence_status ? tools::EvidenceStatusString(*c.evidence_status) : "?"));
      }
    }
    for (const auto& l : f.limitations) line("  * " + l);
  }
  return out;
}

}  // namespace diagd::app
