#include "tools/documents/http_documents_adapter.h"

#include <algorithm>
#include <utility>

#include "core/json.h"
#include "http/http_client.h"
#include "tools/documents/upstream_projector.h"

namespace diagd::tools::documents {
namespace {

using Failure = Unexpected<AdapterFailure>;

constexpr std::chrono::milliseconds kConnectTimeout{3000};

Failure Fail(ToolErrorCode code, std::string message = {}) {
  return Failure(AdapterFailure{code, std::move(message)});
}

// The request body: exactly `{"query": ...}`, nothing else about the run.
std::string RequestBody(const std::string& query) {
  boost::json::object body;
  body["query"] = query;
  return json::Serialize(body);
}

}  // namespace

HttpDocumentsAdapter::HttpDocumentsAdapter(HttpDocumentsOptions options, const Clock& clock)
    : options_(std::move(options)), clock_(clock) {}

Result<AdapterOutput, AdapterFailure> HttpDocumentsAdapter::DoExecute(
    const ToolRequest& request, MonoTime deadline, const std::stop_token& cancel) {
  const auto* documents = std::get_if<DocumentsRequest>(&request);
  if (documents == nullptr) {
    return Fail(ToolErrorCode::kQueryFailed, "not a search_documents request");
  }
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_.Monotonic());
  // Under a millisecond left is no time at all (and 0 means "no limit" to curl).
  if (left < std::chrono::milliseconds(1)) return Fail(ToolErrorCode::kToolTimeout);

  http::Request call;
  call.method = "POST";
  call.url = options_.url;
  call.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  call.body = RequestBody(documents->query);
  call.timeout = std::min(options_.timeout, left);
  call.connect_timeout = std::min(kConnectTimeout, call.timeout);
  call.cancel = cancel;

  auto response = http::Send(call);
  if (!response) {
    switch (response.error().kind) {
      case http::FailureKind::kTimeout:
        return Fail(ToolErrorCode::kToolTimeout);
      case http::FailureKind::kTooLarge:
      case http::FailureKind::kHeadersTooLarge:
        return Fail(ToolErrorCode::kQueryFailed, "the documents service answered too much");
      case http::FailureKind::kConnect:
      case http::FailureKind::kOther:
        return Fail(ToolErrorCode::kToolUnavailable);
    }
  }
  int status = response->status;
  if (status == 429 || status >= 500) return Fail(ToolErrorCode::kToolUnavailable);
  if (status < 200 || status >= 300) {
    return Fail(ToolErrorCode::kQueryFailed,
                "the documents service answered HTTP " + std::to_string(status));
  }
  auto body = json::Parse(response->body);
  if (!body) return Fail(ToolErrorCode::kQueryFailed, "the documents service did not answer JSON");
  auto projected = ProjectUpstream(*body, documents->query, options_.max_excerpt_chars);
  if (!projected) {
    // The projector's messages name the missing field only, never the body.
    return Fail(ToolErrorCode::kQueryFailed, projected.error().message);
  }
  return AdapterOutput{std::move(*projected), std::move(response->body)};
}

}  // namespace diagd::tools::documents
