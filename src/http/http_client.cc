#include "http/http_client.h"

#include <curl/curl.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "http/body_parts.h"
#include "runtime/fiber.h"
#include "runtime/transfer_engine.h"

namespace diagd::http {
namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Sink {
  std::string body;
  std::size_t limit = 0;
  bool too_large = false;
};

std::size_t Write(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  std::size_t bytes = size * count;
  if (sink->body.size() + bytes > sink->limit) {
    sink->too_large = true;
    return 0;  // makes curl abort the transfer
  }
  sink->body.append(data, bytes);
  return bytes;
}

// The answer's head, as curl hands it over: line by line, each whole. Its
// own limit makes a long head a failure that says so; libcurl's limits
// (below) fail with misleading words.
struct HeadCount {
  std::size_t bytes = 0;
  bool ended = false;  // the blank line that ends a head was the last line
  bool too_large = false;
};

std::size_t CountHead(char* data, std::size_t size, std::size_t count, void* user) {
  auto* head = static_cast<HeadCount*>(user);
  std::size_t bytes = size * count;
  head->bytes += bytes;
  if (head->bytes > kMaxResponseHeaderBytes) {
    head->too_large = true;
    return 0;  // makes curl abort the transfer
  }
  head->ended = bytes <= 2 && std::string_view(data, bytes).find_first_not_of("\r\n") ==
                                  std::string_view::npos;
  return bytes;
}

std::size_t ReadParts(char* out, std::size_t size, std::size_t count, void* user) {
  return static_cast<BodyPartsReader*>(user)->Read(out, size * count);
}

int SeekParts(void* user, curl_off_t offset, int origin) {
  if (origin != SEEK_SET || offset < 0) return CURL_SEEKFUNC_CANTSEEK;
  return static_cast<BodyPartsReader*>(user)->Seek(static_cast<std::uint64_t>(offset))
             ? CURL_SEEKFUNC_OK
             : CURL_SEEKFUNC_FAIL;
}

std::size_t BodySize(const Request& request) {
  if (!request.body.empty()) return request.body.size();
  std::size_t size = 0;
  for (std::string_view part : request.body_parts) size += part.size();
  return size;
}

// The body curl is given whole: `body` or its only part. None: a body in
// several parts, which curl reads out through ReadParts.
std::optional<std::string_view> WholeBody(const Request& request) {
  if (!request.body.empty() || request.body_parts.empty()) return request.body;
  if (request.body_parts.size() == 1) return request.body_parts.front();
  return std::nullopt;
}

// A transfer's easy handle. A parked one's is taken from the engine's kept
// handles and given back; elsewhere (the CLI, tests) each call makes its
// own, which then holds its connection, closed with it.
class EasyHandle {
 public:
  explicit EasyHandle(bool parked)
      : parked_(parked), easy_(parked ? runtime::TakeParkedHandle() : curl_easy_init()) {}
  EasyHandle(const EasyHandle&) = delete;
  EasyHandle& operator=(const EasyHandle&) = delete;
  ~EasyHandle() {
    if (easy_ == nullptr) return;
    if (parked_) {
      runtime::GiveBackParkedHandle(easy_);
    } else {
      curl_easy_cleanup(easy_);
    }
  }
  explicit operator bool() const { return easy_ != nullptr; }
  CURL* get() const { return easy_; }

 private:
  const bool parked_;
  CURL* const easy_;
};

// curl asks this while a transfer runs (off a fiber: at least once a
// second); non-zero aborts it.
int AbortWhenCancelled(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::stop_token*>(user)->stop_requested() ? 1 : 0;
}

FailureKind KindOf(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
      return FailureKind::kConnect;
    case CURLE_OPERATION_TIMEDOUT:
      return FailureKind::kTimeout;
    default:
      return FailureKind::kOther;
  }
}

}  // namespace

std::string RedactUrl(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  auto host_start = scheme + 3;
  auto path = url.find('/', host_start);
  auto at = url.rfind('@', path == std::string::npos ? std::string::npos : path);
  if (at == std::string::npos || at < host_start) return url;
  return url.substr(0, host_start) + "***@" + url.substr(at + 1);
}

Result<Response, Failure> Send(const Request& request) {
  GlobalInit();
  const Failure cancelled{FailureKind::kOther, "cancelled", true};
  if (request.cancel.stop_requested()) return Unexpected(cancelled);
  const bool parked = runtime::OnFiber();
  EasyHandle curl(parked);
  if (!curl) return Unexpected(Failure{FailureKind::kOther, "cannot create an HTTP handle"});
  CURL* h = curl.get();

  curl_slist* header_list = nullptr;
  for (const auto& [name, value] : request.headers) {
    header_list = curl_slist_append(header_list, (name + ": " + value).c_str());
  }
  // Some servers wait for "100 Continue" on large POSTs; never ask for it.
  header_list = curl_slist_append(header_list, "Expect:");
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(header_list,
                                                                      &curl_slist_free_all);
  Sink sink;
  sink.limit = request.max_response_bytes;

  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  BodyPartsReader reader(request.body_parts);
  if (request.method != "GET") {
    if (auto whole = WholeBody(request)) {
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, whole->data());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(whole->size()));
    } else {
      curl_easy_setopt(h, CURLOPT_POST, 1L);
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(BodySize(request)));
      curl_easy_setopt(h, CURLOPT_READFUNCTION, &ReadParts);
      curl_easy_setopt(h, CURLOPT_READDATA, &reader);
      curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, &SeekParts);
      curl_easy_setopt(h, CURLOPT_SEEKDATA, &reader);
    }
  }
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // timeouts without signals: safe in threads
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &Write);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  HeadCount head;
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &CountHead);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &head);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  // A handle's buffers live while the model thinks, once per waiting run:
  // libcurl's smallest upload buffer (not 64 KiB: a long conversation is
  // sent through it) and its smallest receive buffer (an answer of a few
  // KiB takes a few more reads, which cost nothing next to the wait).
  curl_easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, 16384L);
  curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 1024L);
  if (request.cancel.stop_possible()) {
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &AbortWhenCancelled);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &request.cancel);
  }

  // On a fiber the run parks while one shared thread drives the transfer;
  // elsewhere (the CLI, tests) the calling thread performs it.
  // A parked transfer is also aborted by the engine the moment the cancel
  // comes, not at curl's next progress call.
  CURLcode code = parked ? runtime::PerformParked(h, request.cancel) : curl_easy_perform(h);
  if (request.cancel.stop_requested()) return Unexpected(cancelled);
  if (sink.too_large) {
    return Unexpected(Failure{FailureKind::kTooLarge, "response larger than allowed"});
  }
  // libcurl refuses a header line over CURL_MAX_HTTP_HEADER (100 KiB) before
  // CountHead sees it, as if memory ran out (and a head over 300 KiB as a
  // receive error, which CountHead's limit comes before).
  if (head.too_large || (code == CURLE_OUT_OF_MEMORY && !head.ended)) {
    return Unexpected(Failure{FailureKind::kHeadersTooLarge,
                              "response headers over " +
                                  std::to_string(kMaxResponseHeaderBytes / 1024) + " KiB"});
  }
  if (code != CURLE_OK) return Unexpected(Failure{KindOf(code), curl_easy_strerror(code)});

  Response response;
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  char* content_type = nullptr;
  curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &content_type);
  if (content_type != nullptr) response.content_type = content_type;
  curl_off_t retry_after = 0;
  if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0) {
    response.retry_after = std::chrono::seconds(retry_after);
  }
  response.body = std::move(sink.body);
  return response;
}

}  // namespace diagd::http
