// Outbound HTTP over libcurl: the one client the model provider and upstream
// retrieval services are reached with. Synchronous; each call honours its
// own timeout, response-size cap and cancellation.
//
// Thread safety: `Send` is safe for concurrent use.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace diagd::http {

struct Request {
  std::string method = "POST";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Or, when `body` is empty, the body in parts, sent in order as one: a
  // caller that keeps a long body in pieces (a conversation that grows
  // turn by turn) need not join it for every send. The parts must live
  // until Send returns.
  std::vector<std::string_view> body_parts;
  std::chrono::milliseconds timeout{10000};       // the whole exchange
  std::chrono::milliseconds connect_timeout{3000};
  std::size_t max_response_bytes = 8 * 1024 * 1024;
  // Once requested, the exchange is abandoned at once (the transfer is
  // aborted, its connection closed) and Send fails with `cancelled` set.
  std::stop_token cancel;
};

struct Response {
  int status = 0;
  std::string content_type;
  std::string body;
  // The `Retry-After` header (seconds, or an HTTP date as seconds from
  // now); absent when the server sent none.
  std::optional<std::chrono::seconds> retry_after;
};

enum class FailureKind {
  kConnect,          // could not connect (refused, DNS, TLS): a retry may help
  kTimeout,          // no complete answer in time
  kTooLarge,         // the answer exceeded max_response_bytes
  kHeadersTooLarge,  // the answer's headers exceeded kMaxResponseHeaderBytes
  kOther,            // anything else (malformed URL, protocol error)
};

struct Failure {
  FailureKind kind = FailureKind::kOther;
  // curl's short description; never the URL (it may carry credentials).
  std::string message;
  // The request's `cancel` was requested (kind kOther): abandoned, not to
  // be retried.
  bool cancelled = false;
};

// The most header bytes an answer may carry (status line and fields, all
// together). Larger is no answer a client should read: a broken proxy or a
// hostile server.
inline constexpr std::size_t kMaxResponseHeaderBytes = 64 * 1024;

// libcurl writes a body smaller than this in the same send as the headers
// when it is given whole (`body`, or a single part); one in several parts
// is read out through a callback, in sends of its own. A caller that keeps
// a body in parts therefore keeps a short one in one part.
inline constexpr std::size_t kOneSendBodyBytes = 64 * 1024;

// A response with any status is a value; only transport failures are errors.
Result<Response, Failure> Send(const Request& request);

// `url` without a `user:password@` part, for messages and logs.
std::string RedactUrl(const std::string& url);

}  // namespace diagd::http
