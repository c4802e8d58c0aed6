#include "testing/loopback_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <stdexcept>

namespace diagd::testing {
namespace {

const char* StatusText(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

bool SendAll(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads one request (headers, then a Content-Length body). False on EOF or
// a malformed request.
bool ReadRequest(int fd, LoopbackHttpServer::Request& request) {
  std::string data;
  char buf[8192];
  std::size_t header_end = std::string::npos;
  while ((header_end = data.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    data.append(buf, static_cast<std::size_t>(n));
  }
  std::size_t line_end = data.find("\r\n");
  std::string request_line = data.substr(0, line_end);
  std::size_t sp1 = request_line.find(' ');
  std::size_t sp2 = request_line.find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos) return false;
  request.method = request_line.substr(0, sp1);
  request.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::size_t pos = line_end + 2;
  while (pos < header_end) {
    std::size_t end = data.find("\r\n", pos);
    std::string line = data.substr(pos, end - pos);
    pos = end + 2;
    std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::size_t value_start = line.find_first_not_of(' ', colon + 1);
    request.headers[name] = value_start == std::string::npos ? "" : line.substr(value_start);
  }
  std::size_t length = 0;
  if (auto it = request.headers.find("content-length"); it != request.headers.end()) {
    length = std::stoul(it->second);
  }
  request.body = data.substr(header_end + 4);
  while (request.body.size() < length) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    request.body.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

LoopbackHttpServer::LoopbackHttpServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket failed");
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;  // a free port
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 512) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("bind/listen on loopback failed");
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

LoopbackHttpServer::~LoopbackHttpServer() {
  stopping_ = true;
  stop_cv_.notify_all();
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> connections;
  {
    std::lock_guard<std::mutex> lock(mu_);
    connections.swap(connections_);
  }
  for (auto& t : connections) t.join();
}

std::vector<LoopbackHttpServer::Request> LoopbackHttpServer::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void LoopbackHttpServer::AcceptLoop() {
  while (!stopping_) {
    pollfd pfd{listen_fd_, POLLIN, 0};
    if (::poll(&pfd, 1, 50) <= 0) continue;
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    connections_.emplace_back([this, fd] { Serve(fd); });
  }
}

bool LoopbackHttpServer::SleepUnlessStopping(std::chrono::milliseconds delay) {
  std::unique_lock<std::mutex> lock(mu_);
  return !stop_cv_.wait_for(lock, delay, [this] { return stopping_.load(); });
}

void LoopbackHttpServer::Serve(int fd) {
  Request request;
  if (ReadRequest(fd, request)) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(request);
    }
    Response response = handler_(request);
    if (!response.hang_up && SleepUnlessStopping(response.delay)) {
      std::string head = "HTTP/1.1 " + std::to_string(response.status) + " " +
                         StatusText(response.status) + "\r\nContent-Type: " +
                         response.content_type + "\r\nContent-Length: " +
                         std::to_string(response.body.size()) + "\r\nConnection: close\r\n\r\n";
      SendAll(fd, head + response.body);
    }
  }
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

}  // namespace diagd::testing
