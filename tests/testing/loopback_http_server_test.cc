#include "testing/loopback_http_server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <latch>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "http/http_client.h"

namespace diagd::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// `clients` threads released together, each sending `GET <base>/r/<i>`
// with a timeout far beyond any delay here, so that only the server decides
// when an exchange ends.
std::vector<Result<http::Response, http::Failure>> SendAtOnce(const std::string& base_url,
                                                              int clients) {
  std::vector<std::optional<Result<http::Response, http::Failure>>> results(clients);
  std::latch start(1);
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      http::Request request;
      request.method = "GET";
      request.url = base_url + "/r/" + std::to_string(i);
      request.timeout = milliseconds(120000);
      request.connect_timeout = milliseconds(60000);
      start.wait();
      results[i] = http::Send(request);
    });
  }
  start.count_down();
  for (auto& t : threads) t.join();
  std::vector<Result<http::Response, http::Failure>> out;
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

// The most requests the server provably held at once: request i is held at
// least from its handler call t_i until t_i + delay (the delay starts after
// the handler returns), so at each t_j every i with t_j - delay < t_i <= t_j
// was pending. No assumption on how fast the machine is.
std::size_t MostHeldAtOnce(std::vector<Clock::time_point> handled, milliseconds delay) {
  std::sort(handled.begin(), handled.end());
  std::size_t most = 0;
  std::size_t oldest = 0;
  for (std::size_t j = 0; j < handled.size(); ++j) {
    while (handled[oldest] + delay <= handled[j]) ++oldest;
    most = std::max(most, j - oldest + 1);
  }
  return most;
}

TEST(LoopbackHttpServer, HoldsHundredsOfDelayedRequestsAtOnce) {
  constexpr int kClients = 500;
  constexpr milliseconds kDelay(300);
  std::mutex mu;
  std::vector<Clock::time_point> handled;
  LoopbackHttpServer server([&](const LoopbackHttpServer::Request& request) {
    std::lock_guard<std::mutex> lock(mu);
    handled.push_back(Clock::now());
    return LoopbackHttpServer::Response{200, "text/plain", "answer to " + request.target, kDelay};
  });

  Clock::time_point begin = Clock::now();
  auto results = SendAtOnce(server.BaseUrl(), kClients);
  auto elapsed = Clock::now() - begin;

  for (int i = 0; i < kClients; ++i) {
    ASSERT_TRUE(results[i].has_value()) << i << ": " << results[i].error().message;
    EXPECT_EQ(results[i]->status, 200);
    EXPECT_EQ(results[i]->body, "answer to /r/" + std::to_string(i));
  }
  EXPECT_EQ(server.Requests().size(), static_cast<std::size_t>(kClients));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_GT(MostHeldAtOnce(handled, kDelay), 100u);
  // One at a time would take 150 s; this bound only catches serial service.
  EXPECT_LT(elapsed, std::chrono::seconds(30));
}

// Sends `GET /r/<i>` for i = 0..count-1 in turn over one connection and
// returns the answers' bodies; stops at the first exchange that fails.
std::vector<std::string> ExchangesOverOneConnection(int port, int count, bool* closed_after) {
  namespace beast = boost::beast;
  namespace bhttp = beast::http;
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket(io);
  socket.connect({boost::asio::ip::address_v4::loopback(), static_cast<unsigned short>(port)});
  beast::flat_buffer buffer;
  std::vector<std::string> bodies;
  bool keep_alive = true;
  for (int i = 0; i < count && keep_alive; ++i) {
    bhttp::request<bhttp::empty_body> request(bhttp::verb::get, "/r/" + std::to_string(i), 11);
    request.set(bhttp::field::host, "127.0.0.1");
    boost::system::error_code error;
    bhttp::write(socket, request, error);
    if (error) break;
    bhttp::response<bhttp::string_body> response;
    bhttp::read(socket, buffer, response, error);
    if (error) break;
    bodies.push_back(response.body());
    keep_alive = response.keep_alive();
  }
  *closed_after = !keep_alive;
  return bodies;
}

LoopbackHttpServer::Response EchoTarget(const LoopbackHttpServer::Request& request) {
  LoopbackHttpServer::Response response;
  response.body = request.target;
  return response;
}

TEST(LoopbackHttpServer, AnswersOneExchangePerConnectionByDefault) {
  LoopbackHttpServer server(&EchoTarget);
  bool closed = false;
  auto bodies = ExchangesOverOneConnection(server.port(), 3, &closed);
  EXPECT_EQ(bodies, std::vector<std::string>{"/r/0"});
  EXPECT_TRUE(closed) << "the answer says Connection: close";
}

TEST(LoopbackHttpServer, WithKeepAliveAConnectionCarriesExchangesInTurn) {
  LoopbackHttpServer server(&EchoTarget);
  server.set_keep_alive(true);
  bool closed = true;
  auto bodies = ExchangesOverOneConnection(server.port(), 3, &closed);
  EXPECT_EQ(bodies, (std::vector<std::string>{"/r/0", "/r/1", "/r/2"}));
  EXPECT_FALSE(closed);
  EXPECT_EQ(server.Requests().size(), 3u);
}

TEST(LoopbackHttpServer, HangUpClosesTheConnectionWithoutAnswer) {
  LoopbackHttpServer server([](const LoopbackHttpServer::Request&) {
    LoopbackHttpServer::Response response;
    response.body = "never sent";
    response.hang_up = true;
    return response;
  });
  http::Request request;
  request.url = server.BaseUrl() + "/v1/chat/completions";
  request.body = "{}";
  auto result = http::Send(request);
  EXPECT_FALSE(result.has_value()) << "got status " << result->status;
  ASSERT_EQ(server.Requests().size(), 1u);
  EXPECT_EQ(server.Requests()[0].target, "/v1/chat/completions");
}

TEST(LoopbackHttpServer, DestructorCutsPendingDelaysShort) {
  constexpr int kClients = 50;
  std::mutex mu;
  std::condition_variable seen_all;
  int handled = 0;
  auto server = std::make_unique<LoopbackHttpServer>([&](const LoopbackHttpServer::Request&) {
    std::lock_guard<std::mutex> lock(mu);
    if (++handled == kClients) seen_all.notify_all();
    return LoopbackHttpServer::Response{200, "text/plain", "too late", milliseconds(60000)};
  });

  std::vector<Result<http::Response, http::Failure>> results;
  std::thread clients([&, url = server->BaseUrl()] { results = SendAtOnce(url, kClients); });
  {
    std::unique_lock<std::mutex> lock(mu);
    // No ASSERT: the client thread must be joined whatever happens.
    EXPECT_TRUE(
        seen_all.wait_for(lock, std::chrono::seconds(60), [&] { return handled == kClients; }))
        << "only " << handled << " requests arrived";
  }
  Clock::time_point begin = Clock::now();
  server.reset();
  // The delays were 60 s; stopping must not wait for them.
  EXPECT_LT(Clock::now() - begin, std::chrono::seconds(10));
  clients.join();
  for (const auto& result : results) EXPECT_FALSE(result.has_value()) << "an answer came through";
}

TEST(LoopbackHttpServer, ReadsBodiesOfSeveralMegabytes) {
  LoopbackHttpServer server([](const LoopbackHttpServer::Request& request) {
    return LoopbackHttpServer::Response{200, "text/plain", std::to_string(request.body.size())};
  });
  http::Request request;
  request.url = server.BaseUrl() + "/v1/chat/completions";
  request.body = std::string(3 * 1024 * 1024, 'x');
  auto result = http::Send(request);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->body, std::to_string(request.body.size()));
}

TEST(LoopbackHttpServer, KeepsNoRequestsOnceRecordingIsOff) {
  LoopbackHttpServer server([](const LoopbackHttpServer::Request&) {
    return LoopbackHttpServer::Response{200, "text/plain", "ok"};
  });
  server.set_record_requests(false);
  http::Request request;
  request.url = server.BaseUrl();
  ASSERT_TRUE(http::Send(request).has_value());
  EXPECT_TRUE(server.Requests().empty());
}

}  // namespace
}  // namespace diagd::testing
