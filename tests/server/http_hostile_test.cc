// The connection layer against hostile clients, over raw loopback sockets:
// request smuggling openings (Transfer-Encoding, Content-Length, obs-fold,
// Host), malformed chunked bodies, the bearer scheme's case, and sockets that
// sit idle or stall to lock others out. Each malformed request is followed
// on the same connection by a second one that must get no answer.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "server/server_fixture.h"

namespace diagd::server::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::string_view kSmuggled = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

// The status lines of the whole responses in `bytes`, in order (each framed
// by its Content-Length, as every answer here but SSE is).
std::vector<std::string> StatusLines(const std::string& bytes) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (bytes.compare(at, 7, "HTTP/1.") == 0) {
    std::size_t body = bytes.find("\r\n\r\n", at);
    if (body == std::string::npos) break;
    std::string head = bytes.substr(at, body - at);
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::size_t length = head.find("\r\ncontent-length: ");
    std::size_t end =
        body + 4 + (length == std::string::npos ? 0 : std::stoul(head.substr(length + 18)));
    if (end > bytes.size()) break;
    lines.push_back(bytes.substr(at, bytes.find("\r\n", at) - at));
    at = end;
  }
  return lines;
}

// A client connection that sends exact bytes and sees whether the server
// closed it.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) Close();
  }
  ~RawConnection() { Close(); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool Send(std::string_view bytes) {
    return fd_ >= 0 && ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
                           static_cast<ssize_t>(bytes.size());
  }
  // Reads until the server closes (true) or `timeout` passes (false).
  bool ReadUntilClosed(milliseconds timeout = seconds(10)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!closed_ && ReadSome(deadline)) {
    }
    return closed_;
  }
  // Reads until `count` whole responses came in all (true) or `timeout`
  // passes.
  bool ReadAnswers(std::size_t count, milliseconds timeout = seconds(10)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (StatusLines(received_).size() < count) {
      if (closed_ || !ReadSome(deadline)) return false;
    }
    return true;
  }
  // Whether the server has closed the connection by now, without waiting.
  bool ClosedNow() {
    ReadSome(std::chrono::steady_clock::now());
    return closed_;
  }
  const std::string& received() const { return received_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  // One read, waiting until `deadline`; false when nothing more can come.
  bool ReadSome(std::chrono::steady_clock::time_point deadline) {
    if (fd_ < 0 || closed_) return false;
    auto left =
        std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0))) <= 0) return false;
    char chunk[8192];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) {
      closed_ = true;  // an orderly close or a reset: either way, closed
      return false;
    }
    received_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool closed_ = false;
  std::string received_;
};

// The `error.code` of the (one) JSON error body in `bytes`.
std::string ErrorCode(const std::string& bytes) {
  std::size_t body = bytes.find("\r\n\r\n");
  if (body == std::string::npos) return "";
  boost::system::error_code ec;
  auto value = boost::json::parse(bytes.substr(body + 4), ec);
  if (ec || !value.is_object() || !value.as_object().contains("error")) return "";
  return std::string(value.at("error").at("code").as_string());
}

// Sends `request` then a second request on one connection: exactly one
// answer with `status_line` and `code`, then the close, is what must come.
::testing::AssertionResult RefusedAndClosed(int port, const std::string& request,
                                            const std::string& status_line,
                                            const std::string& code = "INVALID_REQUEST") {
  RawConnection connection(port);
  if (!connection.Send(request + std::string(kSmuggled))) {
    return ::testing::AssertionFailure() << "could not send";
  }
  bool closed = connection.ReadUntilClosed();
  auto failure = [&] {
    return ::testing::AssertionFailure() << "for\n"
                                         << request << "\ngot\n"
                                         << connection.received();
  };
  if (StatusLines(connection.received()) != std::vector<std::string>{status_line}) {
    return failure() << "\nexpected exactly one answer: " << status_line;
  }
  if (ErrorCode(connection.received()) != code) return failure() << "\nexpected code " << code;
  if (!closed) return failure() << "\nthe connection was left open";
  return ::testing::AssertionSuccess();
}

std::string Hex(std::size_t n) {
  std::ostringstream text;
  text << std::hex << n;
  return text.str();
}

std::string Post(const std::string& headers, const std::string& body) {
  return "POST /api/v1/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + headers +
         "\r\n\r\n" + body;
}

class HttpHostileTest : public ::testing::Test {
 protected:
  ServerFixture server_{{}};
};

TEST_F(HttpHostileTest, ATransferEncodingOtherThanOneChunkedIsRefusedAndTheConnectionClosed) {
  const std::string chunked_body = "0\r\n\r\n";
  struct Case {
    std::string headers;
    std::string status_line = "HTTP/1.1 400 Bad Request";
    std::string code = "INVALID_REQUEST";
  };
  const std::vector<Case> cases = {
      {"Transfer-Encoding: gzip"},
      {"Transfer-Encoding: xchunked"},
      {"Transfer-Encoding: identity"},
      {"Transfer-Encoding: chunked, identity"},
      {"Transfer-Encoding: chunked, chunked"},
      {"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked"},
      {"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked, chunked"},
      {"Transfer-Encoding: "},
      {"Transfer-Encoding: chunked;x=1"},
      {"Transfer-Encoding: chunked\r\nContent-Length: 5"},
      {"Content-Length: 5\r\nTransfer-Encoding: chunked"},
      {"Transfer-Encoding: gzip\r\nContent-Length: 5"},
      {"Content-Length: 5\r\nTransfer-Encoding: gzip"},
      {"Transfer-Encoding: gzip, chunked", "HTTP/1.1 501 Not Implemented", "NOT_IMPLEMENTED"},
      {"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked", "HTTP/1.1 501 Not Implemented",
       "NOT_IMPLEMENTED"},
  };
  for (const Case& c : cases) {
    EXPECT_TRUE(
        RefusedAndClosed(server_.port(), Post(c.headers, chunked_body), c.status_line, c.code));
  }
  // HTTP/1.0 has no chunked coding: its framing cannot be trusted.
  EXPECT_TRUE(RefusedAndClosed(
      server_.port(),
      "POST /api/v1/chat HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked_body,
      "HTTP/1.1 400 Bad Request"));
}

TEST_F(HttpHostileTest, FoldedLinesSpaceBeforeAColonAndConflictingLengthsAreRefused) {
  const std::string get = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
  for (const std::string& head : std::vector<std::string>{
           get + "X-Note: a\r\n folded\r\n\r\n",
           get + "X-Note: a\r\n\tfolded\r\n\r\n",
           std::string("GET /healthz HTTP/1.1\r\n X-Hidden: 1\r\nHost: x\r\n\r\n"),
           get + "Content-Length : 0\r\n\r\n",
           get + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
           get + "Content-Length: 1, 2\r\n\r\nab",
           get + "Content-Length: -1\r\n\r\n",
           get + "Content-Length: 1x\r\n\r\n",
       }) {
    EXPECT_TRUE(RefusedAndClosed(server_.port(), head, "HTTP/1.1 400 Bad Request"));
  }
}

TEST_F(HttpHostileTest, AMalformedChunkedBodyIsAnswered400AndClosed) {
  for (const std::string& body : {
           std::string("zz\r\nhello\r\n0\r\n\r\n"),
           std::string("-5\r\nhello\r\n0\r\n\r\n"),
           std::string(40, 'f') + "\r\nhello\r\n0\r\n\r\n",
           std::string("5;\x01\x02\r\nhello\r\n0\r\n\r\n"),
           std::string("5;=\r\nhello\r\n0\r\n\r\n"),
           std::string("5\r\nhelloXX\r\n0\r\n\r\n"),
           std::string("5\r\nhello\r\n0\r\nBad Trailer\r\n\r\n"),
       }) {
    EXPECT_TRUE(RefusedAndClosed(server_.port(), Post("Transfer-Encoding: chunked", body),
                                 "HTTP/1.1 400 Bad Request"));
  }
}

TEST_F(HttpHostileTest, AChunkedBodyAndPipelinedRequestsAreStillServed) {
  RawConnection connection(server_.port());
  std::string body = R"({"message":"你好","route":"chat"})";
  // Three chunks, one with an extension, then the last chunk and a trailer.
  std::string chunked = "4\r\n" + body.substr(0, 4) + "\r\n" + "a;note=1\r\n" + body.substr(4, 10) +
                        "\r\n" + Hex(body.size() - 14) + "\r\n" + body.substr(14) + "\r\n" +
                        "0\r\nX-Trailer: 1\r\n\r\n";
  ASSERT_TRUE(connection.Send(Post("Transfer-Encoding: Chunked", chunked) + std::string(kSmuggled) +
                              "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  EXPECT_TRUE(connection.ReadUntilClosed(seconds(30)));
  EXPECT_EQ(StatusLines(connection.received()),
            (std::vector<std::string>{"HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK"}))
      << connection.received();
  EXPECT_NE(connection.received().find(R"("release_outcome":"ANSWER")"), std::string::npos)
      << connection.received();
}

TEST_F(HttpHostileTest, AnHttp11RequestNeedsExactlyOneWellFormedHost) {
  EXPECT_TRUE(RefusedAndClosed(server_.port(), "GET /healthz HTTP/1.1\r\n\r\n",
                               "HTTP/1.1 400 Bad Request"));
  EXPECT_TRUE(RefusedAndClosed(server_.port(),
                               "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
                               "HTTP/1.1 400 Bad Request"));
  EXPECT_TRUE(RefusedAndClosed(server_.port(),
                               "GET /healthz HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n",
                               "HTTP/1.1 400 Bad Request"));
  for (const char* host : {"a b", "a/b", "user@a", "a?b"}) {
    EXPECT_TRUE(RefusedAndClosed(server_.port(),
                                 std::string("GET /healthz HTTP/1.1\r\nHost: ") + host + "\r\n\r\n",
                                 "HTTP/1.1 400 Bad Request"))
        << host;
  }
  // HTTP/1.0 has no Host; names, addresses and ports are all hosts.
  EXPECT_EQ(SendRaw(server_.port(), "GET /healthz HTTP/1.0\r\n\r\n").status, 200);
  for (const char* host : {"127.0.0.1:8080", "[::1]:8080", "diagd.example.com", ""}) {
    auto reply = SendRaw(server_.port(), std::string("GET /healthz HTTP/1.1\r\nHost: ") + host +
                                             "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(reply.status, 200) << host;
  }
}

TEST(HttpHostileAuth, TheBearerSchemeIsCaseInsensitiveAndTheTokenExact) {
  FixtureOptions options;
  options.auth_tokens = {"s3cret-token"};
  ServerFixture server(options);
  for (const char* good : {"Bearer s3cret-token", "bearer s3cret-token", "BEARER s3cret-token",
                           "bEaReR s3cret-token", "Bearer   s3cret-token"}) {
    EXPECT_EQ(server.Get("/api/v1/runs", {{"Authorization", good}}).status, 200) << good;
  }
  for (const char* bad : {"Bearer S3CRET-TOKEN", "Bearer s3cret-toke", "Bearer s3cret-tokenn",
                          "Bearers3cret-token", "Bearer\ts3cret-token", "Bearer ", "Bearer",
                          "Basic s3cret-token", "s3cret-token", "Bearer s3cret-token x"}) {
    EXPECT_EQ(server.Get("/api/v1/runs", {{"Authorization", bad}}).status, 401) << bad;
  }
}

// A connection that asked /healthz and is now idle, kept alive: once it has
// its answer, the server has counted it (and every connection before it).
std::unique_ptr<RawConnection> KeptAlive(int port) {
  auto connection = std::make_unique<RawConnection>(port);
  EXPECT_TRUE(connection->Send(kSmuggled));
  EXPECT_TRUE(connection->ReadAnswers(1));
  return connection;
}

TEST(HttpHostileIdle, AtMaxConnectionsANewcomerClosesTheConnectionIdleLongest) {
  FixtureOptions options;
  options.max_connections = 20;
  ServerFixture server(options);
  // Connected, never sent a byte (the test ends well within their 5 s).
  std::vector<std::unique_ptr<RawConnection>> silent;
  for (int i = 0; i < 19; ++i) silent.push_back(std::make_unique<RawConnection>(server.port()));
  auto kept_alive = KeptAlive(server.port());  // the 20th: the server is full

  // The first newcomer stays (kept alive), so the server is full again for
  // the second one; each takes the place of the connection idle longest.
  auto newcomer = KeptAlive(server.port());
  EXPECT_TRUE(silent[0]->ReadUntilClosed()) << "the connection idle longest is closed";
  EXPECT_FALSE(silent[1]->ClosedNow()) << "one idle connection closed per newcomer";
  HttpReply reply = server.Get("/healthz");
  EXPECT_EQ(reply.status, 200) << reply.body;
  EXPECT_TRUE(silent[1]->ReadUntilClosed());
  EXPECT_FALSE(silent[2]->ClosedNow());
  EXPECT_EQ(silent[0]->received() + silent[1]->received(), "") << "closed without an answer";
  EXPECT_FALSE(newcomer->ClosedNow());
  EXPECT_FALSE(kept_alive->ClosedNow());
  EXPECT_TRUE(kept_alive->Send(kSmuggled));
  EXPECT_TRUE(kept_alive->ReadAnswers(2)) << "it still serves";
}

TEST(HttpHostileIdle, AConnectionWithARequestUnderwayIsNeverClosedForANewcomer) {
  FixtureOptions options;
  options.max_connections = 2;
  ServerFixture server(options);
  // Each has had one answer and sent half of its next request's head.
  const std::string half = "GET /healthz HTTP/1.1\r\n";
  std::vector<std::unique_ptr<RawConnection>> busy;
  for (int i = 0; i < 2; ++i) {
    busy.push_back(std::make_unique<RawConnection>(server.port()));
    ASSERT_TRUE(busy.back()->Send(std::string(kSmuggled) + half));
    ASSERT_TRUE(busy.back()->ReadAnswers(1));
  }
  HttpReply refused = server.Get("/healthz");
  EXPECT_EQ(refused.status, 503) << "nobody is idle: " << refused.body;
  EXPECT_TRUE(refused.headers.contains("retry-after"));
  EXPECT_FALSE(busy[0]->ClosedNow());
  EXPECT_FALSE(busy[1]->ClosedNow());

  // The first ends its request and goes idle: the next newcomer takes its place.
  ASSERT_TRUE(busy[0]->Send("Host: x\r\n\r\n"));
  ASSERT_TRUE(busy[0]->ReadAnswers(2));
  EXPECT_EQ(server.Get("/healthz").status, 200);
  EXPECT_TRUE(busy[0]->ReadUntilClosed());
  EXPECT_FALSE(busy[1]->ClosedNow());
}

TEST(HttpHostileIdle, ASilentOrStalledConnectionIsClosedWithinSeconds) {
  ServerFixture server({});
  RawConnection silent(server.port());
  RawConnection stalled(server.port());
  ASSERT_TRUE(stalled.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n"));
  RawConnection kept_alive(server.port());
  ASSERT_TRUE(kept_alive.Send(kSmuggled));
  ASSERT_TRUE(kept_alive.ReadAnswers(1));
  // Generous bounds: a read timeout of a minute, as before, fails them.
  EXPECT_TRUE(silent.ReadUntilClosed(seconds(30)));
  EXPECT_TRUE(stalled.ReadUntilClosed(seconds(30)));
  EXPECT_EQ(silent.received(), "");
  EXPECT_EQ(stalled.received(), "");
  EXPECT_FALSE(kept_alive.ClosedNow())
      << "a kept-alive connection waits longer for its next request";
}

}  // namespace
}  // namespace diagd::server::testing

namespace diagd::server::testing {
namespace {

// HEAD answers as GET does, without a body (RFC 9110): on a kept
// connection a body would be read as the start of the next answer. A
// method the route does not take is 405 with no body either.
TEST_F(HttpHostileTest, AHeadRequestIsAnsweredWithoutABodyAndTheConnectionStaysInStep) {
  RawConnection connection(server_.port());
  ASSERT_TRUE(connection.Send("HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                              "HEAD /api/v1/chat HTTP/1.1\r\nHost: x\r\n\r\n"
                              "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  EXPECT_TRUE(connection.ReadUntilClosed(seconds(30)));
  const std::string& received = connection.received();
  // Framed as a client that sent HEAD frames them: a head, no body.
  std::size_t second = received.find("\r\n\r\n") + 4;
  std::size_t third = received.find("\r\n\r\n", second) + 4;
  EXPECT_EQ(received.compare(0, 15, "HTTP/1.1 200 OK"), 0) << received;
  EXPECT_EQ(received.compare(second, 31, "HTTP/1.1 405 Method Not Allowed"), 0) << received;
  EXPECT_EQ(StatusLines(received.substr(third)), std::vector<std::string>{"HTTP/1.1 200 OK"})
      << received;
  // One body in all: the GET's, after the last head.
  EXPECT_EQ(received.find(R"("status")"), received.rfind(R"("status")")) << received;
  EXPECT_GT(received.find(R"("status")"), received.rfind("HTTP/1.1 200 OK")) << received;
  EXPECT_NE(received.find("Allow: POST"), std::string::npos) << received;
}

}  // namespace
}  // namespace diagd::server::testing
