// A small HTTP/1.1 server on 127.0.0.1 and a free port, for tests that must
// drive a real client over real sockets: an upstream retrieval service, a
// scripted model server. Each connection gets its own thread and one
// request-response exchange (`Connection: close`); every request is recorded.
//
// Thread safety: the handler runs on connection threads, concurrently;
// `Requests()` may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace diagd::testing {

class LoopbackHttpServer {
 public:
  struct Request {
    std::string method;
    std::string target;
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
  };
  struct Response {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::chrono::milliseconds delay{0};  // before answering
    bool hang_up = false;                // close the connection without answering
  };
  using Handler = std::function<Response(const Request&)>;

  explicit LoopbackHttpServer(Handler handler);
  ~LoopbackHttpServer();
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  int port() const { return port_; }
  std::string BaseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Request> Requests() const;

 private:
  void AcceptLoop();
  void Serve(int fd);
  bool SleepUnlessStopping(std::chrono::milliseconds delay);

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  std::vector<std::thread> connections_;
  std::vector<Request> requests_;
};

}  // namespace diagd::testing
