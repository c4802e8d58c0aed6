#include "check/model_checks.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "check/misconfigurations.h"
#include "core/json.h"
#include "core/secrets.h"
#include "core/text.h"
#include "http/http_client.h"
#include "model/chat_model.h"
#include "wiring/model_probe.h"

namespace diagd::check {
namespace {

using config::ModelComponent;
using config::ModelEndpoint;
using M = Misconfiguration;
using Millis = std::chrono::milliseconds;

constexpr Millis kConnectTimeout{3000};
constexpr Millis kModelsListTimeout{5000};
constexpr std::size_t kMaxResponseBytes = 1 << 20;
constexpr std::size_t kMaxListedModels = 8;
constexpr std::size_t kMaxModelIdChars = 80;

std::string WithoutTrailingSlashes(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return std::string(url);
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

// "host" and "host:port" of an http(s) URL, without any user info.
struct Authority {
  std::string host;
  std::string host_port;
};

Authority AuthorityOf(std::string_view url) {
  std::size_t scheme = url.find("://");
  bool https = url.starts_with("https://");
  std::string_view rest = scheme == std::string_view::npos ? url : url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (std::size_t at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  std::size_t colon = rest.rfind(':');
  bool bracketed = rest.starts_with('[');
  bool has_port = colon != std::string_view::npos && (!bracketed || rest[colon - 1] == ']');
  Authority authority;
  authority.host = std::string(has_port ? rest.substr(0, colon) : rest);
  authority.host_port = has_port ? std::string(rest) : authority.host + (https ? ":443" : ":80");
  return authority;
}

std::string ComponentsText(const std::vector<ModelComponent>& components) {
  if (components.size() == std::size(config::kAllModelComponents)) return "every component";
  std::vector<std::string> names;
  for (ModelComponent component : components) names.emplace_back(config::ComponentKey(component));
  return Join(names, ", ");
}

// The key that sets `field` for the group: the components' own [model.X]
// keys when their value differs from [model]'s, else [model]'s key, or the
// DIAGD_MODEL_* variable that set it.
std::string KeyOf(const ModelEndpointGroup& group, std::string_view field, bool differs,
                  const config::Environment& environment, const std::string& variable) {
  if (differs) {
    std::vector<std::string> keys;
    for (ModelComponent component : group.components) {
      keys.push_back("model." + std::string(config::ComponentKey(component)) + "." +
                     std::string(field));
    }
    return Join(keys, ", ");
  }
  if (environment.contains(variable)) return variable;
  return "model." + std::string(field);
}

AdviceValues ValuesFor(const ModelEndpointGroup& group, const config::ModelConfig& model,
                       const config::Environment& environment, Millis timeout) {
  const ModelEndpoint& endpoint = group.endpoint;
  const ModelEndpoint& defaults = model.defaults;
  Authority authority = AuthorityOf(endpoint.base_url);
  AdviceValues values;
  values["model"] = endpoint.name;
  values["name_key"] =
      KeyOf(group, "name", endpoint.name != defaults.name, environment, "DIAGD_MODEL_NAME");
  values["url_key"] = KeyOf(group, "base_url", endpoint.base_url != defaults.base_url, environment,
                            "DIAGD_MODEL_BASE_URL");
  bool own_key = endpoint.api_key != defaults.api_key;
  values["key_key"] = own_key ? KeyOf(group, "api_key", true, environment, "")
                      : environment.contains("DIAGD_MODEL_API_KEY")
                          ? std::string("DIAGD_MODEL_API_KEY")
                          : std::string("model.api_key or DIAGD_MODEL_API_KEY");
  values["suggested_url"] = WithV1(http::RedactUrl(endpoint.base_url)).value_or("");
  values["host"] = authority.host;
  values["host_port"] = authority.host_port;
  values["seconds"] = std::to_string((timeout.count() + 999) / 1000);
  values["served"] = "";
  return values;
}

model::ChatRequest ProbeRequest(ModelComponent component) {
  model::ChatRequest request;
  request.component = component;
  request.messages = {
      {.role = model::Role::kSystem,
       .content = "You are checking that tool calling works. Answer only by calling a tool."},
      {.role = model::Role::kUser, .content = "What time is it? Call get_time to find out."}};
  request.tools = model::MakeToolList({{kProbeFunction,
                                        "Returns the current time. Takes no arguments.",
                                        R"({"type":"object","properties":{}})"}});
  return request;
}

std::vector<std::pair<std::string, std::string>> Headers(const ModelEndpointGroup& group) {
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Content-Type", "application/json"},
      {"X-Diagd-Component", model::ComponentName(group.components.front())}};
  if (!group.endpoint.api_key.empty()) {
    headers.emplace_back("Authorization", "Bearer " + group.endpoint.api_key);
  }
  return headers;
}

// " (it serves: a, b)" from GET {base_url}/models when it answers an
// OpenAI model list; "" otherwise.
std::string ServedModels(const ModelEndpointGroup& group) {
  http::Request call;
  call.method = "GET";
  call.url = WithoutTrailingSlashes(group.endpoint.base_url) + "/models";
  call.headers = Headers(group);
  call.headers.erase(call.headers.begin());  // no body, no Content-Type
  call.timeout = kModelsListTimeout;
  call.connect_timeout = std::min(kConnectTimeout, kModelsListTimeout);
  call.max_response_bytes = kMaxResponseBytes;
  auto sent = http::Send(call);
  if (!sent || sent->status != 200) return "";
  auto parsed = json::Parse(sent->body);
  if (!parsed || !parsed->is_object()) return "";
  const auto* data = parsed->as_object().if_contains("data");
  if (data == nullptr || !data->is_array()) return "";
  std::vector<std::string> ids;
  std::size_t total = 0;
  for (const auto& entry : data->as_array()) {
    const auto* object = entry.if_object();
    if (object == nullptr) continue;
    auto id = json::GetString(*object, "id");
    if (!id) continue;
    if (++total <= kMaxListedModels) ids.push_back(text::TruncateCodePoints(*id, kMaxModelIdChars));
  }
  if (ids.empty()) return "";
  std::string list = Join(ids, ", ");
  if (total > ids.size()) list += " and " + std::to_string(total - ids.size()) + " more";
  return " (it serves: " + list + ")";
}

// One exchange, timed: no retry, whatever the answer.
struct ProbeExchange {
  Result<http::Response, http::Failure> sent;
  Millis latency{0};
};

ProbeExchange SendProbe(const ModelEndpointGroup& group, std::string body, Millis timeout) {
  http::Request call;
  call.method = "POST";
  call.url = WithoutTrailingSlashes(group.endpoint.base_url) + "/chat/completions";
  call.headers = Headers(group);
  call.body = std::move(body);
  call.timeout = timeout;
  call.connect_timeout = std::min(kConnectTimeout, timeout);
  call.max_response_bytes = kMaxResponseBytes;
  const auto started = std::chrono::steady_clock::now();
  auto sent = http::Send(call);
  return {std::move(sent),
          std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now() - started)};
}

const char* ReasoningName(model::ReasoningSource source) {
  switch (source) {
    case model::ReasoningSource::kReasoningContent:
      return "reasoning_content";
    case model::ReasoningSource::kReasoning:
      return "reasoning";
    case model::ReasoningSource::kThinkBlock:
      return "<think> block";
    case model::ReasoningSource::kNone:
      break;
  }
  return "none";
}

// The facts of a completion that decoded; `problem` is set when the
// function was not called.
std::vector<std::string> CompletionFacts(const model::ChatResponse& response,
                                         std::optional<M>& problem) {
  std::vector<std::string> facts = {"reachable", "model served"};
  const model::Message& message = response.message;
  if (!message.tool_calls.empty()) {
    std::string called = message.tool_calls.front().name;
    facts.push_back(called == kProbeFunction ? "tool calls supported"
                                             : "tool calls supported (it called " +
                                                   text::TruncateCodePoints(called, 40) + ")");
  } else if (ToolCallInContent(message.content, kProbeFunction)) {
    facts.push_back("tool call came back as text in content, not as tool_calls");
    problem = M::kToolCallAsText;
  } else {
    facts.push_back("no tool call: it answered in text");
    problem = M::kNoToolCall;
  }
  if (response.usage) {
    std::int64_t total = response.usage->total_tokens > 0
                             ? response.usage->total_tokens
                             : response.usage->input_tokens + response.usage->output_tokens;
    facts.push_back("usage reported (" + std::to_string(total) + " tokens)");
  } else {
    facts.push_back("no usage reported (its calls count as usage unavailable)");
  }
  if (message.reasoning_source != model::ReasoningSource::kNone || !message.reasoning.empty()) {
    facts.push_back(std::string("reasoning present (") + ReasoningName(message.reasoning_source) +
                    ")");
  } else {
    facts.push_back("no reasoning");
  }
  return facts;
}

void Scrub(CheckItem& item, std::string_view secret) {
  for (std::string* field : {&item.name, &item.detail, &item.advice}) {
    *field = ScrubSecret(std::move(*field), secret);
  }
}

}  // namespace

std::vector<ModelEndpointGroup> DistinctOpenAiEndpoints(const config::ModelConfig& model) {
  std::vector<ModelEndpointGroup> groups;
  for (ModelComponent component : config::kAllModelComponents) {
    const ModelEndpoint& endpoint = model.For(component);
    if (endpoint.provider != config::ModelProvider::kOpenAi) continue;
    auto same = std::find_if(groups.begin(), groups.end(), [&](const ModelEndpointGroup& group) {
      return group.endpoint.base_url == endpoint.base_url && group.endpoint.name == endpoint.name &&
             group.endpoint.api_key == endpoint.api_key;
    });
    if (same == groups.end()) {
      groups.push_back({endpoint, {component}});
    } else {
      same->components.push_back(component);
      same->endpoint.timeout_seconds =
          std::min(same->endpoint.timeout_seconds, endpoint.timeout_seconds);
    }
  }
  return groups;
}

std::vector<ModelComponent> OfflineComponents(const config::ModelConfig& model) {
  std::vector<ModelComponent> components;
  for (ModelComponent component : config::kAllModelComponents) {
    if (model.For(component).provider == config::ModelProvider::kOffline) {
      components.push_back(component);
    }
  }
  return components;
}

std::string EndpointName(const ModelEndpointGroup& group) {
  return ScrubSecret(group.endpoint.name + " @ " + http::RedactUrl(group.endpoint.base_url),
                             group.endpoint.api_key);
}

CheckItem OfflineModelItem(const std::vector<ModelComponent>& components) {
  return {"model", "offline", true,
          "offline provider, nothing to check (used by " + ComponentsText(components) + ")", ""};
}

CheckItem ProbeModelEndpoint(const ModelEndpointGroup& group, const config::ModelConfig& model,
                             const config::Environment& environment, Millis max_timeout) {
  const ModelEndpoint& endpoint = group.endpoint;
  const std::string& secret = endpoint.api_key;
  CheckItem item{"model", EndpointName(group), true, "", ""};
  const Millis timeout =
      std::min<Millis>(std::chrono::seconds(std::max(1, endpoint.timeout_seconds)), max_timeout);
  AdviceValues values = ValuesFor(group, model, environment, timeout);
  const std::string used_by = "; used by " + ComponentsText(group.components);
  auto fail = [&](std::string detail, M misconfiguration) {
    item.ok = false;
    item.detail = std::move(detail) + used_by;
    item.advice = Advise(misconfiguration, values);
    Scrub(item, secret);
    return item;
  };

  auto body = wiring::EncodeChatRequest(ProbeRequest(group.components.front()), endpoint.name);
  if (!body)
    return fail("the probe could not be built: " + body.error().message, M::kEndpointFailed);
  auto [sent, latency] = SendProbe(group, std::move(*body), timeout);
  const std::string after = std::to_string(latency.count()) + " ms";
  if (!sent) {
    return fail("not reachable: " + sent.error().message + " (after " + after + ")",
                RecognizeTransportFailure(sent.error()));
  }
  const http::Response& response = *sent;
  const std::string status = "HTTP " + std::to_string(response.status);
  values["status"] = std::to_string(response.status);
  std::string provider = wiring::ProviderErrorMessage(response.body, secret);
  std::optional<M> recognized =
      provider.empty() && response.status >= 200 && response.status <= 299
          ? std::nullopt
          : RecognizeErrorAnswer(response.status, provider, endpoint.base_url, !secret.empty());
  std::string served = recognized && IsToolRefusal(*recognized) ? ", model served" : "";

  if (response.status < 200 || response.status > 299) {
    if (recognized == M::kModelNotServed) {
      values["served"] = ServedModels(group);
      served = ", model not served";
    }
    // A refused key's explanation may quote part of it: it is left out.
    bool quote =
        !provider.empty() && recognized != M::kApiKeyMissing && recognized != M::kApiKeyRefused;
    return fail(
        "reachable" + served + ", " + status + " after " + after + (quote ? ": " + provider : ""),
        recognized.value_or(M::kEndpointFailed));
  }
  auto decoded = wiring::DecodeChatResponse(response.body, secret);
  if (!decoded) {
    if (recognized == M::kModelNotServed) served = ", model not served";
    return fail("reachable" + served + ", " + status + " after " + after + " but " +
                    (provider.empty() ? decoded.error().message : "an error: " + provider),
                recognized.value_or(M::kNotAChatCompletion));
  }
  std::optional<M> problem;
  std::vector<std::string> facts = CompletionFacts(*decoded, problem);
  facts.push_back(after);
  if (problem) return fail(Join(facts, ", "), *problem);
  item.detail = Join(facts, ", ") + used_by;
  Scrub(item, secret);
  return item;
}

}  // namespace diagd::check
