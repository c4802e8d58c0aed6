#include "server/test_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <sstream>

namespace diagd::server::testing {
namespace {

int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
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

// Reads what is there (waiting until `deadline`); false on EOF or timeout.
bool ReadSome(int fd, std::string& into, std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
  char chunk[8192];
  ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
  if (n <= 0) return false;
  into.append(chunk, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::size_t ParseHead(const std::string& raw, int& status,
                      std::map<std::string, std::string>& headers) {
  std::size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos) return end;
  std::istringstream head(raw.substr(0, end));
  std::string line;
  std::getline(head, line);
  if (line.size() >= 12) status = std::atoi(line.substr(9, 3).c_str());
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    headers[Lower(line.substr(0, colon))] = value;
  }
  return end + 4;
}

std::string BuildRequest(const std::string& method, const std::string& target,
                         const Headers& headers, const std::string& body, bool close) {
  std::string raw = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& [name, value] : headers) raw += name + ": " + value + "\r\n";
  if (!body.empty() || method == "POST") raw += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  if (close) raw += "Connection: close\r\n";
  return raw + "\r\n" + body;
}

HttpReply SendRaw(int port, const std::string& raw, std::chrono::milliseconds timeout) {
  HttpReply reply;
  int fd = Connect(port);
  if (fd < 0) return reply;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string received;
  if (SendAll(fd, raw)) {
    while (ReadSome(fd, received, deadline)) {
    }
  }
  ::close(fd);
  std::size_t body = ParseHead(received, reply.status, reply.headers);
  if (body == std::string::npos) return HttpReply{};
  reply.body = received.substr(body);
  return reply;
}

HttpReply Request(int port, const std::string& method, const std::string& target,
                  const Headers& headers, const std::string& body,
                  std::chrono::milliseconds timeout) {
  return SendRaw(port, BuildRequest(method, target, headers, body, true), timeout);
}

std::vector<SseEvent> ParseSse(const std::string& body) {
  std::vector<SseEvent> events;
  std::size_t start = 0;
  while (true) {
    std::size_t end = body.find("\n\n", start);
    if (end == std::string::npos) break;
    std::istringstream block(body.substr(start, end - start));
    start = end + 2;
    SseEvent event;
    bool any = false;
    std::string line;
    while (std::getline(block, line)) {
      if (line.starts_with("id: ")) event.id = std::atoll(line.c_str() + 4), any = true;
      if (line.starts_with("event: ")) event.name = line.substr(7), any = true;
      if (line.starts_with("data: ")) {
        if (!event.data.empty()) event.data += "\n";
        event.data += line.substr(6);
        any = true;
      }
    }
    if (any) events.push_back(std::move(event));  // comments (keep-alive) are no events
  }
  return events;
}

SseStream::SseStream(int port, const std::string& method, const std::string& target,
                     Headers headers, const std::string& body) {
  fd_ = Connect(port);
  if (fd_ < 0) return;
  headers.emplace_back("Accept", "text/event-stream");
  if (!SendAll(fd_, BuildRequest(method, target, headers, body, false))) return;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::size_t body_at = std::string::npos;
  while (body_at == std::string::npos && ReadSome(fd_, buffer_, deadline)) {
    body_at = ParseHead(buffer_, status_, headers_);
  }
  if (body_at != std::string::npos) buffer_.erase(0, body_at);
}

SseStream::~SseStream() { Close(); }

void SseStream::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool SseStream::Fill(std::chrono::steady_clock::time_point deadline) {
  return fd_ >= 0 && ReadSome(fd_, buffer_, deadline);
}

std::optional<SseEvent> SseStream::Next(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    std::size_t end;
    while ((end = buffer_.find("\n\n")) != std::string::npos) {
      std::string block = buffer_.substr(0, end + 2);
      if (block.starts_with(":")) comments_.push_back(block.substr(0, block.find('\n')));
      auto events = ParseSse(block);
      buffer_.erase(0, end + 2);
      if (!events.empty()) return events.front();
    }
    if (!Fill(deadline)) return std::nullopt;
  }
}

std::vector<SseEvent> SseStream::Rest(std::chrono::milliseconds timeout) {
  std::vector<SseEvent> events;
  while (auto event = Next(timeout)) events.push_back(std::move(*event));
  return events;
}

}  // namespace diagd::server::testing
