// The error answers of the HTTP API (docs/server.md):
// {"error": {"code", "message"}} with the status that goes with the code.
// Messages say what was wrong with the request, never what went wrong
// inside (no paths, SQL, exception text).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace diagd::server {

struct ApiError {
  unsigned status = 400;
  std::string code;
  std::string message;
};

inline ApiError InvalidJson(std::string message) {
  return {400, "INVALID_JSON", std::move(message)};
}
inline ApiError InvalidRequest(std::string message) {
  return {400, "INVALID_REQUEST", std::move(message)};
}
inline ApiError Unauthorized() {
  return {401, "UNAUTHORIZED", "a valid Authorization: Bearer token is required"};
}
inline ApiError NotFound(std::string message) { return {404, "NOT_FOUND", std::move(message)}; }
inline ApiError MethodNotAllowed() {
  return {405, "METHOD_NOT_ALLOWED", "this route does not take that method"};
}
inline ApiError BodyTooLarge(std::int64_t limit) {
  return {413, "BODY_TOO_LARGE",
          "the request body is larger than " + std::to_string(limit) + " bytes"};
}
inline ApiError NotRunning(std::string message) {
  return {409, "NOT_RUNNING", std::move(message)};
}
inline ApiError Overloaded(std::string message) { return {503, "OVERLOADED", std::move(message)}; }

std::string ApiErrorJson(const ApiError& error);

}  // namespace diagd::server
