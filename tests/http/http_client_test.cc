#include "http/http_client.h"

#include <gtest/gtest.h>

#include "testing/loopback_http_server.h"

namespace diagd::http {
namespace {

using diagd::testing::LoopbackHttpServer;

TEST(HttpClient, PostsBodyAndHeadersAndReadsTheAnswer) {
  LoopbackHttpServer server([](const LoopbackHttpServer::Request& r) {
    return LoopbackHttpServer::Response{201, "application/json", "{\"echo\":" + r.body + "}"};
  });
  Request request;
  request.url = server.BaseUrl() + "/v1/search";
  request.headers = {{"Content-Type", "application/json"}, {"X-Diagd-Component", "ROUTER"}};
  request.body = R"({"query":"连接池"})";
  auto response = Send(request);
  ASSERT_TRUE(response.has_value()) << response.error().message;
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, R"({"echo":{"query":"连接池"}})");
  auto seen = server.Requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].target, "/v1/search");
  EXPECT_EQ(seen[0].headers.at("x-diagd-component"), "ROUTER");
}

TEST(HttpClient, ReportsTimeoutRefusalAndOversizeAsKinds) {
  LoopbackHttpServer slow([](const LoopbackHttpServer::Request&) {
    return LoopbackHttpServer::Response{200, "text/plain", "late", std::chrono::milliseconds(2000)};
  });
  Request request;
  request.url = slow.BaseUrl();
  request.timeout = std::chrono::milliseconds(200);
  auto timeout = Send(request);
  ASSERT_FALSE(timeout.has_value());
  EXPECT_EQ(timeout.error().kind, FailureKind::kTimeout);

  int closed_port;
  {
    LoopbackHttpServer gone([](const LoopbackHttpServer::Request&) {
      return LoopbackHttpServer::Response{};
    });
    closed_port = gone.port();
  }
  request.url = "http://127.0.0.1:" + std::to_string(closed_port);
  auto refused = Send(request);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().kind, FailureKind::kConnect);

  LoopbackHttpServer big([](const LoopbackHttpServer::Request&) {
    return LoopbackHttpServer::Response{200, "text/plain", std::string(10000, 'x')};
  });
  request.url = big.BaseUrl();
  request.max_response_bytes = 1000;
  auto oversize = Send(request);
  ASSERT_FALSE(oversize.has_value());
  EXPECT_EQ(oversize.error().kind, FailureKind::kTooLarge);
}

TEST(HttpClient, RedactsCredentialsInUrls) {
  EXPECT_EQ(RedactUrl("mysql://app:s3cret@db:3306/orders"), "mysql://***@db:3306/orders");
  EXPECT_EQ(RedactUrl("http://127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1");
}

}  // namespace
}  // namespace diagd::http
