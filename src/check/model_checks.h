// The model part of `diagd check` (docs/check.md): one small
// tool-calling request to each distinct OpenAI-compatible endpoint, and what
// its answer says: reachable, model served, tool calls supported, usage
// reported, reasoning present, latency.
//
// The probe is sent here, not through OpenAiChatModel::Complete: its retries
// and error folding would hide the status and the provider's words the
// advice is chosen from. It is built and read by the client's own wire
// functions (wiring/model_probe.h: EncodeChatRequest, DecodeChatResponse,
// ProviderErrorMessage) and
// carries the client's headers (Content-Type, X-Diagd-Component,
// Authorization: Bearer when a key is set); one attempt, a short timeout.
//
// Thread safety: pure functions apart from the HTTP exchanges.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "check/check.h"
#include "config/config.h"

namespace diagd::check {

// The function the probe offers and asks the model to call; it takes no
// arguments.
inline constexpr const char* kProbeFunction = "get_time";

// Components that share base_url, model name and API key: one probe serves
// them all.
struct ModelEndpointGroup {
  config::ModelEndpoint endpoint;  // the first component's (timeout: the group's shortest)
  std::vector<config::ModelComponent> components;
};

// The distinct (base_url, name, api_key) of the components whose provider
// is openai, in component order.
std::vector<ModelEndpointGroup> DistinctOpenAiEndpoints(const config::ModelConfig& model);
// The components whose provider is offline.
std::vector<config::ModelComponent> OfflineComponents(const config::ModelConfig& model);

// How a row names the group: "<model> @ <base_url>", without URL
// credentials or the API key.
std::string EndpointName(const ModelEndpointGroup& group);

// The one row for every offline component: nothing to check.
CheckItem OfflineModelItem(const std::vector<config::ModelComponent>& components);

// Sends the probe to `group` and reports what came back. `model` and
// `environment` name the keys the advice tells the user to change
// (model.name, model.router.name, DIAGD_MODEL_NAME...). The probe waits
// min(endpoint.timeout_seconds, max_timeout). The row never holds the API
// key (scrubbed from every field) nor a bearer token.
CheckItem ProbeModelEndpoint(const ModelEndpointGroup& group, const config::ModelConfig& model,
                             const config::Environment& environment,
                             std::chrono::milliseconds max_timeout);

}  // namespace diagd::check
