#include "wiring/chat_model.h"

#include "model/offline/offline_model.h"
#include "model/openai_client.h"

namespace diagd::wiring {
namespace {

// Dispatches each call to the provider its component is configured with.
class PerComponentModel final : public model::ChatModel {
 public:
  explicit PerComponentModel(const config::ModelConfig& config)
      : config_(config), openai_(config) {}

  Result<model::ChatResponse, model::CallError> Complete(const model::ChatRequest& request) override {
    return For(request.component).Complete(request);
  }
  std::string Label(model::Component component) const override {
    return For(component).Label(component);
  }

 private:
  model::ChatModel& For(model::Component component) const {
    bool offline = config_.For(component).provider == config::ModelProvider::kOffline;
    return offline ? static_cast<model::ChatModel&>(offline_)
                   : static_cast<model::ChatModel&>(openai_);
  }

  config::ModelConfig config_;
  mutable model::OpenAiChatModel openai_;
  mutable model::offline::OfflineModel offline_;
};

}  // namespace

std::unique_ptr<model::ChatModel> OpenChatModel(const config::Config& config) {
  return std::make_unique<PerComponentModel>(config.model);
}

}  // namespace diagd::wiring
