#include "http/http_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "runtime/fiber.h"
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

// Runs `send` on `fibers` fibers of a one-worker pool and returns their
// results once all are done.
using SendResult = Result<Response, Failure>;

std::vector<SendResult> SendOnFibers(int fibers, const std::function<SendResult()>& send) {
  std::mutex mu;
  std::vector<SendResult> results;
  {
    runtime::FiberPool pool(1, 256 * 1024);
    for (int i = 0; i < fibers; ++i) {
      pool.Spawn([&] {
        auto result = send();
        std::lock_guard lock(mu);
        results.push_back(std::move(result));
      });
    }
  }
  return results;
}

// A server whose answers carry `headers`.
LoopbackHttpServer::Handler AnswerWithHeaders(
    std::vector<std::pair<std::string, std::string>> headers) {
  return [headers = std::move(headers)](const LoopbackHttpServer::Request&) {
    LoopbackHttpServer::Response response{200, "application/json", "{}"};
    response.headers = headers;
    return response;
  };
}

// `count` header fields of `bytes` bytes each.
std::vector<std::pair<std::string, std::string>> Fields(int count, std::size_t bytes) {
  std::vector<std::pair<std::string, std::string>> fields;
  for (int i = 0; i < count; ++i) {
    fields.emplace_back("X-Field-" + std::to_string(i), std::string(bytes, 'h'));
  }
  return fields;
}

// libcurl's own limits fail with misleading words ("Out of memory" for one
// line over 100 KiB, a receive error for a head over 300 KiB): a long head
// is a failure of its own kind, on a thread as on a fiber.
TEST(HttpClient, RefusesResponseHeadersOverTheLimitAndSaysSo) {
  LoopbackHttpServer one_long_line(AnswerWithHeaders({{"X-Padding", std::string(1 << 20, 'h')}}));
  LoopbackHttpServer many_lines(AnswerWithHeaders(Fields(400, 1000)));
  LoopbackHttpServer just_under(AnswerWithHeaders(Fields(60, 1000)));
  for (const LoopbackHttpServer* server : {&one_long_line, &many_lines}) {
    Request request;
    request.url = server->BaseUrl();
    auto threaded = Send(request);
    auto fibered = SendOnFibers(1, [&] { return Send(request); });
    ASSERT_EQ(fibered.size(), 1u);
    for (const auto* sent : {&threaded, &fibered[0]}) {
      ASSERT_FALSE(sent->has_value());
      EXPECT_EQ(sent->error().kind, FailureKind::kHeadersTooLarge) << sent->error().message;
      EXPECT_EQ(sent->error().message, "response headers over 64 KiB");
    }
  }
  Request request;
  request.url = just_under.BaseUrl();
  auto read = Send(request);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(read->body, "{}");
}

TEST(HttpClient, OnFibersTransfersWaitTogetherWithoutHoldingTheWorker) {
  // One worker, 50 requests answered only after 1.5 s: every request reaches
  // the server before any answer only if a waiting transfer parks its fiber.
  constexpr int kFibers = 50;
  std::atomic<int> answered_before_last_arrived{-1};
  std::atomic<int> completed{0};
  std::atomic<int> arrived{0};
  LoopbackHttpServer server([&](const LoopbackHttpServer::Request& r) {
    if (++arrived == kFibers) answered_before_last_arrived = completed.load();
    return LoopbackHttpServer::Response{200, "application/json", "{\"echo\":" + r.body + "}",
                                        std::chrono::milliseconds(1500)};
  });
  auto results = SendOnFibers(kFibers, [&]() -> Result<Response, Failure> {
    EXPECT_TRUE(runtime::OnFiber());
    Request request;
    request.url = server.BaseUrl();
    request.body = R"({"n":1})";
    auto response = Send(request);
    ++completed;
    return response;
  });
  EXPECT_EQ(answered_before_last_arrived.load(), 0);
  ASSERT_EQ(results.size(), static_cast<std::size_t>(kFibers));
  for (const auto& result : results) {
    ASSERT_TRUE(result.has_value()) << result.error().message;
    EXPECT_EQ(result->status, 200);
    EXPECT_EQ(result->body, R"({"echo":{"n":1}})");
  }
}

TEST(HttpClient, OnFibersAReusedHandleCarriesNothingOfItsLastRequest) {
  // Parked transfers reuse curl handles: a request after a POST with a
  // header, a long body in parts and a tight size cap must go out as it is
  // asked, with none of those.
  LoopbackHttpServer server([](const LoopbackHttpServer::Request& r) {
    return LoopbackHttpServer::Response{200, "text/plain", std::string(5000, 'y') + r.body};
  });
  const std::string long_part(100'000, 'p');
  auto results = SendOnFibers(1, [&]() -> Result<Response, Failure> {
    std::vector<Result<Response, Failure>> sent;
    for (int i = 0; i < 3; ++i) {
      Request first;
      first.url = server.BaseUrl() + "/first";
      first.headers = {{"X-First", "1"}};
      first.body_parts = {long_part, "-tail"};
      first.max_response_bytes = 200'000;
      if (!Send(first).has_value()) return Unexpected(Failure{FailureKind::kOther, "first"});
      Request second;
      second.method = "GET";
      second.url = server.BaseUrl() + "/second";
      auto got = Send(second);
      if (!got.has_value() || got->body != std::string(5000, 'y')) return got;
    }
    return Response{};
  });
  ASSERT_EQ(results.size(), 1u);
  ASSERT_TRUE(results[0].has_value()) << results[0].error().message;
  for (const auto& seen : server.Requests()) {
    if (seen.target != "/second") continue;
    EXPECT_EQ(seen.method, "GET");
    EXPECT_TRUE(seen.body.empty());
    EXPECT_EQ(seen.headers.count("x-first"), 0u);
  }
  EXPECT_EQ(server.Requests().size(), 6u);
}

TEST(HttpClient, OnFibersTimeoutRefusalAndOversizeAreTheSameKinds) {
  LoopbackHttpServer slow([](const LoopbackHttpServer::Request&) {
    return LoopbackHttpServer::Response{200, "text/plain", "late", std::chrono::milliseconds(2000)};
  });
  LoopbackHttpServer big([](const LoopbackHttpServer::Request&) {
    return LoopbackHttpServer::Response{200, "text/plain", std::string(10000, 'x')};
  });
  int closed_port;
  {
    LoopbackHttpServer gone([](const LoopbackHttpServer::Request&) {
      return LoopbackHttpServer::Response{};
    });
    closed_port = gone.port();
  }
  std::atomic<int> next{0};
  auto results = SendOnFibers(3, [&]() -> Result<Response, Failure> {
    Request request;
    switch (next++) {
      case 0:
        request.url = slow.BaseUrl();
        request.timeout = std::chrono::milliseconds(200);
        break;
      case 1:
        request.url = "http://127.0.0.1:" + std::to_string(closed_port);
        break;
      default:
        request.url = big.BaseUrl();
        request.max_response_bytes = 1000;
    }
    auto response = Send(request);
    if (!response) return Unexpected(Failure{response.error().kind, request.url});
    return response;
  });
  std::map<std::string, FailureKind> kinds;
  for (const auto& result : results) {
    ASSERT_FALSE(result.has_value());
    kinds[result.error().message] = result.error().kind;
  }
  EXPECT_EQ(kinds.at(slow.BaseUrl()), FailureKind::kTimeout);
  EXPECT_EQ(kinds.at("http://127.0.0.1:" + std::to_string(closed_port)), FailureKind::kConnect);
  EXPECT_EQ(kinds.at(big.BaseUrl()), FailureKind::kTooLarge);
}

// Parked transfers leave a kept connection's socket in the engine's epoll
// set between calls. However a kept connection ends (an answer saying
// `Connection: close`, the server dropping it while idle, noticed at once or
// only when it is next reused), the next call gets a socket that is watched,
// though it is often given the number of the one just closed: were it taken
// for the old one, still in the set, the call would never be answered.
TEST(HttpClient, OnFibersEveryCallIsAnsweredHoweverTheKeptConnectionBeforeItEnded) {
  LoopbackHttpServer server([](const LoopbackHttpServer::Request& r) {
    LoopbackHttpServer::Response response{200, "text/plain", "answer to " + r.target};
    response.close_after_answer = r.target.starts_with("/dropped");
    return response;
  });
  struct Step {
    std::string target;
    bool keep_alive;
    std::chrono::milliseconds idle_after{0};
  };
  const std::vector<Step> steps = {
      {"/kept", true},        {"/kept", true},
      {"/dropped", true},     {"/after-drop", true},
      {"/dropped-idle", true, std::chrono::milliseconds(200)},
      {"/after-idle", true},  {"/closed", false},
      {"/after-close", true}, {"/kept", true},
  };
  constexpr int kRounds = 3;
  auto results = SendOnFibers(1, [&]() -> SendResult {
    for (int round = 0; round < kRounds; ++round) {
      for (const Step& step : steps) {
        server.set_keep_alive(step.keep_alive);
        Request request;
        request.method = "GET";
        request.url = server.BaseUrl() + step.target;
        request.timeout = std::chrono::seconds(10);
        auto got = Send(request);
        if (!got.has_value()) return Unexpected(Failure{got.error().kind, step.target});
        if (got->body != "answer to " + step.target) return got;
        if (step.idle_after.count() > 0) runtime::SleepFor(step.idle_after);
      }
    }
    return Response{200, "text/plain", "done", std::nullopt};
  });
  ASSERT_EQ(results.size(), 1u);
  ASSERT_TRUE(results[0].has_value()) << results[0].error().message;
  EXPECT_EQ(results[0]->body, "done");
  EXPECT_EQ(server.Requests().size(), steps.size() * kRounds);
}

// A server that holds every request for minutes, and counts them.
struct HeldServer {
  std::atomic<int> arrived{0};
  LoopbackHttpServer server{[this](const LoopbackHttpServer::Request&) {
    ++arrived;
    return LoopbackHttpServer::Response{200, "text/plain", "late", std::chrono::minutes(10)};
  }};
};

Request HeldRequest(const HeldServer& held, const std::stop_source& cancel) {
  Request request;
  request.url = held.server.BaseUrl();
  request.timeout = std::chrono::hours(1);  // only the cancel can end it
  request.cancel = cancel.get_token();
  return request;
}

// Requests `cancel` once the server holds the request.
std::thread CancelWhenHeld(HeldServer& held, std::stop_source& cancel) {
  return std::thread([&held, &cancel] {
    while (held.arrived.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    cancel.request_stop();
  });
}

TEST(HttpClient, ACancelledRequestIsNeverSent) {
  HeldServer held;
  std::stop_source cancel;
  cancel.request_stop();
  auto sent = Send(HeldRequest(held, cancel));
  ASSERT_FALSE(sent.has_value());
  EXPECT_TRUE(sent.error().cancelled);
  EXPECT_EQ(held.arrived.load(), 0);
}

TEST(HttpClient, ACancelAbandonsATransferInFlight) {
  HeldServer held;
  std::stop_source cancel;
  std::thread canceller = CancelWhenHeld(held, cancel);
  auto sent = Send(HeldRequest(held, cancel));
  canceller.join();
  ASSERT_FALSE(sent.has_value());
  EXPECT_TRUE(sent.error().cancelled);
  EXPECT_EQ(sent.error().kind, FailureKind::kOther);
}

TEST(HttpClient, OnFibersACancelAbandonsAParkedTransfer) {
  HeldServer held;
  std::stop_source cancel;
  std::thread canceller = CancelWhenHeld(held, cancel);
  auto results = SendOnFibers(1, [&]() -> SendResult { return Send(HeldRequest(held, cancel)); });
  canceller.join();
  ASSERT_EQ(results.size(), 1u);
  ASSERT_FALSE(results[0].has_value());
  EXPECT_TRUE(results[0].error().cancelled);
}

TEST(HttpClient, RedactsCredentialsInUrls) {
  EXPECT_EQ(RedactUrl("mysql://app:s3cret@db:3306/orders"), "mysql://***@db:3306/orders");
  EXPECT_EQ(RedactUrl("http://127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1");
}

}  // namespace
}  // namespace diagd::http
