// What the OpenAI client tests share: a client pointed at a scripted model
// server, with a short timeout, no jitter, and a sleeper that records backoff
// instead of sleeping.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/openai_client.h"
#include "testing/scripted_model_server.h"

namespace diagd::model {

inline constexpr char kTestKey[] = "sk-test-5f3a9c0d2e7b41a8";

class OpenAiClientTest : public ::testing::Test {
 protected:
  // Every component on `server`, model "default-model", key `api_key`.
  config::ModelConfig ConfigFor(const std::string& base_url, const std::string& api_key = "") {
    config::ModelConfig config;
    config.defaults.base_url = base_url;
    config.defaults.api_key = api_key;
    config.defaults.name = "default-model";
    for (config::ModelComponent component : config::kAllModelComponents) {
      config.per_component[component] = config.defaults;
    }
    return config;
  }

  OpenAiClientOptions FastOptions() {
    OpenAiClientOptions options;
    options.timeout = std::chrono::milliseconds(300);
    options.jitter = [] { return 1.0; };  // the whole exponential step, every time
    options.sleep = [this](std::chrono::milliseconds delay) {
      std::lock_guard<std::mutex> lock(mu_);
      sleeps_.push_back(delay);
    };
    return options;
  }

  std::unique_ptr<OpenAiChatModel> Client(const std::string& api_key = "") {
    return std::make_unique<OpenAiChatModel>(ConfigFor(server_.BaseUrl(), api_key), FastOptions());
  }

  std::vector<std::chrono::milliseconds> Sleeps() {
    std::lock_guard<std::mutex> lock(mu_);
    return sleeps_;
  }

  static ChatRequest Ask(std::string question, Component component = Component::kDiagnosisAgent) {
    ChatRequest request;
    request.component = component;
    request.messages.push_back({Role::kSystem, "You diagnose incidents.", {}, ""});
    request.messages.push_back({Role::kUser, std::move(question), {}, ""});
    return request;
  }

  diagd::testing::ScriptedModelServer server_;

 private:
  std::mutex mu_;
  std::vector<std::chrono::milliseconds> sleeps_;
};

}  // namespace diagd::model
