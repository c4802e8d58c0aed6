#include "model/offline/investigation_state.h"

#include <boost/json.hpp>

#include "core/json.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

// "service:order-service level:ERROR" on a topic several services write:
// the place read is the service, inside that topic.
void ReadServiceFilter(CallInput& input) {
  constexpr std::string_view kField = "service:";
  std::string_view query = input.query;
  if (input.topic.empty() || !query.starts_with(kField)) return;
  std::size_t end = query.find(' ');
  std::string_view service = query.substr(kField.size(), end - std::min(end, kField.size()));
  if (end == std::string_view::npos) service = query.substr(kField.size());
  if (service.empty() || service.find(',') != std::string_view::npos) return;
  input.shared_topic = input.topic;
  input.topic = std::string(service);
  input.query = end == std::string_view::npos ? std::string() : std::string(Trim(query.substr(end)));
}


namespace bj = boost::json;

std::string StringOf(const bj::object& object, std::string_view key) {
  auto value = json::GetString(object, key);
  return value ? std::string(*value) : std::string();
}

ToolKind KindOf(std::string_view name) {
  if (name == "search_documents") return ToolKind::kDocuments;
  if (name == "query_logs") return ToolKind::kLogs;
  if (name == "query_mysql") return ToolKind::kMysql;
  if (name == "query_metrics") return ToolKind::kMetrics;
  return ToolKind::kOther;
}

// The names of an `enum` under properties.input.properties.<field>.
std::vector<std::string> EnumOf(const std::string& schema_text, std::string_view field) {
  std::vector<std::string> names;
  auto schema = json::Parse(schema_text);
  if (!schema || !schema->is_object()) return names;
  const bj::value* node = &*schema;
  for (std::string_view key : {std::string_view("properties"), std::string_view("input"),
                               std::string_view("properties"), field, std::string_view("enum")}) {
    if (!node->is_object()) return names;
    node = node->as_object().if_contains(key);
    if (node == nullptr) return names;
  }
  if (!node->is_array()) return names;
  for (const auto& item : node->as_array()) {
    if (item.is_string()) names.emplace_back(item.as_string());
  }
  return names;
}

// "... 可用主题：a, b" / "... Topics: a, b": the names a description lists.
// The names a description lists after its label ("Datasources: orders
// (SQLite), ops (MySQL)"), each with what follows it in parentheses (the
// SQL dialect), or nothing.
struct DescribedName {
  std::string name;
  std::string note;
};

std::vector<DescribedName> DescribedNames(const std::string& description) {
  std::vector<DescribedName> names;
  for (std::string_view label :
       {std::string_view("可用主题："), std::string_view("Topics: "),
        std::string_view("可用数据源："), std::string_view("Datasources: ")}) {
    auto at = description.find(label);
    if (at == std::string::npos) continue;
    std::string_view rest = std::string_view(description).substr(at + label.size());
    while (!rest.empty()) {
      auto comma = rest.find(", ");
      std::string_view item = Trim(rest.substr(0, comma));
      std::string note;
      if (auto open = item.rfind(" ("); open != std::string_view::npos && item.back() == ')') {
        note = std::string(item.substr(open + 2, item.size() - open - 3));
        item = Trim(item.substr(0, open));
      }
      if (!item.empty()) names.push_back({std::string(item), std::move(note)});
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 2);
    }
  }
  return names;
}

std::vector<std::string> NamesFromDescription(const std::string& description) {
  std::vector<std::string> names;
  for (auto& described : DescribedNames(description)) names.push_back(std::move(described.name));
  return names;
}

Cell CellOf(const bj::value& value) {
  if (value.is_string()) return {std::string(value.as_string()), true};
  if (value.is_int64()) return {std::to_string(value.as_int64()), false};
  if (value.is_uint64()) return {std::to_string(value.as_uint64()), false};
  // Doubles, booleans and null: their JSON text is not reproduced exactly
  // after a parse, so they are never quoted (empty text).
  return {std::string(), false};
}

// The series of a metrics result; a label or a point of another shape is
// left out (a value Prometheus could not give is no point).
void ReadSeries(const bj::array& series, CallRecord& call) {
  for (const auto& item : series) {
    if (!item.is_object()) continue;
    const auto& o = item.as_object();
    SeriesItem read;
    if (const auto* labels = o.if_contains("labels"); labels && labels->is_object()) {
      for (const auto& [key, value] : labels->as_object()) {
        if (value.is_string()) read.labels.emplace_back(std::string(key), std::string(value.as_string()));
      }
    }
    read.summary = StringOf(o, "summary");
    if (const auto* points = o.if_contains("points"); points && points->is_array()) {
      for (const auto& point : points->as_array()) {
        if (!point.is_array() || point.as_array().size() != 2) continue;
        const auto& pair = point.as_array();
        if (!pair[0].is_string() || !pair[1].is_number()) continue;
        read.points.emplace_back(std::string(pair[0].as_string()), pair[1].to_number<double>());
      }
    }
    call.series.push_back(std::move(read));
  }
}

void ReadResult(const bj::object& view, CallRecord& call) {
  std::string status = StringOf(view, "evidence_status");
  call.outcome = status == "EVIDENCE_FOUND" ? Outcome::kEvidence
                 : status == "NO_EVIDENCE"  ? Outcome::kNoEvidence
                                            : Outcome::kError;
  call.error_code = StringOf(view, "error_code");
  call.message = StringOf(view, "message");
  if (const auto* lookback = view.if_contains("lookback_minutes");
      lookback && lookback->is_int64()) {
    call.lookback_used = static_cast<int>(lookback->as_int64());
  }
  if (const auto* evidence = view.if_contains("evidence"); evidence && evidence->is_array()) {
    for (const auto& item : evidence->as_array()) {
      if (!item.is_object()) continue;
      const auto& o = item.as_object();
      call.docs.push_back({StringOf(o, "document_id"), StringOf(o, "source"), StringOf(o, "title"),
                           StringOf(o, "breadcrumb"), StringOf(o, "excerpt")});
    }
  }
  if (const auto* events = view.if_contains("events"); events && events->is_array()) {
    for (const auto& item : events->as_array()) {
      if (!item.is_object()) continue;
      const auto& o = item.as_object();
      call.events.push_back({StringOf(o, "timestamp"), StringOf(o, "level"), StringOf(o, "service"),
                             StringOf(o, "message")});
    }
  }
  if (const auto* columns = view.if_contains("columns"); columns && columns->is_array()) {
    for (const auto& item : columns->as_array()) {
      call.columns.push_back(item.is_string() ? std::string(item.as_string()) : std::string());
    }
  }
  if (const auto* rows = view.if_contains("rows"); rows && rows->is_array()) {
    for (const auto& row : rows->as_array()) {
      if (!row.is_array()) continue;
      std::vector<Cell> cells;
      for (const auto& cell : row.as_array()) cells.push_back(CellOf(cell));
      call.rows.push_back(std::move(cells));
    }
  }
  if (const auto* series = view.if_contains("series"); series && series->is_array()) {
    ReadSeries(series->as_array(), call);
  }
}

void ReadObservation(const std::string& content, CallRecord& call) {
  auto parsed = json::Parse(content);
  if (!parsed || !parsed->is_object()) {
    call.outcome = Outcome::kError;
    return;
  }
  const auto& view = parsed->as_object();
  if (const auto* stop = view.if_contains("stop_required"); stop && stop->is_bool()) {
    call.stop_required = stop->as_bool();
  }
  if (view.contains("evidence_status")) {
    ReadResult(view, call);
    return;
  }
  std::string code = StringOf(view, "error_code");
  call.error_code = code;
  if (code == "INVALID_PROGRESS_PROTOCOL") {
    call.outcome = Outcome::kViolation;
    call.violation_type = StringOf(view, "violation_type");
    call.expected_previous_id = StringOf(view, "expected_previous_tool_call_id");
  } else if (code == "INVALID_TOOL_INPUT") {
    call.outcome = Outcome::kInvalidInput;
    call.field = StringOf(view, "field");
    call.reason = StringOf(view, "reason");
  } else if (code == "DUPLICATE_SCOPE") {
    call.outcome = Outcome::kDuplicate;
  } else if (code == "UNKNOWN_TOOL") {
    call.outcome = Outcome::kUnknownTool;
  } else if (call.stop_required) {
    call.outcome = Outcome::kStop;
  } else {
    call.outcome = Outcome::kError;
  }
}

void ReadArguments(const std::string& arguments, CallRecord& call) {
  auto parsed = json::Parse(arguments);
  if (!parsed || !parsed->is_object()) return;
  const auto& envelope = parsed->as_object();
  const auto* previous = envelope.if_contains("previous_observation");
  call.graded = previous != nullptr && previous->is_object();
  const auto* input = envelope.if_contains("input");
  if (input == nullptr || !input->is_object()) return;
  const auto& o = input->as_object();
  call.input.query = StringOf(o, "query");
  call.input.topic = StringOf(o, "topic");
  ReadServiceFilter(call.input);
  call.input.datasource = StringOf(o, "datasource");
  call.input.sql = StringOf(o, "sql");
  if (const auto* lookback = o.if_contains("lookback_minutes"); lookback && lookback->is_int64()) {
    call.input.lookback = static_cast<int>(lookback->as_int64());
  }
  if (const auto* params = o.if_contains("params"); params && params->is_array()) {
    for (const auto& param : params->as_array()) {
      if (param.is_string()) call.input.params.emplace_back(param.as_string());
    }
  }
}

// Which EVIDENCE_FOUND call awaits a grade after these calls (the
// interceptor's steps 2-3, docs/specs/progress-protocol.md): a grade is
// consumed by any call that got past the protocol checks; a protocol answer
// names the pending id when there is one.
std::optional<std::string> PendingAfter(const std::vector<CallRecord>& calls) {
  std::optional<std::string> pending;
  for (const auto& call : calls) {
    switch (call.outcome) {
      case Outcome::kViolation:
        if (!call.expected_previous_id.empty()) pending = call.expected_previous_id;
        break;
      case Outcome::kUnknownTool:
      case Outcome::kNoObservation:
        break;
      case Outcome::kEvidence:
        pending = call.id;
        break;
      default:
        pending.reset();
        break;
    }
  }
  return pending;
}

}  // namespace

const char* ToolWireName(ToolKind tool) {
  switch (tool) {
    case ToolKind::kDocuments:
      return "search_documents";
    case ToolKind::kLogs:
      return "query_logs";
    case ToolKind::kMysql:
      return "query_mysql";
    case ToolKind::kMetrics:
      return "query_metrics";
    case ToolKind::kOther:
      break;
  }
  return "";
}

Lang LanguageOf(const ChatRequest& request) {
  for (const auto& message : request.messages) {
    if (message.role == Role::kSystem) return HasCjk(message.content) ? Lang::kZh : Lang::kEn;
  }
  return Lang::kZh;
}

InvestigationState RebuildState(const ChatRequest& request) {
  InvestigationState state;
  state.lang = LanguageOf(request);
  for (const auto& tool : OfferedTools(request)) {
    ToolKind kind = KindOf(tool.name);
    if (kind == ToolKind::kDocuments) state.offers_documents = true;
    if (kind == ToolKind::kLogs) {
      state.offers_logs = true;
      state.topics = EnumOf(tool.parameters_schema, "topic");
      if (state.topics.empty()) state.topics = NamesFromDescription(tool.description);
    }
    if (kind == ToolKind::kMysql) {
      state.offers_mysql = true;
      state.datasources = EnumOf(tool.parameters_schema, "datasource");
      if (state.datasources.empty()) state.datasources = NamesFromDescription(tool.description);
      for (const auto& described : DescribedNames(tool.description)) {
        if (described.note == "SQLite") state.sqlite_datasources.push_back(described.name);
      }
    }
    if (kind == ToolKind::kMetrics) state.offers_metrics = true;
  }
  std::size_t question_at = request.messages.size();
  for (std::size_t i = 0; i < request.messages.size(); ++i) {
    if (request.messages[i].role == Role::kUser) question_at = i;
  }
  for (std::size_t i = 0; i < request.messages.size() && i <= question_at; ++i) {
    if (request.messages[i].role != Role::kUser) continue;
    if (!state.context.empty()) state.context += "\n";
    state.context += request.messages[i].content;
  }
  if (question_at < request.messages.size()) state.question = request.messages[question_at].content;

  for (std::size_t i = question_at + 1; i < request.messages.size(); ++i) {
    const Message& message = request.messages[i];
    if (message.role == Role::kAssistant) {
      for (const auto& tool_call : message.tool_calls) {
        CallRecord call;
        call.id = tool_call.id;
        call.tool = KindOf(tool_call.name);
        ReadArguments(tool_call.arguments, call);
        state.calls.push_back(std::move(call));
      }
    } else if (message.role == Role::kTool) {
      for (auto it = state.calls.rbegin(); it != state.calls.rend(); ++it) {
        if (it->id == message.tool_call_id && it->outcome == Outcome::kNoObservation) {
          ReadObservation(ContentOf(message), *it);
          if (it->stop_required) state.stop_required = true;
          break;
        }
      }
    }
  }
  state.pending = PendingAfter(state.calls);
  return state;
}

std::string SeriesItem::Label(std::string_view key) const {
  for (const auto& [name, value] : labels) {
    if (name == key) return value;
  }
  return {};
}

std::string SharedTopicOf(const InvestigationState& state, const std::string& service) {
  for (const auto& call : state.calls) {
    if (call.tool == ToolKind::kLogs && call.input.topic == service &&
        !call.input.shared_topic.empty() && call.outcome == Outcome::kEvidence) {
      return call.input.shared_topic;
    }
  }
  return {};
}

}  // namespace diagd::model::offline
