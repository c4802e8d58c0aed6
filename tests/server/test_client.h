// A small HTTP/1.1 client over raw loopback sockets for the server's tests:
// it sends exactly the bytes a test wants (malformed ones included), reads
// responses to the end, and reads SSE streams event by event, so a test can
// drop a connection mid-stream.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace diagd::server::testing {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpReply {
  int status = 0;  // 0: no response (connection failed or closed early)
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

struct SseEvent {
  std::int64_t id = 0;
  std::string name;
  std::string data;
};

// HTTP/1.1 pieces for the test clients (this one and tests/cluster's).
// `name` in lower case, for header lookups.
std::string Lower(std::string name);
// The status line and headers at the front of `raw` (header names in lower
// case); the offset of the body, or npos while the head is incomplete.
std::size_t ParseHead(const std::string& raw, int& status,
                      std::map<std::string, std::string>& headers);
// A request's bytes: Host and (for a body or a POST) Content-Length added,
// and `Connection: close` when `close`.
std::string BuildRequest(const std::string& method, const std::string& target,
                         const Headers& headers, const std::string& body, bool close);

// Sends `raw` as is and reads the response until the server closes.
HttpReply SendRaw(int port, const std::string& raw,
                  std::chrono::milliseconds timeout = std::chrono::seconds(30));

// A request with `Connection: close`, Host and Content-Length added.
HttpReply Request(int port, const std::string& method, const std::string& target,
                  const Headers& headers = {}, const std::string& body = "",
                  std::chrono::milliseconds timeout = std::chrono::seconds(30));

// The events of a complete SSE body.
std::vector<SseEvent> ParseSse(const std::string& body);

// An SSE stream read as it arrives.
class SseStream {
 public:
  SseStream(int port, const std::string& method, const std::string& target, Headers headers = {},
            const std::string& body = "");
  ~SseStream();
  SseStream(const SseStream&) = delete;
  SseStream& operator=(const SseStream&) = delete;

  int status() const { return status_; }
  const std::map<std::string, std::string>& headers() const { return headers_; }
  // The next event; empty when the stream ended or nothing came in time.
  std::optional<SseEvent> Next(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Every event up to the end of the stream.
  std::vector<SseEvent> Rest(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Drops the connection, as a client that goes away does.
  void Close();
  // The comment lines read so far (": keepalive"), in order.
  const std::vector<std::string>& comments() const { return comments_; }

 private:
  bool Fill(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  int status_ = 0;
  std::map<std::string, std::string> headers_;
  std::string buffer_;
  std::vector<std::string> comments_;
};

}  // namespace diagd::server::testing
