#include "cluster/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace diagd::cluster_testing {
namespace {

using Clock = std::chrono::steady_clock;
using server::testing::BuildRequest;
using server::testing::Lower;
using server::testing::ParseHead;

int Connect(int port) {
  // Close-on-exec: an instance started later must not keep it open.
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

enum class ReadOutcome { kData, kEnd, kTimeout };

ReadOutcome ReadSome(int fd, std::string& into, Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return ReadOutcome::kTimeout;
  pollfd p{fd, POLLIN, 0};
  int ready = ::poll(&p, 1, static_cast<int>(left.count()));
  if (ready == 0) return ReadOutcome::kTimeout;
  if (ready < 0) return ReadOutcome::kEnd;
  char chunk[8192];
  ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
  if (n <= 0) return ReadOutcome::kEnd;
  into.append(chunk, static_cast<std::size_t>(n));
  return ReadOutcome::kData;
}

// Moves the whole chunks at the front of `raw` into `body`; true once the
// last (zero-size) chunk was read.
bool Dechunk(std::string& raw, std::string& body) {
  while (true) {
    std::size_t line_end = raw.find("\r\n");
    if (line_end == std::string::npos) return false;
    std::size_t size = std::strtoul(raw.substr(0, line_end).c_str(), nullptr, 16);
    if (size == 0) {
      raw.clear();  // trailers, if any, are of no interest here
      return true;
    }
    if (raw.size() < line_end + 2 + size + 2) return false;
    body.append(raw, line_end + 2, size);
    raw.erase(0, line_end + 2 + size + 2);
  }
}

}  // namespace

HttpReply Fetch(int port, const std::string& method, const std::string& target,
                const Headers& headers, const std::string& body,
                std::chrono::milliseconds timeout) {
  HttpReply reply;
  int fd = Connect(port);
  if (fd < 0) return reply;
  auto deadline = Clock::now() + timeout;
  std::string received;
  ReadOutcome outcome = ReadOutcome::kTimeout;
  if (SendAll(fd, BuildRequest(method, target, headers, body, true))) {
    while ((outcome = ReadSome(fd, received, deadline)) == ReadOutcome::kData) {
    }
  }
  ::close(fd);
  if (outcome != ReadOutcome::kEnd) return HttpReply{};
  std::size_t body_at = ParseHead(received, reply.status, reply.headers);
  if (body_at == std::string::npos) return HttpReply{};
  std::string raw = received.substr(body_at);
  auto coding = reply.headers.find("transfer-encoding");
  if (coding != reply.headers.end() && Lower(coding->second) == "chunked") {
    if (!Dechunk(raw, reply.body)) return HttpReply{};  // cut short
  } else {
    auto length = reply.headers.find("content-length");
    if (length != reply.headers.end() &&
        raw.size() != std::strtoull(length->second.c_str(), nullptr, 10)) {
      return HttpReply{};  // cut short
    }
    reply.body = std::move(raw);
  }
  return reply;
}

SseReader::SseReader(int port, const std::string& method, const std::string& target,
                     Headers headers, const std::string& body) {
  fd_ = Connect(port);
  if (fd_ < 0) {
    ended_ = true;
    return;
  }
  headers.emplace_back("Accept", "text/event-stream");
  if (!SendAll(fd_, BuildRequest(method, target, headers, body, false))) {
    ended_ = true;
    return;
  }
  auto deadline = Clock::now() + std::chrono::seconds(30);
  std::size_t body_at = std::string::npos;
  while (body_at == std::string::npos) {
    if (ReadSome(fd_, raw_, deadline) != ReadOutcome::kData) {
      ended_ = true;
      return;
    }
    body_at = ParseHead(raw_, status_, headers_);
  }
  raw_.erase(0, body_at);
  auto coding = headers_.find("transfer-encoding");
  chunked_ = coding != headers_.end() && Lower(coding->second) == "chunked";
  Decode();
}

SseReader::~SseReader() { Close(); }

void SseReader::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void SseReader::Decode() {
  if (!chunked_) {
    body_ += raw_;
    raw_.clear();
    return;
  }
  if (!complete_ && Dechunk(raw_, body_)) complete_ = true;
}

bool SseReader::Fill(Clock::time_point deadline) {
  if (fd_ < 0 || ended_ || complete_) return false;
  ReadOutcome outcome = ReadSome(fd_, raw_, deadline);
  if (outcome == ReadOutcome::kEnd) ended_ = true;
  if (outcome != ReadOutcome::kData) return false;
  Decode();
  return true;
}

std::optional<SseEvent> SseReader::Next(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (true) {
    std::size_t end;
    while ((end = body_.find("\n\n")) != std::string::npos) {
      auto events = server::testing::ParseSse(body_.substr(0, end + 2));
      body_.erase(0, end + 2);
      if (!events.empty()) return events.front();  // a comment (keep-alive) is no event
    }
    if (!Fill(deadline)) {
      if (complete_) ended_ = true;
      return std::nullopt;
    }
  }
}

std::vector<SseEvent> SseReader::Through(const std::string& name,
                                         std::chrono::milliseconds timeout) {
  std::vector<SseEvent> seen;
  while (seen.empty() || seen.back().name != name) {
    auto event = Next(timeout);
    if (!event) break;
    seen.push_back(std::move(*event));
  }
  return seen;
}

std::vector<SseEvent> SseReader::Rest(std::chrono::milliseconds timeout) {
  std::vector<SseEvent> events;
  while (auto event = Next(timeout)) events.push_back(std::move(*event));
  return events;
}

}  // namespace diagd::cluster_testing
