// Why a run failed, as the outside sees it: the stable `failure_reason`
// codes of docs/model-endpoints.md. An `Error` carries one (Error::reason)
// when the layer that failed knows which it is (the model client knows an
// unreachable endpoint from a refused request); the run that ends on that
// error stores it with a `failure_detail`.
//
// Thread safety: plain values.
#pragma once

#include <optional>
#include <string_view>

namespace diagd {

enum class FailureReason {
  kModelHttpError,        // the endpoint answered an error status (after the retries that apply)
  kModelUnreachable,      // connect, DNS, TLS or timeout
  kModelBadResponse,      // a 2xx body that is no usable completion
  kModelOutputTruncated,  // finish_reason "length" with nothing usable
  kModelNoToolSupport,    // the endpoint refused the request's tools
  kToolBackendError,      // the tools' backends failed, nothing could be checked
  kRunTimeout,            // the run's time budget ran out during a call
  kStoreError,            // a store the run needs failed
  kInstanceLost,          // the instance executing the run stopped without finishing it
  kServerShutdown,        // the server stopped before the run finished
  kInternal,              // a bug or an unexpected state
};

// "MODEL_HTTP_ERROR", "MODEL_UNREACHABLE", ...
const char* FailureReasonName(FailureReason reason);
// The reason named `name`; nullopt for anything else.
std::optional<FailureReason> ParseFailureReason(std::string_view name);

}  // namespace diagd
