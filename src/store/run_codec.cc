#include "store/run_codec.h"

#include <algorithm>

#include "core/json.h"
#include "core/json_writer.h"
#include "core/overloaded.h"
#include "core/text.h"

namespace diagd::store {
namespace {

// Copies only when the text needs repair.
void WriteUtf8(json::JsonWriter& writer, std::string_view s) {
  if (text::IsValidUtf8(s)) {
    writer.String(s);
  } else {
    writer.String(text::SanitizeUtf8(s));
  }
}

void WriteKey(json::JsonWriter& writer, std::string_view key) {
  if (text::IsValidUtf8(key)) {
    writer.Key(key);
  } else {
    writer.Key(text::SanitizeUtf8(key));
  }
}

Error Damaged(std::string_view what) {
  return Error::Internal("run store: a stored " + std::string(what) + " is not readable");
}

}  // namespace

Result<std::string> EncodeTraceFields(const std::vector<harness::TraceField>& fields) {
  json::JsonWriter writer(64 + fields.size() * 32);
  writer.BeginObject();
  for (auto field_it = fields.begin(); field_it != fields.end(); ++field_it) {
    const harness::TraceField& field = *field_it;
    // Each key against those before it: an event has a handful of fields,
    // and a hash set cost an allocation a field (a run stores 25 events).
    if (std::any_of(fields.begin(), field_it,
                    [&](const harness::TraceField& earlier) { return earlier.key == field.key; })) {
      return Error::InvalidArgument("run store: a trace event has two fields named \"" +
                                    text::SanitizeUtf8(field.key) + "\"");
    }
    WriteKey(writer, field.key);
    std::visit(Overloaded{
                   [&](std::nullptr_t) { writer.Null(); },
                   [&](bool b) { writer.Bool(b); },
                   [&](std::int64_t i) { writer.Int(i); },
                   [&](const std::string& s) { WriteUtf8(writer, s); },
               },
               field.value);
  }
  writer.EndObject();
  return writer.Take();
}

Result<std::vector<harness::TraceField>> DecodeTraceFields(std::string_view json_text) {
  Result<boost::json::value> parsed = json::Parse(json_text);
  if (!parsed || !parsed->is_object()) return Damaged("trace event");
  std::vector<harness::TraceField> fields;
  const boost::json::object& object = parsed->get_object();
  fields.reserve(object.size());
  // Boost.JSON objects keep their members in document order.
  for (const auto& member : object) {
    harness::TraceField field;
    field.key = std::string(member.key());
    const boost::json::value& value = member.value();
    switch (value.kind()) {
      case boost::json::kind::null:
        field.value = nullptr;
        break;
      case boost::json::kind::bool_:
        field.value = value.get_bool();
        break;
      case boost::json::kind::int64:
        field.value = value.get_int64();
        break;
      case boost::json::kind::string:
        field.value = std::string(value.get_string());
        break;
      default:  // uint64, double, array, object: never written by EncodeTraceFields
        return Damaged("trace event");
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

std::string EncodeToolCallIds(const std::vector<std::string>& ids) {
  json::JsonWriter writer(16 + ids.size() * 40);
  writer.BeginArray();
  for (const auto& id : ids) WriteUtf8(writer, id);
  writer.EndArray();
  return writer.Take();
}

Result<std::vector<std::string>> DecodeToolCallIds(std::string_view json_text) {
  Result<boost::json::value> parsed = json::Parse(json_text);
  if (!parsed || !parsed->is_array()) return Damaged("agent step");
  std::vector<std::string> ids;
  ids.reserve(parsed->get_array().size());
  for (const auto& item : parsed->get_array()) {
    if (!item.is_string()) return Damaged("agent step");
    ids.emplace_back(item.get_string());
  }
  return ids;
}

std::optional<std::string> EncodeModelFailures(const std::vector<app::ModelFailure>& failures) {
  if (failures.empty()) return std::nullopt;
  json::JsonWriter writer(16 + failures.size() * 64);
  writer.BeginArray();
  for (const auto& failure : failures) {
    writer.BeginObject().Key("component");
    WriteUtf8(writer, failure.component);
    writer.Key("reason");
    WriteUtf8(writer, failure.reason);
    writer.EndObject();
  }
  writer.EndArray();
  return writer.Take();
}

Result<std::vector<app::ModelFailure>> DecodeModelFailures(std::string_view json_text) {
  std::vector<app::ModelFailure> failures;
  if (json_text.empty()) return failures;
  Result<boost::json::value> parsed = json::Parse(json_text);
  if (!parsed || !parsed->is_array()) return Damaged("model failures");
  for (const auto& item : parsed->get_array()) {
    if (!item.is_object()) return Damaged("model failures");
    auto component = json::GetString(item.get_object(), "component");
    auto reason = json::GetString(item.get_object(), "reason");
    if (!component || !reason) return Damaged("model failures");
    failures.push_back({std::string(*component), std::string(*reason)});
  }
  return failures;
}

}  // namespace diagd::store
