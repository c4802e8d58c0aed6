#include "model/openai_client.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "core/fiber.h"
#include "http/http_client.h"
#include "model/openai_wire.h"

namespace diagd::model {
namespace {

std::string ChatCompletionsUrl(std::string_view base_url) {
  while (!base_url.empty() && base_url.back() == '/') base_url.remove_suffix(1);
  return std::string(base_url) + "/chat/completions";
}

std::string WithProviderMessage(std::string message, std::string_view body,
                                std::string_view secret) {
  std::string provider = wire::ProviderErrorMessage(body, secret);
  if (!provider.empty()) message += ": " + provider;
  return message;
}

bool IsRetryableStatus(int status) { return status == 429 || (status >= 500 && status <= 599); }

// The verdict on one exchange: a final result, or an error worth another try.
struct Outcome {
  Result<ChatResponse> result;
  bool retryable = false;
};

Outcome Exchange(const http::Request& request, std::string_view secret) {
  auto sent = http::Send(request);
  if (!sent.has_value()) {
    const http::Failure& failure = sent.error();
    switch (failure.kind) {
      case http::FailureKind::kConnect:
        return {Error::Unavailable("cannot reach the endpoint (" + failure.message + ")"), true};
      case http::FailureKind::kTimeout:
        return {Error::DeadlineExceeded("no answer within " +
                                        std::to_string(request.timeout.count()) + " ms"),
                false};
      case http::FailureKind::kTooLarge:
        return {Error::Internal("the answer is larger than " +
                                std::to_string(request.max_response_bytes) + " bytes"),
                false};
      case http::FailureKind::kOther:
        break;
    }
    return {Error::Unavailable("the exchange failed (" + failure.message + ")"), false};
  }
  const http::Response& response = *sent;
  const std::string status = "HTTP " + std::to_string(response.status);
  if (response.status >= 200 && response.status <= 299) {
    auto decoded = wire::DecodeResponse(response.body);
    if (decoded.has_value()) return {std::move(decoded), false};
    // Some gateways answer 200 with an error object; its text says why.
    return {Error::Internal(WithProviderMessage(decoded.error().message, response.body, secret)),
            false};
  }
  if (IsRetryableStatus(response.status)) {
    return {Error::Unavailable(WithProviderMessage(status, response.body, secret)), true};
  }
  if (response.status >= 400 && response.status <= 499) {
    return {Error::InvalidArgument(WithProviderMessage(
                "the endpoint refused the request: " + status, response.body, secret)),
            false};
  }
  return {Error::Internal("unexpected " + status), false};
}

}  // namespace

OpenAiChatModel::OpenAiChatModel(config::ModelConfig config, OpenAiClientOptions options)
    : config_(std::move(config)), options_(std::move(options)) {}

std::string OpenAiChatModel::Label(Component component) const {
  return config_.For(component).name;
}

Result<ChatResponse> OpenAiChatModel::Complete(const ChatRequest& request) {
  const config::ModelEndpoint& endpoint = config_.For(request.component);
  const std::string& secret = endpoint.api_key;
  auto fail = [&](const Error& error) {
    // The last line of defence: whatever the message was built from, the key
    // does not leave this module in it.
    return Error{error.code, wire::ScrubSecret(std::string(ComponentName(request.component)) +
                                                   " model call: " + error.message,
                                               secret)};
  };
  if (endpoint.provider != config::ModelProvider::kOpenAi) {
    return fail(Error::FailedPrecondition("the component is configured with the offline provider"));
  }
  auto body = wire::EncodeRequest(request, endpoint.name);
  if (!body.has_value()) return fail(body.error());

  http::Request http_request;
  http_request.method = "POST";
  http_request.url = ChatCompletionsUrl(endpoint.base_url);
  http_request.headers = {{"Content-Type", "application/json"},
                          {"X-Diagd-Component", ComponentName(request.component)}};
  if (!secret.empty()) http_request.headers.emplace_back("Authorization", "Bearer " + secret);
  http_request.body = std::move(*body);
  http_request.timeout =
      options_.timeout.value_or(std::chrono::seconds(std::max(1, endpoint.timeout_seconds)));
  http_request.connect_timeout = std::min(http_request.timeout, std::chrono::milliseconds(3000));
  http_request.max_response_bytes = options_.max_response_bytes;

  const int max_attempts = std::max(1, options_.max_attempts);
  for (int attempt = 1;; ++attempt) {
    Outcome outcome = Exchange(http_request, secret);
    if (outcome.result.has_value()) return std::move(outcome.result);
    if (!outcome.retryable) return fail(outcome.result.error());
    if (attempt >= max_attempts) {
      Error error = outcome.result.error();
      error.message += " (after " + std::to_string(attempt) + " attempts)";
      return fail(error);
    }
    auto backoff = options_.initial_backoff * (1LL << std::min(attempt - 1, 16));
    if (options_.sleep) {
      options_.sleep(backoff);
    } else {
      core::SleepFor(backoff);  // on a fiber, frees the worker
    }
  }
}

}  // namespace diagd::model
