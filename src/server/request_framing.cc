// Request framing beyond Beast's parser (request_framing.h). Beast refuses
// a repeated `chunked` field, Transfer-Encoding with `chunked` beside
// Content-Length, and Content-Length values that differ; it takes any
// other Transfer-Encoding as "no body" and unfolds obs-fold, which is where
// a request could be read one way here and another way by a proxy in front.
#include "server/request_framing.h"

#include <vector>

namespace diagd::server {
namespace {

constexpr std::string_view kHeadEnd = "\r\n\r\n";

std::string_view Trim(std::string_view text) {
  std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  std::size_t last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// RFC 9112 5.2: a line of the head (after the request line) that begins
// with a space or tab continues the line before it, or (first of all)
// hides a field from parsers that skip it. Refused rather than unfolded.
bool HasFoldedLine(std::string_view raw_head) {
  for (std::size_t at = raw_head.find("\r\n"); at != std::string_view::npos;
       at = raw_head.find("\r\n", at + 2)) {
    if (at + 2 < raw_head.size() && (raw_head[at + 2] == ' ' || raw_head[at + 2] == '\t')) {
      return true;
    }
  }
  return false;
}

// RFC 9112 3.2 with RFC 3986 3.2.2: uri-host [":" port], empty allowed.
bool IsHostValue(std::string_view host) {
  constexpr std::string_view kAllowed = "-._~%!$&'()*+,;=:[]";
  for (char c : host) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && kAllowed.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::optional<ApiError> HostError(const http::request_header<>& header) {
  std::size_t hosts = header.count(http::field::host);
  if (hosts > 1) return InvalidRequest("a request may carry only one Host header");
  if (hosts == 0) {
    if (header.version() >= 11) return InvalidRequest("an HTTP/1.1 request needs a Host header");
    return std::nullopt;  // HTTP/1.0 has no Host
  }
  if (!IsHostValue(header[http::field::host])) {
    return InvalidRequest("the Host header is malformed");
  }
  return std::nullopt;
}

// Every transfer coding of every Transfer-Encoding field, in order (empty
// list elements skipped, as RFC 9110 5.6.1 asks).
std::vector<std::string_view> TransferCodings(const http::request_header<>& header) {
  std::vector<std::string_view> codings;
  auto [field, end] = header.equal_range(http::field::transfer_encoding);
  for (; field != end; ++field) {
    std::string_view value = field->value();
    while (!value.empty()) {
      std::size_t comma = value.find(',');
      std::string_view coding = Trim(value.substr(0, comma));
      if (!coding.empty()) codings.push_back(coding);
      value.remove_prefix(comma == std::string_view::npos ? value.size() : comma + 1);
    }
  }
  return codings;
}

// RFC 9112 6.1 and 6.3. Only a body in the chunked coding alone is read.
std::optional<ApiError> TransferEncodingError(const http::request_header<>& header) {
  if (header.count(http::field::transfer_encoding) == 0) return std::nullopt;
  if (header.version() < 11) {
    return InvalidRequest("Transfer-Encoding is not allowed in an HTTP/1.0 request");
  }
  if (header.count(http::field::content_length) > 0) {
    return InvalidRequest("a request may not carry both Transfer-Encoding and Content-Length");
  }
  std::vector<std::string_view> codings = TransferCodings(header);
  if (codings.empty() || !beast::iequals(codings.back(), "chunked")) {
    return InvalidRequest("the last transfer coding of a request must be chunked");
  }
  for (std::size_t i = 0; i + 1 < codings.size(); ++i) {
    if (beast::iequals(codings[i], "chunked")) {
      return InvalidRequest("the chunked transfer coding is applied only once");
    }
  }
  if (codings.size() > 1) {
    return ApiError{501, "NOT_IMPLEMENTED", "only the chunked transfer coding is supported"};
  }
  return std::nullopt;
}

}  // namespace

std::size_t RequestHeadLength(std::string_view bytes, std::size_t searched) {
  // The end may straddle what was searched and what came since.
  std::size_t from = searched > kHeadEnd.size() - 1 ? searched - (kHeadEnd.size() - 1) : 0;
  std::size_t at = bytes.find(kHeadEnd, from);
  return at == std::string_view::npos ? at : at + kHeadEnd.size();
}

std::optional<ApiError> FramingError(std::string_view raw_head,
                                     const http::request_header<>& header) {
  if (HasFoldedLine(raw_head)) {
    return InvalidRequest("folded header lines (obs-fold) are not accepted");
  }
  if (auto error = HostError(header)) return error;
  return TransferEncodingError(header);
}

bool IsMalformed(const beast::error_code& error) {
  static const beast::error_code kHttpError = http::error::bad_method;
  return error.category() == kHttpError.category() && error != http::error::end_of_stream &&
         error != http::error::partial_message && error != http::error::need_more;
}

}  // namespace diagd::server
