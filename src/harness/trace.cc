#include "harness/trace.h"

#include "core/overloaded.h"
#include "core/text.h"

namespace diagd::harness {

const char* TraceEventTypeString(TraceEventType type) {
  switch (type) {
    case TraceEventType::kRunStarted:
      return "RUN_STARTED";
    case TraceEventType::kModelCall:
      return "MODEL_CALL";
    case TraceEventType::kToolCallCompleted:
      return "TOOL_CALL_COMPLETED";
    case TraceEventType::kToolRequestRejected:
      return "TOOL_REQUEST_REJECTED";
    case TraceEventType::kProgressEvaluated:
      return "PROGRESS_EVALUATED";
    case TraceEventType::kCollectionStopped:
      return "COLLECTION_STOPPED";
    case TraceEventType::kProgressRecordUnverified:
      return "PROGRESS_RECORD_UNVERIFIED";
    case TraceEventType::kAgentOutputRejected:
      return "AGENT_OUTPUT_REJECTED";
    case TraceEventType::kReleaseDecided:
      return "RELEASE_DECIDED";
    case TraceEventType::kRunFinished:
      return "RUN_FINISHED";
  }
  return "";
}

std::optional<TraceEventType> ParseTraceEventType(std::string_view name) {
  for (TraceEventType type : kAllTraceEventTypes) {
    if (name == TraceEventTypeString(type)) return type;
  }
  return std::nullopt;
}

const TraceValue* FindField(const TraceEvent& event, std::string_view key) {
  for (const auto& field : event.fields) {
    if (field.key == key) return &field.value;
  }
  return nullptr;
}

void InMemoryTrace::Record(TraceEventType type, std::vector<TraceField> fields) {
  for (auto& field : fields) {
    if (auto* s = std::get_if<std::string>(&field.value)) {
      *s = text::TruncateCodePoints(*s, kMaxTraceStringChars);
    }
  }
  WallTime now = clock_.Now();
  MutexLock lock(mu_);
  TraceEvent event;
  event.seq = static_cast<std::int64_t>(events_.size()) + 1;
  event.type = type;
  event.time = now;
  event.fields = std::move(fields);
  events_.push_back(std::move(event));
}

std::vector<TraceEvent> InMemoryTrace::Events() const {
  MutexLock lock(mu_);
  return events_;
}

std::string RenderTrace(const std::vector<TraceEvent>& events) {
  std::string out;
  for (const auto& event : events) {
    out += TraceEventTypeString(event.type);
    for (const auto& field : event.fields) {
      out += " " + field.key + "=";
      std::visit(Overloaded{[&](std::nullptr_t) { out += "null"; },
                            [&](bool b) { out += b ? "true" : "false"; },
                            [&](std::int64_t i) { out += std::to_string(i); },
                            [&](const std::string& s) { out += s; }},
                 field.value);
    }
    out += "\n";
  }
  return out;
}

}  // namespace diagd::harness
