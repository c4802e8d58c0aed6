// A small HTTP/1.1 server on 127.0.0.1 and a free port, for tests that must
// drive a real client over real sockets: an upstream retrieval service, a
// scripted model server, a load benchmark's model. Each connection carries
// one request-response exchange (`Connection: close`) unless keep-alive is
// turned on; every request is recorded unless recording is turned off.
//
// One instance holds thousands of slow exchanges at once: connections are
// served asynchronously by one I/O thread, and `Response::delay` is a timer,
// not a sleeping thread. Constructing one raises the process's soft limit on
// open files to its hard limit, so that many sockets fit.
//
// Thread safety: the handler runs on the server's I/O thread, one request at
// a time; it must be quick and must not block (answer late with `delay`).
// `Requests()`, `set_record_requests()` and `set_keep_alive()` may be called
// from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
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
    // Answer as the connection's mode says (kept alive or not), then close
    // it: a kept connection the server drops while it is idle, as a
    // provider's idle timeout does.
    bool close_after_answer = false;
    // Sent as they are, after Content-Type (for example {"Retry-After", "2"}).
    std::vector<std::pair<std::string, std::string>> headers = {};
  };
  // Handed the request to keep (a handler taking `const Request&` fits): a
  // load driver's server moves each conversation instead of copying it.
  using Handler = std::function<Response(Request&&)>;

  explicit LoopbackHttpServer(Handler handler);
  // Stops promptly: pending delays are cut short and their connections
  // closed without an answer.
  ~LoopbackHttpServer();
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  int port() const { return port_; }
  std::string BaseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Request> Requests() const;
  // On by default; a benchmark sending thousands of requests turns it off so
  // as not to keep every body.
  void set_record_requests(bool record);
  // Off by default (`Connection: close`). On: a connection carries exchanges
  // in turn until the client closes it, as a model provider's does (a load
  // benchmark measures its client's connection reuse with it).
  void set_keep_alive(bool keep_alive);

 private:
  struct Loop;  // the acceptor, exchanges in flight and I/O thread (Asio stays in the .cc)

  std::unique_ptr<Loop> loop_;
  int port_ = 0;
};

}  // namespace diagd::testing
