// The body of POST /api/v1/chat, read strictly: every wrong shape is named.
#include "server/chat_request.h"

#include <gtest/gtest.h>

namespace diagd::server {
namespace {

ApiError ErrorOf(std::string_view body) {
  auto parsed = ParseChatRequest(body);
  if (auto* error = std::get_if<ApiError>(&parsed)) return *error;
  ADD_FAILURE() << "accepted: " << body;
  return {};
}

TEST(ChatRequest, ReadsMessageConversationAndRoute) {
  auto parsed = ParseChatRequest(
      R"({"message":"订单服务为什么 500？","conversation_id":"conv-1","route":"knowledge"})");
  ASSERT_TRUE(std::holds_alternative<app::ChatRequest>(parsed));
  const auto& request = std::get<app::ChatRequest>(parsed);
  EXPECT_EQ(request.message, "订单服务为什么 500？");
  EXPECT_EQ(request.conversation_id, "conv-1");
  EXPECT_EQ(request.route, app::Route::kKnowledge);
}

TEST(ChatRequest, OptionalFieldsMayBeAbsentOrNull) {
  auto parsed = ParseChatRequest(R"({"message":"hi","conversation_id":null,"route":null})");
  ASSERT_TRUE(std::holds_alternative<app::ChatRequest>(parsed));
  EXPECT_FALSE(std::get<app::ChatRequest>(parsed).conversation_id.has_value());
  EXPECT_FALSE(std::get<app::ChatRequest>(parsed).route.has_value());
  auto chat = ParseChatRequest(R"({"message":"hi","route":"chat"})");
  EXPECT_EQ(std::get<app::ChatRequest>(chat).route, app::Route::kSystemChat);
  auto diagnosis = ParseChatRequest(R"({"message":"hi","route":"diagnosis"})");
  EXPECT_EQ(std::get<app::ChatRequest>(diagnosis).route, app::Route::kDiagnosis);
}

TEST(ChatRequest, InvalidJsonIsInvalidJson) {
  for (std::string_view body : {"", "{", "{\"message\":\"x\"", "not json", "{\"message\":\"\xff\"}"}) {
    ApiError error = ErrorOf(body);
    EXPECT_EQ(error.status, 400u) << body;
    EXPECT_EQ(error.code, "INVALID_JSON") << body;
  }
}

TEST(ChatRequest, WrongShapesAreInvalidRequestsNamingTheField) {
  struct Case {
    std::string_view body;
    std::string_view names;
  };
  for (const Case& c : {Case{R"([1,2])", "object"}, Case{R"("text")", "object"},
                        Case{R"({})", "message is required"},
                        Case{R"({"message":null})", "message is required"},
                        Case{R"({"message":5})", "message must be a string"},
                        Case{R"({"message":["a"]})", "message must be a string"},
                        Case{R"({"message":""})", "message is empty"},
                        Case{R"({"message":" \n\t　"})", "message is empty"},
                        Case{R"({"message":"x","route":"DIAGNOSIS"})", "route must be"},
                        Case{R"({"message":"x","route":"sql"})", "route must be"},
                        Case{R"({"message":"x","route":1})", "route must be a string"},
                        Case{R"({"message":"x","conversation_id":7})", "conversation_id must be a string"},
                        Case{R"({"message":"x","conversation_id":""})", "conversation_id must be"},
                        Case{R"({"message":"x","conversation_id":"a b"})", "conversation_id must be"},
                        Case{R"({"message":"x","stream":true})", "unknown field: stream"}}) {
    ApiError error = ErrorOf(c.body);
    EXPECT_EQ(error.status, 400u) << c.body;
    EXPECT_EQ(error.code, "INVALID_REQUEST") << c.body;
    EXPECT_NE(error.message.find(c.names), std::string::npos) << c.body << " -> " << error.message;
  }
}

TEST(ChatRequest, AHostileFieldNameIsCutInTheError) {
  std::string body = R"({"message":"x",")" + std::string(5000, 'k') + R"(":1})";
  ApiError error = ErrorOf(body);
  EXPECT_EQ(error.code, "INVALID_REQUEST");
  EXPECT_LT(error.message.size(), 200u);
}

TEST(ApiError, SerializesAsTheContractShape) {
  EXPECT_EQ(ApiErrorJson(InvalidRequest("a \"quoted\" thing")),
            R"({"error":{"code":"INVALID_REQUEST","message":"a \"quoted\" thing"}})");
}

}  // namespace
}  // namespace diagd::server
