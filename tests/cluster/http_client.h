// HTTP for the cluster tests: requests and SSE streams over loopback
// sockets, to a diagd instance directly or through nginx. Unlike
// tests/server/test_client.h (which talks to diagd only, and diagd never
// sends a chunked body) it decodes `Transfer-Encoding: chunked`, which is
// how nginx passes a close-delimited stream on to an HTTP/1.1 client.
//
// Thread safety: an `SseReader` has one owner; the functions are safe from
// any thread.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "server/test_client.h"

namespace diagd::cluster_testing {

using server::testing::Headers;
using server::testing::HttpReply;
using server::testing::SseEvent;

// The headers of a request with a JSON body.
inline const Headers kJson = {{"Content-Type", "application/json"}};

// One request with `Connection: close`, read to the end; the body
// de-chunked. Status 0 when no whole response came (refused, cut, timeout).
HttpReply Fetch(int port, const std::string& method, const std::string& target,
                const Headers& headers = {}, const std::string& body = "",
                std::chrono::milliseconds timeout = std::chrono::seconds(60));

// An SSE response read event by event as it arrives (chunked or not).
class SseReader {
 public:
  SseReader(int port, const std::string& method, const std::string& target, Headers headers = {},
            const std::string& body = "");
  ~SseReader();
  SseReader(const SseReader&) = delete;
  SseReader& operator=(const SseReader&) = delete;

  int status() const { return status_; }
  const std::map<std::string, std::string>& headers() const { return headers_; }
  // The body so far when the response is no stream (an error JSON).
  const std::string& body() const { return body_; }
  // The next event; nullopt when the stream ended (or was cut) or nothing
  // came within `timeout`. `ended()` tells which.
  std::optional<SseEvent> Next(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // The events up to and with the first one named `name`; fewer (the last
  // one named otherwise) when the stream ended or stalled before it.
  std::vector<SseEvent> Through(const std::string& name,
                                std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Every event until the stream ends or nothing comes within `timeout`.
  std::vector<SseEvent> Rest(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // The connection ended (closed by the other side, or cut).
  bool ended() const { return ended_; }
  // Whether a chunked body ended with its last chunk. Not a sign that the
  // stream is whole: diagd's streams end with their connection, so nginx
  // ends one cut by a killed instance with a last chunk too. Only `done`
  // tells a finished stream from a cut one.
  bool complete() const { return complete_; }
  // Drops the connection, as a client that goes away does.
  void Close();

 private:
  bool Fill(std::chrono::steady_clock::time_point deadline);
  void Decode();

  int fd_ = -1;
  int status_ = 0;
  std::map<std::string, std::string> headers_;
  bool chunked_ = false;
  std::string raw_;   // received, not yet decoded
  std::string body_;  // decoded, not yet parsed into events
  bool ended_ = false;
  bool complete_ = false;
};

}  // namespace diagd::cluster_testing
