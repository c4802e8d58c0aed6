#include "testing/scripted_diagnosis.h"

#include <boost/json.hpp>
#include <string>

namespace diagd::testing {
namespace {

// The tool messages of the request, in order.
std::vector<const boost::json::object*> ToolResults(const boost::json::value& request) {
  std::vector<const boost::json::object*> results;
  if (!request.is_object()) return results;
  const auto* messages = request.as_object().if_contains("messages");
  if (messages == nullptr || !messages->is_array()) return results;
  for (const auto& message : messages->as_array()) {
    if (message.is_object() && message.as_object().if_contains("role") != nullptr &&
        message.at("role") == "tool") {
      results.push_back(&message.as_object());
    }
  }
  return results;
}

bool FoundEvidence(const boost::json::object& tool_message) {
  const auto* content = tool_message.if_contains("content");
  if (content == nullptr || !content->is_string()) return false;
  boost::system::error_code ec;
  auto observation = boost::json::parse(content->as_string(), ec);
  return !ec && observation.is_object() &&
         observation.as_object().if_contains("evidence_status") != nullptr &&
         observation.at("evidence_status") == "EVIDENCE_FOUND";
}

ScriptedReply NextAgentTurn(const ScriptedModelServer::RecordedRequest& request, int tool_turns) {
  auto results = ToolResults(request.json);
  int done = static_cast<int>(results.size());
  if (done < tool_turns) {
    boost::json::object input{{"topic", "payment-service"},
                              {"query", "HikariPool"},
                              {"lookback_minutes", 60 + done}};  // a new scope each turn
    boost::json::object envelope{{"input", input}};
    if (done > 0 && FoundEvidence(*results.back())) {
      envelope["previous_observation"] = {{"tool_call_id", "call_" + std::to_string(done)},
                                          {"information_gain", "GAINED"}};
    }
    return {ScriptedToolCalls{{{"call_" + std::to_string(done + 1), "query_logs",
                                boost::json::serialize(envelope), false}}},
            {}};
  }
  boost::json::object evidence{{"tool_call_id", "call_1"}, {"quote", kScriptedDiagnosisQuote}};
  boost::json::object conclusion{{"root_cause", "payment-service 数据库连接池耗尽"},
                                 {"confidence", "MEDIUM"},
                                 {"evidence", boost::json::array{evidence}}};
  boost::json::object draft{{"conclusion", conclusion},
                            {"next_steps", boost::json::array{"检查 payment-db 慢查询"}}};
  return {ScriptedAnswer{boost::json::serialize(draft)}, {}};
}

}  // namespace

ScriptedModelServer::Responder ScriptedDiagnosis(int tool_turns, std::chrono::milliseconds latency) {
  return [tool_turns, latency](const ScriptedModelServer::RecordedRequest& request) {
    auto component = request.headers.find("x-diagd-component");
    std::string name = component == request.headers.end() ? "" : component->second;
    ScriptedReply reply;
    if (name == "ROUTER") {
      reply = {ScriptedAnswer{R"({"route":"DIAGNOSIS"})"}, {}};
    } else if (name == "SEMANTIC_GUARD") {
      reply = {ScriptedAnswer{R"({"verdict":"SUPPORTED"})"}, {}};
    } else if (name == "DIAGNOSIS_AGENT") {
      reply = NextAgentTurn(request, tool_turns);
    } else {
      reply = {ScriptedFailure{400, "scripted diagnosis: unexpected component " + name}, {}};
    }
    reply.delay = latency;
    return reply;
  };
}

}  // namespace diagd::testing
