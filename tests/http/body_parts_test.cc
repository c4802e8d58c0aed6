// A body sent in parts (Request::body_parts) arrives as the parts joined,
// short or long (read out part by part), on a thread or parked on a fiber;
// the reader behind it seeks back for a resend.
#include "http/body_parts.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http/http_client.h"
#include "runtime/fiber.h"
#include "testing/loopback_http_server.h"

namespace diagd::http {
namespace {

using diagd::testing::LoopbackHttpServer;

std::string ReadAll(BodyPartsReader& reader, std::size_t chunk) {
  std::string out;
  std::vector<char> buffer(chunk);
  while (std::size_t n = reader.Read(buffer.data(), buffer.size())) out.append(buffer.data(), n);
  return out;
}

TEST(BodyPartsReader, ReadsThePartsInOrderWhateverTheRoomAndSkipsEmptyOnes) {
  std::vector<std::string_view> parts = {"{\"a\":", "", "[1,2", ",3]", "}"};
  for (std::size_t chunk : {1u, 2u, 5u, 64u}) {
    BodyPartsReader reader(parts);
    EXPECT_EQ(ReadAll(reader, chunk), "{\"a\":[1,2,3]}") << chunk;
  }
}

TEST(BodyPartsReader, SeeksBackToAnyOffsetForAResendAndRefusesOnePastTheEnd) {
  std::vector<std::string_view> parts = {"abc", "de", "f"};
  BodyPartsReader reader(parts);
  EXPECT_EQ(ReadAll(reader, 4), "abcdef");
  ASSERT_TRUE(reader.Seek(0));
  EXPECT_EQ(ReadAll(reader, 4), "abcdef");
  ASSERT_TRUE(reader.Seek(4));
  EXPECT_EQ(ReadAll(reader, 4), "ef");
  ASSERT_TRUE(reader.Seek(3));
  EXPECT_EQ(ReadAll(reader, 1), "def");
  ASSERT_TRUE(reader.Seek(6));
  EXPECT_EQ(ReadAll(reader, 4), "");
  EXPECT_FALSE(reader.Seek(7));
}

// Parts of `size` bytes in all, numbered so that a lost or repeated piece
// shows.
std::vector<std::string> Pieces(std::size_t size) {
  std::vector<std::string> pieces;
  for (std::size_t n = 0, total = 0; total < size; ++n) {
    std::string piece = "<" + std::to_string(n) + ":" + std::string(n % 3000, 'x') + ">";
    total += piece.size();
    pieces.push_back(std::move(piece));
  }
  return pieces;
}

Request PartsRequest(const std::string& url, const std::vector<std::string>& pieces) {
  Request request;
  request.url = url;
  request.headers = {{"Content-Type", "text/plain"}};
  request.body_parts.assign(pieces.begin(), pieces.end());
  return request;
}

std::string Joined(const std::vector<std::string>& pieces) {
  std::string joined;
  for (const std::string& piece : pieces) joined += piece;
  return joined;
}

TEST(HttpClientBodyParts, AShortAndALongBodyInPartsArriveWhole) {
  LoopbackHttpServer server([](const LoopbackHttpServer::Request& r) {
    return LoopbackHttpServer::Response{200, "text/plain", std::to_string(r.body.size())};
  });
  for (std::size_t size : {100u, 70'000u, 400'000u}) {
    std::vector<std::string> pieces = Pieces(size);
    auto response = Send(PartsRequest(server.BaseUrl(), pieces));
    ASSERT_TRUE(response.has_value()) << response.error().message;
    EXPECT_EQ(response->body, std::to_string(Joined(pieces).size()));
  }
  auto seen = server.Requests();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[2].body, Joined(Pieces(400'000)));
  EXPECT_EQ(seen[1].body, Joined(Pieces(70'000)));
  EXPECT_EQ(seen[2].headers.at("content-length"), std::to_string(seen[2].body.size()));
}

TEST(HttpClientBodyParts, OnFibersALongBodyInPartsArrivesWholeFromAParkedFiber) {
  LoopbackHttpServer server([](const LoopbackHttpServer::Request& r) {
    return LoopbackHttpServer::Response{200, "text/plain", r.body};
  });
  const std::vector<std::string> pieces = Pieces(300'000);
  Result<Response, Failure> result = Unexpected(Failure{});
  bool on_fiber = false;
  {
    runtime::FiberPool pool(1, 256 * 1024);
    pool.Spawn([&] {
      on_fiber = runtime::OnFiber();
      result = Send(PartsRequest(server.BaseUrl(), pieces));
    });
  }
  EXPECT_TRUE(on_fiber);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->body, Joined(pieces));
}

}  // namespace
}  // namespace diagd::http
