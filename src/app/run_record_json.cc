#include "app/run_record_json.h"

#include "core/json_writer.h"
#include "core/overloaded.h"
#include "core/text.h"

namespace diagd::app {
namespace {

using json::JsonWriter;

void OptionalString(const std::optional<std::string>& value, JsonWriter& w) {
  if (value) {
    w.String(*value);
  } else {
    w.Null();
  }
}

// A run is stored before it is routed: until then its route is null.
void RouteOrNull(const std::string& route, JsonWriter& w) {
  if (route.empty()) {
    w.Null();
  } else {
    w.String(route);
  }
}

// The fields a run record and a run list row share (RunRecord or
// RunSummary).
template <typename Run>
void WriteSummaryFields(const Run& run, JsonWriter& w) {
  w.Key("run_id").String(run.run_id).Key("conversation_id").String(run.conversation_id);
  w.Key("route");
  RouteOrNull(run.route, w);
  w.Key("status").String(run.status).Key("release_outcome");
  OptionalString(run.release_outcome, w);
  w.Key("fallback_code");
  OptionalString(run.fallback_code, w);
}

void WriteTraceEvent(const harness::TraceEvent& event, JsonWriter& w) {
  w.BeginObject()
      .Key("seq").Int(event.seq)
      .Key("type").String(harness::TraceEventTypeString(event.type))
      .Key("time").String(FormatRfc3339Millis(event.time))
      .Key("fields").BeginObject();
  for (const auto& field : event.fields) {
    w.Key(field.key);
    std::visit(Overloaded{[&](std::nullptr_t) { w.Null(); }, [&](bool b) { w.Bool(b); },
                          [&](std::int64_t i) { w.Int(i); },
                          [&](const std::string& s) { w.String(s); }},
               field.value);
  }
  w.EndObject().EndObject();
}

}  // namespace

std::string RunRecordJson(const RunRecord& run) {
  JsonWriter w(4096);
  w.BeginObject();
  WriteSummaryFields(run, w);
  w.Key("question").String(run.question);
  w.Key("internal_status").String(run.internal_status).Key("stop_reason");
  OptionalString(run.stop_reason, w);
  w.Key("failure_reason");
  OptionalString(run.failure_reason, w);
  w.Key("failure_detail");
  OptionalString(run.failure_detail, w);
  w.Key("model_failures").BeginArray();
  for (const auto& failure : run.model_failures) {
    w.BeginObject().Key("component").String(failure.component);
    w.Key("reason").String(failure.reason).EndObject();
  }
  w.EndArray();
  w.Key("total_token_count").Int(run.total_token_count)
      .Key("created_at").String(FormatRfc3339Millis(run.created_at))
      .Key("finished_at");
  if (run.finished_at) {
    w.String(FormatRfc3339Millis(*run.finished_at));
  } else {
    w.Null();
  }
  w.Key("result");
  if (run.result_json.empty()) {
    w.Null();
  } else {
    w.Raw(run.result_json);  // written by ChatResultJson: one valid document
  }
  w.Key("steps").BeginArray();
  for (const auto& step : run.steps) {
    w.BeginObject().Key("round").Int(step.round).Key("token_count");
    if (step.token_count) {
      w.Int(*step.token_count);
    } else {
      w.Null();
    }
    w.Key("tool_call_ids").BeginArray();
    for (const auto& id : step.tool_call_ids) w.String(id);
    w.EndArray().EndObject();
  }
  w.EndArray().Key("trace").BeginArray();
  for (const auto& event : run.trace) WriteTraceEvent(event, w);
  w.EndArray().EndObject();
  return w.Take();
}

std::string RunListJson(const std::vector<RunSummary>& runs,
                        const std::optional<std::string>& next) {
  JsonWriter w;
  w.BeginObject().Key("runs").BeginArray();
  for (const auto& run : runs) {
    w.BeginObject();
    WriteSummaryFields(run, w);
    w.Key("question").String(text::TruncateCodePoints(run.question, kListQuestionChars));
    w.Key("created_at").String(FormatRfc3339Millis(run.created_at)).Key("finished_at");
    if (run.finished_at) {
      w.String(FormatRfc3339Millis(*run.finished_at));
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray().Key("next");
  OptionalString(next, w);
  w.EndObject();
  return w.Take();
}

std::string ConversationJson(const std::string& conversation_id,
                             const std::vector<RunSummary>& runs,
                             const std::optional<std::string>& next) {
  JsonWriter w;
  w.BeginObject().Key("conversation_id").String(conversation_id).Key("runs").BeginArray();
  for (const auto& run : runs) {
    w.BeginObject().Key("run_id").String(run.run_id).Key("question").String(run.question);
    w.Key("route");
    RouteOrNull(run.route, w);
    w.Key("release_outcome");
    OptionalString(run.release_outcome, w);
    w.Key("created_at").String(FormatRfc3339Millis(run.created_at)).EndObject();
  }
  w.EndArray().Key("next");
  OptionalString(next, w);
  w.EndObject();
  return w.Take();
}

}  // namespace diagd::app
