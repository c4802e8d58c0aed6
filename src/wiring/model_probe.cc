#include "wiring/model_probe.h"

#include "model/openai_wire.h"

namespace diagd::wiring {

Result<std::string> EncodeChatRequest(const model::ChatRequest& request,
                                      std::string_view model_name) {
  return model::wire::EncodeRequest(request, model_name);
}

Result<model::ChatResponse, model::CallError> DecodeChatResponse(std::string_view body,
                                                                 std::string_view secret) {
  return model::wire::DecodeResponse(body, secret);
}

std::string ProviderErrorMessage(std::string_view body, std::string_view secret) {
  return model::wire::ProviderErrorMessage(body, secret);
}

bool RefusesTools(std::string_view provider_message) {
  return model::wire::RefusesTools(provider_message);
}

}  // namespace diagd::wiring
