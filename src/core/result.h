// Errors as values across module boundaries.
//
// `Result<T, E>` holds either a value or an error, with the member names of
// C++23 `std::expected` (has_value, value, error, value_or, operator*, ->), so
// that a later move to GCC 13 and C++23 is one alias. `Status` is
// `Result<void>`. Build an error result with `Unexpected(error)` or, for the
// common `Error` type, by returning an `Error` directly.
//
// Thread safety: plain values; no internal synchronization.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "core/failure_reason.h"

namespace diagd {

// The kind of failure. Only codes something branches on are here.
enum class ErrorCode {
  kInvalidArgument,     // the caller's input is wrong; retrying will not help
  kNotFound,            // the thing asked for does not exist
  kUnavailable,         // a backend could not be reached; a retry may help
  kDeadlineExceeded,    // the time allowed ran out
  kResourceExhausted,   // a budget or limit was reached
  kFailedPrecondition,  // the system is not in a state that allows this
  kPermissionDenied,    // refused by policy (for example a write to a read-only source)
  kCancelled,           // the run was cancelled (POST /api/v1/runs/{id}/cancel)
  kInternal,            // a bug or an unexpected state
};

const char* ErrorCodeName(ErrorCode code);

// An error: a code and a message for humans. Messages that can reach a model
// or a user are built by the caller to be free of hosts, credentials and
// stack text.
struct Error {
  Error() = default;
  Error(ErrorCode error_code, std::string error_message,
        std::optional<FailureReason> why = std::nullopt)
      : code(error_code), message(std::move(error_message)), reason(why) {}

  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  // Why a run that ends on this error failed (docs/model-endpoints.md), when the
  // layer that failed knows; the code says what a caller may do about it.
  std::optional<FailureReason> reason;

  // This error, tagged with `why`.
  Error Because(FailureReason why) && {
    reason = why;
    return std::move(*this);
  }

  static Error InvalidArgument(std::string message) {
    return {ErrorCode::kInvalidArgument, std::move(message)};
  }
  static Error NotFound(std::string message) { return {ErrorCode::kNotFound, std::move(message)}; }
  static Error Unavailable(std::string message) {
    return {ErrorCode::kUnavailable, std::move(message)};
  }
  static Error DeadlineExceeded(std::string message) {
    return {ErrorCode::kDeadlineExceeded, std::move(message)};
  }
  static Error ResourceExhausted(std::string message) {
    return {ErrorCode::kResourceExhausted, std::move(message)};
  }
  static Error FailedPrecondition(std::string message) {
    return {ErrorCode::kFailedPrecondition, std::move(message)};
  }
  static Error PermissionDenied(std::string message) {
    return {ErrorCode::kPermissionDenied, std::move(message)};
  }
  static Error Cancelled(std::string message) {
    return {ErrorCode::kCancelled, std::move(message)};
  }
  static Error Internal(std::string message) { return {ErrorCode::kInternal, std::move(message)}; }

  // "INVALID_ARGUMENT: message"
  std::string ToString() const;
};

// The error side of a result under construction, as `std::unexpected`.
template <typename E>
class Unexpected {
 public:
  explicit Unexpected(E error) : error_(std::move(error)) {}
  E& error() & { return error_; }
  E&& error() && { return std::move(error_); }

 private:
  E error_;
};

template <typename T, typename E = Error>
class [[nodiscard]] Result {
 public:
  using value_type = T;
  using error_type = E;

  Result(const T& value) : state_(std::in_place_index<0>, value) {}  // NOLINT: implicit by design
  Result(T&& value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  template <typename G>
  Result(Unexpected<G> error)  // NOLINT
      : state_(std::in_place_index<1>, std::move(error).error()) {}
  // Returning an `Error` from a function that returns `Result<T>` is the
  // common case; allow it directly when the error type is `Error`, or a
  // type that extends it (an error with more to say, built from a plain one).
  template <typename G = E, typename = std::enable_if_t<std::is_base_of_v<Error, G> &&
                                                        !std::is_same_v<T, Error>>>
  Result(Error error)  // NOLINT
      : state_(std::in_place_index<1>, std::move(error)) {}
  // An extending error is taken whole: never cut down to its `Error` part.
  template <typename G = E,
            typename = std::enable_if_t<std::is_base_of_v<Error, G> && !std::is_same_v<G, Error>>,
            typename = void>
  Result(E error)  // NOLINT
      : state_(std::in_place_index<1>, std::move(error)) {}

  bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  // REQUIRES: has_value()
  T& value() & {
    assert(has_value());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(has_value());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(has_value());
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // REQUIRES: !has_value()
  const E& error() const& {
    assert(!has_value());
    return std::get<1>(state_);
  }
  E&& error() && {
    assert(!has_value());
    return std::get<1>(std::move(state_));
  }

  template <typename U>
  T value_or(U&& fallback) const& {
    return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, E> state_;
};

// `Result<void, E>`: success or an error, as `std::expected<void, E>`.
template <typename E>
class [[nodiscard]] Result<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  Result() = default;
  template <typename G>
  Result(Unexpected<G> error) : error_(std::move(error).error()), ok_(false) {}  // NOLINT
  template <typename G = E, typename = std::enable_if_t<std::is_same_v<G, Error>>>
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  // REQUIRES: !has_value()
  const E& error() const& {
    assert(!ok_);
    return error_;
  }

 private:
  E error_{};
  bool ok_ = true;
};

using Status = Result<void>;

inline Status OkStatus() { return Status(); }

}  // namespace diagd
