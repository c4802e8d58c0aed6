// A conversation's request body kept between calls (ChatRequest::conversation):
// each turn appends only its new messages, and the body is always the one a
// whole encoding of the same request gives, byte for byte. Anything the
// encoder can notice (an earlier message of another size, other tools,
// another model or replay rule) makes it encode the body whole again.
#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <string>

#include "core/json.h"
#include "core/text.h"
#include "http/http_client.h"
#include "model/openai_client_fixture.h"
#include "model/openai_wire.h"

namespace diagd::model {
namespace {

using config::ReplayReasoning;
using wire::EncodedConversation;
using Written = std::shared_ptr<const std::string>;

constexpr char kSchema[] =
    R"({"type":"object","properties":{"query":{"type":"string"}},"required":["query"]})";

// A written part of a kept body, for tests that look into one.
std::string& WrittenPart(EncodedConversation::Part& part) { return std::get<std::string>(part); }
std::string_view Bytes(const EncodedConversation::Part& part) {
  return EncodedConversation::BytesOf(part);
}

ChatRequest NewConversation() {
  ChatRequest request;
  request.component = Component::kDiagnosisAgent;
  request.tools = MakeToolList({{"search_documents", "Search the runbooks.", kSchema}});
  request.messages.push_back({Role::kSystem, "You diagnose incidents.", {}, ""});
  request.messages.push_back({Role::kUser, "订单服务为什么大量 500？", {}, ""});
  return request;
}

// One turn of the loop: the model called a tool and the tool answered.
void AddTurn(ChatRequest& request, int n, std::string result) {
  const std::string id = "call_" + std::to_string(n);
  Message call{Role::kAssistant, "", {{id, "search_documents", R"({"query":"pool"})"}}, ""};
  call.reasoning = "look at the pool, turn " + std::to_string(n);
  call.reasoning_source = ReasoningSource::kReasoningContent;
  request.messages.push_back(std::move(call));
  request.messages.push_back({Role::kTool, std::move(result), {}, id});
}

std::string Whole(const ChatRequest& request, ReplayReasoning replay = ReplayReasoning::kAuto) {
  auto body = wire::EncodeRequest(request, "agent-model", replay);
  EXPECT_TRUE(body.has_value()) << body.error().ToString();
  return body.value_or("");
}

std::string Grown(const ChatRequest& request, EncodedConversation& conversation,
                  ReplayReasoning replay = ReplayReasoning::kAuto) {
  auto encoded = wire::EncodeRequestInto(request, "agent-model", replay, conversation);
  EXPECT_TRUE(encoded.has_value()) << encoded.error().ToString();
  return conversation.Body();
}

// A conversation encoded after one turn, its kept head marked with a model
// name no encoding writes: a body encoded whole again loses the mark.
EncodedConversation KeptAfterOneTurn(ChatRequest& request) {
  AddTurn(request, 1, R"({"evidence_status":"FOUND"})");
  EncodedConversation conversation;
  Grown(request, conversation);
  WrittenPart(conversation.parts[0]).replace(Bytes(conversation.parts[0]).find("agent-model"), 11,
                                         "kept--model");
  return conversation;
}

TEST(EncodedConversationTest, EachTurnsBodyIsTheWholeEncodingByteForByte) {
  ChatRequest request = NewConversation();
  EncodedConversation conversation;
  EXPECT_EQ(Grown(request, conversation), Whole(request));
  for (int n = 1; n <= 4; ++n) {
    // Results with quotes, control characters and a bad byte, as tools give.
    AddTurn(request, n, R"({"evidence_status":"FOUND","line":"pool \"exhausted\"\t)" +
                            std::string(n, 'x') + "\xFF\"}");
    const std::string grown = Grown(request, conversation);
    ASSERT_EQ(grown, Whole(request)) << "turn " << n;
    ASSERT_EQ(conversation.shapes.size(), request.messages.size());
  }
  auto parsed = json::Parse(conversation.Body());
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  const auto& messages = parsed->at("messages").as_array();
  ASSERT_EQ(messages.size(), 10u);
  EXPECT_EQ(messages[9].at("tool_call_id"), boost::json::value("call_4"));
  EXPECT_EQ(messages[8].at("reasoning_content"), boost::json::value("look at the pool, turn 4"));
  EXPECT_EQ(parsed->at("model"), boost::json::value("agent-model"));
  EXPECT_EQ(parsed->at("tools").as_array().size(), 1u);
}

TEST(EncodedConversationTest, AppendsToTheKeptBodyRatherThanEncodingItAgain) {
  ChatRequest request = NewConversation();
  EncodedConversation conversation;
  Grown(request, conversation);
  // A body the encoder could not have written tells whether it was kept:
  // reuse keeps its start as it is, a whole encoding would replace it.
  WrittenPart(conversation.parts[0]).replace(Bytes(conversation.parts[0]).find("agent-model"), 11,
                                         "kept--model");
  AddTurn(request, 1, R"({"evidence_status":"FOUND"})");
  EXPECT_NE(Grown(request, conversation).find("kept--model"), std::string::npos);
}

TEST(EncodedConversationTest, AnEarlierMessageOfAnotherSizeMakesTheBodyWholeAgain) {
  ChatRequest request = NewConversation();
  EncodedConversation conversation = KeptAfterOneTurn(request);
  request.messages[3].content = R"({"evidence_status":"NOT_FOUND"})";
  AddTurn(request, 2, R"({"evidence_status":"FOUND"})");
  EXPECT_EQ(Grown(request, conversation), Whole(request));
}

TEST(EncodedConversationTest, FewerMessagesThanEncodedMakesTheBodyWholeAgain) {
  ChatRequest request = NewConversation();
  EncodedConversation conversation = KeptAfterOneTurn(request);
  request.messages.resize(2);
  EXPECT_EQ(Grown(request, conversation), Whole(request));
}

TEST(EncodedConversationTest, OtherToolsModelOrReplayMakeTheBodyWholeAgain) {
  ChatRequest request = NewConversation();
  EncodedConversation conversation = KeptAfterOneTurn(request);

  request.tools =
      MakeToolList({{"search_documents", "Search the runbooks, in Chinese first.", kSchema}});
  EXPECT_EQ(Grown(request, conversation), Whole(request));

  // The reasoning goes out under kAuto and not under kNever: same
  // messages, another body.
  const std::string never = Grown(request, conversation, ReplayReasoning::kNever);
  EXPECT_EQ(never, Whole(request, ReplayReasoning::kNever));
  EXPECT_EQ(never.find("reasoning_content"), std::string::npos);

  auto other_model = wire::EncodeRequestInto(request, "other-model", ReplayReasoning::kNever,
                                             conversation);
  ASSERT_TRUE(other_model.has_value());
  EXPECT_NE(conversation.Body().find("\"other-model\""), std::string::npos);
}

TEST(EncodedConversationTest, EachTurnAddsOnePartAndCopiesNoEarlierOne) {
  ChatRequest request = NewConversation();
  EncodedConversation conversation;
  Grown(request, conversation);
  ASSERT_EQ(conversation.parts.size(), 2u);  // the head; system and user, "]}"
  const char* first_turn = nullptr;
  for (int n = 1; n <= 3; ++n) {
    AddTurn(request, n, R"({"evidence_status":"FOUND"})");
    Grown(request, conversation);
    ASSERT_EQ(conversation.parts.size(), 2u + n);
    EXPECT_TRUE(Bytes(conversation.parts.back()).ends_with("}]}"));
    EXPECT_EQ(Bytes(conversation.parts[1 + n]).front(), ',');  // the turn just added
    if (n == 1) first_turn = Bytes(conversation.parts[2]).data();
    EXPECT_EQ(Bytes(conversation.parts[2]).data(), first_turn) << "the first turn's part was copied";
  }
}

// A tool result held as shared text (Message::shared_content, as the
// diagnosis loop holds them) goes out as the same message in plain text
// would, and is a part of the kept body of its own: held once, in the form
// the body carries, by its message and the body alike.
TEST(EncodedConversationTest, ASharedTextIsSentAsPlainTextWouldBeAndHeldOnce) {
  ChatRequest plain = NewConversation();
  ChatRequest shared = NewConversation();
  EncodedConversation conversation;
  for (int n = 1; n <= 3; ++n) {
    const std::string result =
        R"({"line":"pool \"exhausted\"\t)" + std::string(n, 'x') + "\xFF\"}";
    AddTurn(plain, n, result);
    AddTurn(shared, n, "");
    shared.messages.back().shared_content = SharedText(result);
    ASSERT_EQ(Grown(shared, conversation), Whole(plain)) << "turn " << n;
    EXPECT_EQ(ContentOf(shared.messages.back()), text::SanitizeUtf8(result));
    EXPECT_EQ(Whole(shared), Whole(plain)) << "turn " << n;
  }
  ASSERT_EQ(conversation.shapes.size(), shared.messages.size());
  int parts = 0;
  for (const auto& part : conversation.parts) {
    if (const auto* bytes = std::get_if<Written>(&part)) {
      ++parts;
      // The body's part, the text's own written form, and this test's
      // look at it through HeldAs: nothing else holds the text.
      EXPECT_EQ(bytes->use_count(), 2) << "held by its message and the body only";
    }
  }
  EXPECT_EQ(parts, 3);
  EXPECT_TRUE(std::holds_alternative<std::string>(conversation.parts.back()));

  // Another result of another size in place of the first: encoded whole again.
  shared.messages[3].shared_content = SharedText(R"({"line":"replaced"})");
  plain.messages[3].content = R"({"line":"replaced"})";
  EXPECT_EQ(Grown(shared, conversation), Whole(plain));
}

TEST(EncodedConversationTest, ASharedTextReadsTheSameBeforeAndAfterItIsWritten) {
  const std::string text = "订单 \"500\"\n";
  Message plain{Role::kTool, text, {}, "call_1"};
  Message shared{Role::kTool, "", {}, "call_1"};
  shared.shared_content = SharedText(text);
  EXPECT_EQ(ContentOf(plain), text);
  EXPECT_EQ(ContentOf(shared), text);
  const Written written = shared.shared_content.HeldAs(wire::kJsonString);
  EXPECT_EQ(*written, R"("订单 \"500\"\n")");
  EXPECT_EQ(shared.shared_content.HeldAs(wire::kJsonString), written) << "written once";
  EXPECT_EQ(ContentOf(shared), text);
  EXPECT_EQ(wire::kJsonString.read(R"("caf\u00e9 \u8ba2\u5355")"), "café 订单")
      << "any JSON string reads back";
  // Sized exactly: a run holds it to its end.
  const Written long_one = SharedText(std::string(1000, '"')).HeldAs(wire::kJsonString);
  EXPECT_EQ(long_one->size(), 2002u);
  EXPECT_EQ(long_one->capacity(), long_one->size());
  EXPECT_EQ(ContentOf(Message{}), "");
}

TEST(EncodedConversationTest, PartsJoinedByTheClientAreReusedAsOne) {
  ChatRequest request = NewConversation();
  AddTurn(request, 1, R"({"evidence_status":"FOUND"})");
  EncodedConversation conversation;
  const std::string body = Grown(request, conversation);
  conversation.Join();
  ASSERT_EQ(conversation.parts.size(), 1u);
  EXPECT_EQ(Bytes(conversation.parts.front()), body);
  EXPECT_LE(WrittenPart(conversation.parts.front()).capacity(), body.size() + body.size() / 16)
      << "joined with slack: the body is held while the model answers";
  AddTurn(request, 2, R"({"evidence_status":"NOT_FOUND"})");
  EXPECT_EQ(Grown(request, conversation), Whole(request));
  EXPECT_EQ(conversation.parts.size(), 2u);
}

TEST(EncodedConversationTest, ABodyWithoutItsPartsIsEncodedWhole) {
  ChatRequest request = NewConversation();
  EncodedConversation conversation;
  Grown(request, conversation);
  conversation.parts.clear();
  AddTurn(request, 1, R"({"evidence_status":"FOUND"})");
  EXPECT_EQ(Grown(request, conversation), Whole(request));
}

// The tools are encoded once per shared list and kept: a request with the
// same list gets the same bytes, and one with another list (a catalog
// changed while the server runs), even a list at the same address after
// the first was freed, gets its own tools, never the kept ones.
TEST(EncodedConversationTest, EachToolListIsEncodedAsItIsThoughEncodingsAreKept) {
  ChatRequest request = NewConversation();
  auto first = wire::EncodeRequest(request, "agent-model");
  auto again = wire::EncodeRequest(request, "agent-model");
  ASSERT_TRUE(first && again);
  EXPECT_EQ(*again, *first);
  EXPECT_NE(first->find("Search the runbooks."), std::string::npos);
  for (int n = 0; n < 3; ++n) {
    const std::string description = "Search the runbooks, edition " + std::to_string(n) + ".";
    request.tools = MakeToolList({{"search_documents", description, kSchema}});
    auto edited = wire::EncodeRequest(request, "agent-model");
    ASSERT_TRUE(edited);
    EXPECT_NE(edited->find(description), std::string::npos) << n;
    EXPECT_EQ(edited->find("Search the runbooks.\""), std::string::npos) << n;
  }
  request.tools = MakeToolList({{"search_documents", "Search the runbooks.", "{\"type\":1"}});
  EXPECT_FALSE(wire::EncodeRequest(request, "agent-model"));
}

TEST(EncodedConversationTest, ABadToolSchemaFailsAndLeavesNothingToReuse) {
  ChatRequest request = NewConversation();
  EncodedConversation conversation;
  Grown(request, conversation);
  request.tools = MakeToolList({{"search_documents", "Search the runbooks.", "[1,2]"}});
  auto encoded = wire::EncodeRequestInto(request, "agent-model", ReplayReasoning::kAuto,
                                         conversation);
  ASSERT_FALSE(encoded.has_value());
  EXPECT_EQ(encoded.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(conversation.parts.empty());
  EXPECT_TRUE(conversation.shapes.empty());
}

// Through the real client and HTTP: the kept body is what the server gets
// on every call, a failed exchange's included.
TEST_F(OpenAiClientTest, AKeptConversationSendsEachTurnWholeAndGetsItsBodyBack) {
  config::ModelConfig config = ConfigFor(server_.BaseUrl());
  config.per_component[Component::kDiagnosisAgent].name = "agent-model";
  config.per_component[Component::kDiagnosisAgent].max_attempts = 1;
  OpenAiChatModel client(config, FastOptions());
  ChatRequest request = NewConversation();
  request.conversation = std::make_shared<model::Conversation>();
  auto kept = [&request]() -> const EncodedConversation& {
    return dynamic_cast<const EncodedConversation&>(*request.conversation->state);
  };

  server_.Answer("first");
  ASSERT_TRUE(client.Complete(request).has_value());
  EXPECT_EQ(kept().Body(), Whole(request));
  EXPECT_EQ(kept().parts.size(), 1u) << "a short body is kept in one part";

  AddTurn(request, 1, R"({"evidence_status":"FOUND"})");
  server_.FailWithStatus(400, "bad request");
  ASSERT_FALSE(client.Complete(request).has_value());
  EXPECT_EQ(kept().Body(), Whole(request));

  // A result past the size sent whole: the body goes out in parts.
  AddTurn(request, 2, R"({"evidence_status":"NOT_FOUND","events":")" +
                          std::string(http::kOneSendBodyBytes, 'e') + "\"}");
  server_.Answer("third");
  ASSERT_TRUE(client.Complete(request).has_value());
  EXPECT_GT(kept().parts.size(), 1u);

  auto seen = server_.Requests();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].json.at("messages").as_array().size(), 2u);
  EXPECT_EQ(seen[1].json.at("messages").as_array().size(), 4u);
  EXPECT_EQ(seen[2].body, Whole(request));
  EXPECT_EQ(seen[2].json.at("messages").as_array().size(), 6u);
}

// What another client kept in a conversation is no body to grow: the
// client starts its own, and sends the request whole.
TEST_F(OpenAiClientTest, AConversationKeptByAnotherClientIsStartedAfresh) {
  struct Other final : Conversation::State {};
  ChatRequest request = NewConversation();
  request.conversation = std::make_shared<model::Conversation>();
  request.conversation->state = std::make_unique<Other>();
  server_.Answer("first");
  ASSERT_TRUE(Client()->Complete(request).has_value());
  ASSERT_NE(dynamic_cast<const EncodedConversation*>(request.conversation->state.get()), nullptr);
  auto seen = server_.Requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].json.at("messages").as_array().size(), 2u);
}

// A text held in one client's form and asked for in another's is read back
// first: each form is written from the text itself.
TEST(EncodedConversationTest, ASharedTextHeldInOneFormIsWrittenInAnotherFromItsText) {
  static const SharedText::Form kUpper{
      [](std::string_view text) {
        std::string upper(text);
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return "<" + upper + ">";
      },
      [](std::string_view written) {
        std::string text(written.substr(1, written.size() - 2));
        for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return text;
      }};
  const SharedText text("pool exhausted");
  EXPECT_EQ(*text.HeldAs(kUpper), "<POOL EXHAUSTED>");
  EXPECT_EQ(text.str(), "pool exhausted");
  EXPECT_EQ(*text.HeldAs(wire::kJsonString), R"("pool exhausted")");
  EXPECT_EQ(text.str(), "pool exhausted");
}

}  // namespace
}  // namespace diagd::model
