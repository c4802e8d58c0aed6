#include "tools/documents/http_documents_adapter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/json.h"
#include "testing/loopback_http_server.h"

namespace diagd::tools::documents {
namespace {

using diagd::testing::LoopbackHttpServer;
using ::testing::HasSubstr;
using ::testing::Not;

// What a real retrieval service answers: scores, traces, context packs and
// metadata next to the canonical fields.
const char kRichAnswer[] = R"({
  "relevanceLevel": "high",
  "documents": [
    {"document_id": "kb-17", "source": "runbooks/orders.md", "title": "订单服务 Runbook",
     "breadcrumb": "订单服务 Runbook > 连接池", "excerpt": "HikariPool-1 - Connection is not available",
     "score": 0.93, "rerank_score": 12.5, "metadata": {"owner": "orders"},
     "content": "FULL BODY SHOULD NOT PASS"},
    {"document_id": "kb-18", "source": "runbooks/db.md", "title": "DB",
     "excerpt": "max_connections reached", "vector": [0.1, 0.2]}
  ],
  "retrieval_trace": [{"stage": "bm25", "hits": 40}],
  "context_pack": "SECRET CONTEXT PACK",
  "fallback_attempts": 2
})";

LoopbackHttpServer::Response Answer(int status, std::string body,
                                    std::string content_type = "application/json") {
  LoopbackHttpServer::Response response;
  response.status = status;
  response.body = std::move(body);
  response.content_type = std::move(content_type);
  return response;
}

struct Fixture {
  explicit Fixture(LoopbackHttpServer::Handler handler,
                   std::chrono::milliseconds timeout = std::chrono::milliseconds(2000))
      : server(std::move(handler)),
        adapter(HttpDocumentsOptions{server.BaseUrl() + "/search", 20, timeout},
                SystemClock::Instance()) {}

  Result<AdapterOutput, AdapterFailure> Run(const std::string& query = "订单服务 连接池") {
    return adapter.Execute(DocumentsRequest{query},
                           SystemClock::Instance().Monotonic() + std::chrono::seconds(10));
  }

  LoopbackHttpServer server;
  HttpDocumentsAdapter adapter;
};

TEST(HttpDocumentsAdapter, PassesOnlyCanonicalFieldsAndTheRelevanceLevel) {
  Fixture fixture([](const LoopbackHttpServer::Request&) { return Answer(200, kRichAnswer); });
  auto output = fixture.Run();
  ASSERT_TRUE(output.has_value());
  const auto& result = std::get<DocumentsResult>(output->result);
  ASSERT_EQ(result.evidence.size(), 2u);
  EXPECT_EQ(result.evidence[0].document_id, "kb-17");
  EXPECT_EQ(result.evidence[0].source, "runbooks/orders.md");
  EXPECT_EQ(result.evidence[0].title, "订单服务 Runbook");
  EXPECT_EQ(result.evidence[0].breadcrumb, "订单服务 Runbook > 连接池");
  EXPECT_EQ(result.evidence[0].excerpt, "HikariPool-1 - Connection is not available");
  EXPECT_EQ(result.evidence[1].breadcrumb, "");
  ASSERT_TRUE(result.relevance_level.has_value());
  EXPECT_EQ(*result.relevance_level, RelevanceLevel::kHigh);
  // The raw response keeps the upstream body as received, for the record.
  EXPECT_EQ(output->raw_response, kRichAnswer);
  for (const auto& item : result.evidence) {
    for (const std::string* field :
         {&item.document_id, &item.source, &item.title, &item.breadcrumb, &item.excerpt}) {
      EXPECT_THAT(*field, Not(HasSubstr("FULL BODY")));
      EXPECT_THAT(*field, Not(HasSubstr("CONTEXT PACK")));
    }
  }
}

TEST(HttpDocumentsAdapter, PostsExactlyTheQuery) {
  Fixture fixture([](const LoopbackHttpServer::Request&) { return Answer(200, kRichAnswer); });
  ASSERT_TRUE(fixture.Run("订单服务 \"500\" 连接池").has_value());
  auto requests = fixture.server.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/search");
  EXPECT_THAT(requests[0].headers.at("content-type"), HasSubstr("application/json"));
  auto body = json::Parse(requests[0].body);
  ASSERT_TRUE(body.has_value());
  boost::json::object expected;
  expected["query"] = "订单服务 \"500\" 连接池";
  EXPECT_EQ(*body, boost::json::value(expected));
}

TEST(HttpDocumentsAdapter, ReadsSnakeCaseRelevanceAndCutsContentIntoAnExcerpt) {
  std::string content =
      "前言。" + std::string(200, 'x') + " 连接池 耗尽导致超时 " + std::string(200, 'y');
  boost::json::object doc{{"document_id", "d1"},
                          {"source", "a.md"},
                          {"title", "A"},
                          {"content", content},
                          {"score", 3.5}};
  boost::json::object answer{{"relevance_level", "Medium"}, {"documents", boost::json::array{doc}}};
  std::string body = json::Serialize(answer);
  Fixture fixture([&](const LoopbackHttpServer::Request&) { return Answer(200, body); });
  auto output = fixture.Run("连接池");
  ASSERT_TRUE(output.has_value());
  const auto& result = std::get<DocumentsResult>(output->result);
  ASSERT_EQ(result.evidence.size(), 1u);
  const std::string& excerpt = result.evidence[0].excerpt;
  EXPECT_THAT(excerpt, HasSubstr("连接池"));
  EXPECT_NE(content.find(excerpt), std::string::npos);
  EXPECT_LT(excerpt.size(), content.size());
  EXPECT_EQ(result.relevance_level, RelevanceLevel::kMedium);
}

TEST(HttpDocumentsAdapter, DropsAnUnknownRelevanceLevel) {
  Fixture fixture([](const LoopbackHttpServer::Request&) {
    return Answer(200, R"({"relevanceLevel": "very-high", "documents": []})");
  });
  auto output = fixture.Run();
  ASSERT_TRUE(output.has_value());
  const auto& result = std::get<DocumentsResult>(output->result);
  EXPECT_FALSE(result.relevance_level.has_value());
  EXPECT_TRUE(result.evidence.empty());
}

TEST(HttpDocumentsAdapter, ServerErrorsAndThrottlingAreToolUnavailable) {
  for (int status : {500, 502, 503, 429}) {
    Fixture fixture([&](const LoopbackHttpServer::Request&) {
      return Answer(status, R"({"error": "boom at http://10.0.0.1"})");
    });
    auto output = fixture.Run();
    ASSERT_FALSE(output.has_value()) << status;
    EXPECT_EQ(output.error().code, ToolErrorCode::kToolUnavailable) << status;
  }
}

TEST(HttpDocumentsAdapter, HtmlOrWrongShapeIsQueryFailedWithoutEchoingTheBody) {
  const std::string html = "<html><body>Login at http://sso.internal</body></html>";
  for (const std::string& body :
       {html, std::string(R"({"results": []})"), std::string(R"([1, 2])")}) {
    Fixture fixture(
        [&](const LoopbackHttpServer::Request&) { return Answer(200, body, "text/html"); });
    auto output = fixture.Run();
    ASSERT_FALSE(output.has_value()) << body;
    EXPECT_EQ(output.error().code, ToolErrorCode::kQueryFailed);
    EXPECT_FALSE(output.error().message.empty());
    EXPECT_LE(output.error().message.size(), 200u);
    EXPECT_THAT(output.error().message, Not(HasSubstr("sso.internal")));
    EXPECT_THAT(output.error().message, Not(HasSubstr("127.0.0.1")));
  }
}

TEST(HttpDocumentsAdapter, OtherClientErrorsAreQueryFailed) {
  Fixture fixture([](const LoopbackHttpServer::Request&) { return Answer(404, "{}"); });
  auto output = fixture.Run();
  ASSERT_FALSE(output.has_value());
  EXPECT_EQ(output.error().code, ToolErrorCode::kQueryFailed);
  EXPECT_THAT(output.error().message, HasSubstr("404"));
  EXPECT_THAT(output.error().message, Not(HasSubstr("127.0.0.1")));
}

TEST(HttpDocumentsAdapter, ASlowAnswerIsToolTimeout) {
  Fixture fixture(
      [](const LoopbackHttpServer::Request&) {
        auto response = Answer(200, kRichAnswer);
        response.delay = std::chrono::milliseconds(1500);
        return response;
      },
      std::chrono::milliseconds(200));
  auto output = fixture.Run();
  ASSERT_FALSE(output.has_value());
  EXPECT_EQ(output.error().code, ToolErrorCode::kToolTimeout);
}

TEST(HttpDocumentsAdapter, TheDeadlineShortensTheTimeout) {
  Fixture fixture([](const LoopbackHttpServer::Request&) {
    auto response = Answer(200, kRichAnswer);
    response.delay = std::chrono::milliseconds(1500);
    return response;
  });
  auto& clock = SystemClock::Instance();
  auto started = clock.Monotonic();
  auto output =
      fixture.adapter.Execute(DocumentsRequest{"x"}, started + std::chrono::milliseconds(200));
  ASSERT_FALSE(output.has_value());
  EXPECT_EQ(output.error().code, ToolErrorCode::kToolTimeout);
  EXPECT_LT(clock.Monotonic() - started, std::chrono::milliseconds(1200));

  auto late = fixture.adapter.Execute(DocumentsRequest{"x"}, clock.Monotonic());
  ASSERT_FALSE(late.has_value());
  EXPECT_EQ(late.error().code, ToolErrorCode::kToolTimeout);
}

TEST(HttpDocumentsAdapter, ARefusedConnectionIsToolUnavailable) {
  int closed_port;
  {
    LoopbackHttpServer gone([](const LoopbackHttpServer::Request&) { return Answer(200, "{}"); });
    closed_port = gone.port();
  }
  HttpDocumentsAdapter adapter(
      HttpDocumentsOptions{"http://127.0.0.1:" + std::to_string(closed_port) + "/search", 600,
                           std::chrono::milliseconds(1000)},
      SystemClock::Instance());
  auto output = adapter.Execute(DocumentsRequest{"x"},
                                SystemClock::Instance().Monotonic() + std::chrono::seconds(5));
  ASSERT_FALSE(output.has_value());
  EXPECT_EQ(output.error().code, ToolErrorCode::kToolUnavailable);
}

}  // namespace
}  // namespace diagd::tools::documents
