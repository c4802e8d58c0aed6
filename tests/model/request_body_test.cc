// The request body byte for byte: a conversation of every kind of message
// (non-ASCII text, quotes, control characters and a bad byte; an assistant
// turn with tool calls and replayed reasoning; tool results) against the
// body recorded for it. Any change to what goes on the wire fails here,
// whether the body is encoded whole or grown turn by turn.
#include <gtest/gtest.h>

#include <string>

#include "model/openai_wire.h"

namespace diagd::model {
namespace {

constexpr char kSchema[] =
    R"({"type":"object","properties":{"query":{"type":"string"}},"required":["query"]})";

ChatRequest Recorded() {
  ChatRequest request;
  request.component = Component::kDiagnosisAgent;
  request.tools = MakeToolList({{"search_documents", "Search the \"runbooks\".", kSchema},
                                {"query_logs", "Query logs.", ""}});
  request.messages.push_back({Role::kSystem, "You diagnose incidents.\n", {}, ""});
  request.messages.push_back({Role::kUser, "订单服务为什么大量 500？\t\"now\"\xFF", {}, ""});
  Message call{Role::kAssistant, "", {{"call_1", "query_logs", R"({"topic":"orders"})"}}, ""};
  call.reasoning = "look at the pool";
  call.reasoning_source = ReasoningSource::kReasoningContent;
  request.messages.push_back(call);
  request.messages.push_back(
      {Role::kTool, R"({"events":[{"message":"pool \"exhausted\"\\n"}],"note":"a\u0001b"})", {},
       "call_1"});
  request.messages.push_back(
      {Role::kAssistant, "checking", {{"call_2", "search_documents", "{}"}}, ""});
  request.messages.push_back({Role::kTool, "", {}, "call_2"});
  return request;
}

constexpr char kRecordedBody[] =
    R"({"model":"agent-model","tools":[{"type":"function","function":{"name":"search_documents")"
    R"(,"description":"Search the \"runbooks\".","parameters":{"type":"object","properties":{"q)"
    R"(uery":{"type":"string"}},"required":["query"]}}},{"type":"function","function":{"name":")"
    R"(query_logs","description":"Query logs.","parameters":{"type":"object","properties":{}}}})"
    R"(],"tool_choice":"auto","parallel_tool_calls":false,"stream":false,"messages":[{"role":"s)"
    R"(ystem","content":"You diagnose incidents.\n"},{"role":"user","content":"订单服务为什么大量 500？\t)"
    R"(\"now\")"
    "\xEF\xBF\xBD"  // the bad byte, replaced
    R"("},{"role":"assistant","content":null,"reasoning_content":"look at the pool","tool_calls)"
    R"(":[{"id":"call_1","type":"function","function":{"name":"query_logs","arguments":"{\"topi)"
    R"(c\":\"orders\"}"}}]},{"role":"tool","content":"{\"events\":[{\"message\":\"pool \\\"exha)"
    R"(usted\\\"\\\\n\"}],\"note\":\"a\\u0001b\"}","tool_call_id":"call_1"},{"role":"assistant")"
    R"(,"content":"checking","tool_calls":[{"id":"call_2","type":"function","function":{"name":)"
    R"("search_documents","arguments":"{}"}}]},{"role":"tool","content":"","tool_call_id":"call)"
    R"(_2"}]})";

TEST(RequestBodyTest, IsTheRecordedBodyByteForByte) {
  auto body = wire::EncodeRequest(Recorded(), "agent-model");
  ASSERT_TRUE(body.has_value()) << body.error().ToString();
  EXPECT_EQ(*body, kRecordedBody);
}

// As the diagnosis loop sends it: tool results held as shared text, the
// body grown by each turn's messages from what the client kept.
TEST(RequestBodyTest, GrownTurnByTurnFromSharedTextsIsTheRecordedBody) {
  const ChatRequest recorded = Recorded();
  ChatRequest request = recorded;
  request.messages.clear();
  wire::EncodedConversation kept;
  for (std::size_t upto : {2, 4, 6}) {
    while (request.messages.size() < upto) {
      Message message = recorded.messages[request.messages.size()];
      if (message.role == Role::kTool) {
        message.shared_content = SharedText(std::move(message.content));
        message.content.clear();
      }
      request.messages.push_back(std::move(message));
    }
    auto grown = wire::EncodeRequestInto(request, "agent-model", config::ReplayReasoning::kAuto,
                                         kept);
    ASSERT_TRUE(grown.has_value()) << grown.error().ToString();
  }
  // The head; the first turn; each later one written around its shared text.
  EXPECT_EQ(kept.parts.size(), 8u);
  EXPECT_EQ(kept.Body(), kRecordedBody);
}

}  // namespace
}  // namespace diagd::model
