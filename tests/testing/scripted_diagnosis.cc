#include "testing/scripted_diagnosis.h"

#include <boost/json.hpp>
#include <charconv>
#include <string>

namespace diagd::testing {
namespace {

// The request body is the diagd client's own compact JSON, so its tool
// messages read as text without parsing the whole conversation (a load
// driver answers thousands of them).
constexpr std::string_view kToolRole = R"("role":"tool")";

// The tool results so far. This script numbers the agent's calls call_1,
// call_2..., so the last result's id tells how many there are: read from
// the end, where it is, instead of counting through the whole conversation
// (at 30 log events a request is 200 KiB, and a count per request made the
// load driver's scripted server cost more CPU than the diagd it served).
int CountToolResults(std::string_view body) {
  constexpr std::string_view kLastId = R"("tool_call_id":"call_)";
  auto at = body.rfind(kLastId);
  if (at == std::string_view::npos) return 0;
  int count = 0;
  const char* digits = body.data() + at + kLastId.size();
  std::from_chars(digits, body.data() + body.size(), count);
  return count;
}

// Whether the last tool result found evidence (its observation, escaped in
// the message content, says so).
bool LastResultFoundEvidence(std::string_view body) {
  auto last = body.rfind(kToolRole);
  if (last == std::string_view::npos) return false;
  auto content = body.find(R"("content":)", last);
  auto after = content == std::string_view::npos ? body.substr(last) : body.substr(content);
  return after.substr(0, after.find(R"(},{"role")")).find(R"(\"evidence_status\":\"EVIDENCE_FOUND\")") !=
         std::string_view::npos;
}

ScriptedReply NextAgentTurn(const ScriptedModelServer::RecordedRequest& request, int tool_turns) {
  int done = CountToolResults(request.body);
  if (done < tool_turns) {
    boost::json::object input{{"topic", "payment-service"},
                              {"query", "HikariPool"},
                              {"lookback_minutes", 60 + done}};  // a new scope each turn
    boost::json::object envelope{{"input", input}};
    if (done > 0 && LastResultFoundEvidence(request.body)) {
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
