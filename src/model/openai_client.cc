#include "model/openai_client.h"

#include <algorithm>
#include <memory>
#include <random>
#include <string_view>
#include <utility>

#include "core/secrets.h"
#include "http/http_client.h"
#include "model/openai_wire.h"
#include "runtime/fiber.h"

namespace diagd::model {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A Retry-After longer than this is not waited for when the run has no
// deadline of its own: the endpoint is out for longer than a run should hang.
constexpr std::chrono::seconds kMaxRetryAfter{120};

std::string ChatCompletionsUrl(std::string_view base_url) {
  while (!base_url.empty() && base_url.back() == '/') base_url.remove_suffix(1);
  return std::string(base_url) + "/chat/completions";
}

// docs/model-endpoints.md: the statuses a later attempt may get past.
bool IsRetryableStatus(int status) {
  switch (status) {
    case 408: case 409: case 429: case 500: case 502: case 503: case 504:
      return true;
    default:
      return false;
  }
}

// The verdict on one exchange: a final result, or an error worth another
// try (after at least `retry_after` when the endpoint asked for a wait).
struct Outcome {
  Result<ChatResponse, CallError> result;
  bool retryable = false;
  std::optional<std::chrono::seconds> retry_after;
};

Outcome FromTransportFailure(const http::Failure& failure, const http::Request& request,
                             bool cut_by_deadline) {
  switch (failure.kind) {
    case http::FailureKind::kConnect:
      return {Error(ErrorCode::kUnavailable, "cannot reach the endpoint (" + failure.message + ")",
                    FailureReason::kModelUnreachable),
              true};
    case http::FailureKind::kTimeout:
      // Not retried: the time is spent.
      if (cut_by_deadline) {
        return {Error(ErrorCode::kDeadlineExceeded,
                      "the run's time ran out waiting for the model (" +
                          std::to_string(request.timeout.count()) + " ms left)",
                      FailureReason::kRunTimeout)};
      }
      return {Error(ErrorCode::kDeadlineExceeded,
                    "no answer within " + std::to_string(request.timeout.count()) + " ms",
                    FailureReason::kModelUnreachable)};
    case http::FailureKind::kTooLarge:
      return {Error(ErrorCode::kInternal,
                    "the answer is larger than " + std::to_string(request.max_response_bytes) +
                        " bytes",
                    FailureReason::kModelBadResponse)};
    case http::FailureKind::kHeadersTooLarge:
      return {Error(ErrorCode::kInternal,
                    "the endpoint sent response headers over " +
                        std::to_string(http::kMaxResponseHeaderBytes / 1024) + " KiB",
                    FailureReason::kModelBadResponse)};
    case http::FailureKind::kOther:
      if (failure.cancelled) return {Error::Cancelled("the run was cancelled during the model call")};
      break;
  }
  return {Error(ErrorCode::kUnavailable, "the exchange failed (" + failure.message + ")",
                FailureReason::kModelUnreachable)};
}

Outcome FromStatus(const http::Response& response, std::string_view secret) {
  const std::string status = "HTTP " + std::to_string(response.status);
  std::string said = wire::ProviderErrorMessage(response.body, secret);
  // Checked before the status class: llama.cpp refuses tools with a 500.
  if (response.status >= 400 && wire::RefusesTools(said)) {
    return {Error(ErrorCode::kInvalidArgument,
                  "the endpoint refused the request's tools: " + status + ": " + said,
                  FailureReason::kModelNoToolSupport)};
  }
  std::string message = said.empty() ? status : status + ": " + said;
  if (IsRetryableStatus(response.status)) {
    return {Error(ErrorCode::kUnavailable, std::move(message), FailureReason::kModelHttpError),
            true, response.retry_after};
  }
  if (response.status >= 400 && response.status <= 499) {
    return {Error(ErrorCode::kInvalidArgument, "the endpoint refused the request: " + message,
                  FailureReason::kModelHttpError)};
  }
  return {Error(ErrorCode::kInternal, "unexpected " + message, FailureReason::kModelHttpError)};
}

Outcome Exchange(const http::Request& request, std::string_view secret, bool cut_by_deadline) {
  auto sent = http::Send(request);
  if (!sent.has_value()) return FromTransportFailure(sent.error(), request, cut_by_deadline);
  const http::Response& response = *sent;
  if (response.status < 200 || response.status > 299) return FromStatus(response, secret);
  auto decoded = wire::DecodeResponse(response.body, secret, response.content_type);
  if (decoded.has_value()) return {std::move(decoded)};
  bool retryable = decoded.error().code == ErrorCode::kUnavailable;
  return {std::move(decoded), retryable};
}

// Equal jitter: half the exponential step, plus up to as much again, so
// that runs refused together do not come back together.
milliseconds Backoff(milliseconds initial, int attempt, double jitter) {
  milliseconds step = initial * (1LL << std::min(attempt - 1, 16));
  return milliseconds(static_cast<std::int64_t>(step.count() * (0.5 + 0.5 * jitter)));
}

// The backoff wait, in slices, so a cancel ends it within one. On a fiber
// each slice frees the worker.
void SleepUnlessCancelled(milliseconds wait, const std::stop_token& cancel) {
  constexpr milliseconds kSlice{50};
  for (auto until = Clock::now() + wait; !cancel.stop_requested();) {
    auto left = std::chrono::duration_cast<milliseconds>(until - Clock::now());
    if (left <= milliseconds(0)) return;
    runtime::SleepFor(std::min(left, kSlice));
  }
}

// Not inlined: its std::random_device is about 5 KiB, which would be
// reserved in the caller's frame, and so in the stack of every run waiting
// on the model (its call is the frame a waiting run parks under).
[[gnu::noinline]] double RandomJitter() {
  thread_local std::minstd_rand random(std::random_device{}());
  return std::uniform_real_distribution<double>(0.0, 1.0)(random);
}

// What this client keeps of `conversation`: made at its first call, or
// started afresh when another client kept something else there.
wire::EncodedConversation& KeptBody(Conversation& conversation) {
  if (auto* kept = dynamic_cast<wire::EncodedConversation*>(conversation.state.get())) {
    return *kept;
  }
  auto made = std::make_unique<wire::EncodedConversation>();
  wire::EncodedConversation& kept = *made;
  conversation.state = std::move(made);
  return kept;
}

// The POST of `conversation`'s body to the endpoint's chat completions.
http::Request ChatCompletionsRequest(const ChatRequest& request,
                                     const config::ModelEndpoint& endpoint,
                                     wire::EncodedConversation& conversation,
                                     std::size_t max_response_bytes) {
  http::Request http_request;
  http_request.method = "POST";
  http_request.url = ChatCompletionsUrl(endpoint.base_url);
  http_request.headers = {{"Content-Type", "application/json"},
                          {"X-Diagd-Component", ComponentName(request.component)}};
  if (!endpoint.api_key.empty()) {
    http_request.headers.emplace_back("Authorization", "Bearer " + endpoint.api_key);
  }
  // A short body is kept in one part: curl then sends it with the headers,
  // as it is, without a copy.
  if (conversation.parts.size() > 1 && conversation.BodySize() < http::kOneSendBodyBytes) {
    conversation.Join();
  }
  http_request.body_parts.reserve(conversation.parts.size());
  for (const wire::EncodedConversation::Part& part : conversation.parts) {
    http_request.body_parts.push_back(wire::EncodedConversation::BytesOf(part));
  }
  http_request.cancel = request.cancel;
  http_request.max_response_bytes = max_response_bytes;
  return http_request;
}

// Why a call does not wait to try again: what to add to its error's
// message, and the failure reason when it changes.
struct NoRetry {
  std::string message;
  std::optional<FailureReason> reason;
};

// How long to wait before the attempt after `attempt`: the jittered
// backoff, or longer when the endpoint asked (Retry-After). A wait that
// outlasts the run's deadline, or without one a Retry-After longer than a
// call waits, ends the call instead.
Result<milliseconds, NoRetry> RetryWait(const OpenAiClientOptions& options, const Outcome& outcome,
                                        int attempt,
                                        const std::optional<Clock::time_point>& deadline) {
  milliseconds wait = Backoff(options.initial_backoff, attempt,
                              options.jitter ? options.jitter() : RandomJitter());
  if (outcome.retry_after) wait = std::max(wait, milliseconds(*outcome.retry_after));
  if (deadline) {
    if (Clock::now() + wait >= *deadline) {
      std::string why =
          " (no time left in the run to wait " + std::to_string(wait.count()) + " ms and try again)";
      return Unexpected(NoRetry{std::move(why), FailureReason::kRunTimeout});
    }
  } else if (outcome.retry_after && *outcome.retry_after > kMaxRetryAfter) {
    std::string why = " (it asked to wait " + std::to_string(outcome.retry_after->count()) +
                      " s: longer than a call waits)";
    return Unexpected(NoRetry{std::move(why), std::nullopt});
  }
  return wait;
}

}  // namespace

OpenAiChatModel::OpenAiChatModel(config::ModelConfig config, OpenAiClientOptions options)
    : config_(std::move(config)), options_(std::move(options)) {}

std::string OpenAiChatModel::Label(Component component) const {
  return config_.For(component).name;
}

Result<ChatResponse, CallError> OpenAiChatModel::Complete(const ChatRequest& request) {
  const config::ModelEndpoint& endpoint = config_.For(request.component);
  const std::string& secret = endpoint.api_key;
  auto fail = [&](CallError error) {
    // The last line of defence: whatever the message was built from, no
    // credential leaves this module in it.
    error.message = ScrubCredentials(
        std::string(ComponentName(request.component)) + " model call: " + error.message, secret);
    return error;
  };
  if (endpoint.provider != config::ModelProvider::kOpenAi) {
    return fail(Error::FailedPrecondition("the component is configured with the offline provider"));
  }
  // A growing conversation's body is kept between its calls
  // (ChatRequest::conversation), in parts that the exchange sends as they
  // are, so that the next call adds only its new messages.
  wire::EncodedConversation call_only;
  wire::EncodedConversation& conversation =
      request.conversation ? KeptBody(*request.conversation) : call_only;
  if (auto encoded = wire::EncodeRequestInto(request, endpoint.name, endpoint.replay_reasoning,
                                             conversation);
      !encoded) {
    return fail(encoded.error());
  }

  http::Request http_request =
      ChatCompletionsRequest(request, endpoint, conversation, options_.max_response_bytes);
  const milliseconds endpoint_timeout =
      options_.timeout.value_or(std::chrono::seconds(std::max(1, endpoint.timeout_seconds)));

  const int max_attempts = std::max(1, options_.max_attempts.value_or(endpoint.max_attempts));
  for (int attempt = 1;; ++attempt) {
    // Each attempt gets the endpoint's timeout, or what is left of the run.
    milliseconds timeout = endpoint_timeout;
    bool cut_by_deadline = false;
    if (request.deadline) {
      auto left = std::chrono::duration_cast<milliseconds>(*request.deadline - Clock::now());
      if (left <= milliseconds(0)) {
        return fail(Error(ErrorCode::kDeadlineExceeded,
                          "the run's time ran out before the model call" +
                              (attempt > 1 ? " (after " + std::to_string(attempt - 1) +
                                                 " attempts)"
                                           : std::string()),
                          FailureReason::kRunTimeout));
      }
      if (left < timeout) {
        timeout = left;
        cut_by_deadline = true;
      }
    }
    http_request.timeout = timeout;
    http_request.connect_timeout = std::min(timeout, milliseconds(3000));

    Outcome outcome = Exchange(http_request, secret, cut_by_deadline);
    if (outcome.result.has_value()) return std::move(outcome.result);
    CallError error = std::move(outcome.result).error();
    // A cancelled run is never retried, whatever the attempt ended with; a
    // completion it got is reported all the same (it was made, and billed).
    if (request.cancel.stop_requested() && !error.completed) {
      return fail(Error::Cancelled("the run was cancelled"));
    }
    if (!outcome.retryable) return fail(error);
    if (attempt >= max_attempts) {
      error.message += " (after " + std::to_string(attempt) + " attempts)";
      return fail(error);
    }
    auto wait = RetryWait(options_, outcome, attempt, request.deadline);
    if (!wait) {
      error.message += wait.error().message;
      if (wait.error().reason) error.reason = *wait.error().reason;
      return fail(error);
    }
    if (options_.sleep) {
      options_.sleep(*wait);
    } else {
      SleepUnlessCancelled(*wait, request.cancel);
    }
    if (request.cancel.stop_requested()) return fail(Error::Cancelled("the run was cancelled"));
  }
}

}  // namespace diagd::model
