#include "core/failure_reason.h"

namespace diagd {
namespace {

constexpr FailureReason kAll[] = {
    FailureReason::kModelHttpError,       FailureReason::kModelUnreachable,
    FailureReason::kModelBadResponse,     FailureReason::kModelOutputTruncated,
    FailureReason::kModelNoToolSupport,   FailureReason::kToolBackendError,
    FailureReason::kRunTimeout,           FailureReason::kStoreError,
    FailureReason::kInstanceLost,         FailureReason::kServerShutdown,
    FailureReason::kInternal,
};

}  // namespace

const char* FailureReasonName(FailureReason reason) {
  switch (reason) {
    case FailureReason::kModelHttpError: return "MODEL_HTTP_ERROR";
    case FailureReason::kModelUnreachable: return "MODEL_UNREACHABLE";
    case FailureReason::kModelBadResponse: return "MODEL_BAD_RESPONSE";
    case FailureReason::kModelOutputTruncated: return "MODEL_OUTPUT_TRUNCATED";
    case FailureReason::kModelNoToolSupport: return "MODEL_NO_TOOL_SUPPORT";
    case FailureReason::kToolBackendError: return "TOOL_BACKEND_ERROR";
    case FailureReason::kRunTimeout: return "RUN_TIMEOUT";
    case FailureReason::kStoreError: return "STORE_ERROR";
    case FailureReason::kInstanceLost: return "INSTANCE_LOST";
    case FailureReason::kServerShutdown: return "SERVER_SHUTDOWN";
    case FailureReason::kInternal: return "INTERNAL";
  }
  return "INTERNAL";
}

std::optional<FailureReason> ParseFailureReason(std::string_view name) {
  for (FailureReason reason : kAll) {
    if (name == FailureReasonName(reason)) return reason;
  }
  return std::nullopt;
}

}  // namespace diagd
