#include "wiring/chat_service.h"

#include <unistd.h>

#include "wiring/chat_model.h"
#include "wiring/run_store.h"

namespace diagd::wiring {
namespace {

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

// The configured names a question's subjects are found by; the topics
// found under tools.logs.path come from the catalog at each run.
release::SubjectVocabulary SubjectVocabularyOf(const config::Config& config) {
  release::SubjectVocabulary vocabulary;
  for (const auto& source : config.tools.datasources) vocabulary.datasources.push_back(source.name);
  for (const auto& topic : config.tools.logs.topics) {
    vocabulary.topics.push_back(topic.name);
    for (const auto& alias : topic.aliases) vocabulary.aliases.push_back({alias, topic.name});
  }
  return vocabulary;
}

}  // namespace

RunOwner CliRunOwner(const config::Config& config) {
  // The run's own time budget, plus room for release and storing.
  auto lease = std::chrono::seconds(config.harness.max_run_seconds) + std::chrono::minutes(5);
  return {"cli:" + HostName() + ":" + std::to_string(getpid()), lease};
}

RunOwner ServerRunOwner(const config::Config& config) {
  std::string id = config.server.instance_id;
  if (id.empty()) {
    std::string_view listen = config.server.listen;
    std::string_view port = listen.substr(listen.rfind(':') + 1);
    id = HostName() + ":" + std::string(port);
  }
  return {id, std::chrono::seconds(config.server.lease_seconds)};
}

app::ChatDeps ChatDepsFor(ChatService& service, model::ChatModel& model,
                          const config::Config& config, const Clock& clock) {
  const ToolSet& set = *service.tools;
  return {model,
          *set.catalog,
          *set.boundary,
          *set.canonical_store,
          *service.runs,
          *service.records,
          clock,
          config.language,
          app::RunLimitsFrom(config.harness),
          {},
          service.owner.instance_id,
          service.owner.lease,
          SubjectVocabularyOf(config)};
}

Result<std::unique_ptr<ChatService>> OpenChatService(const config::Config& config,
                                                     const Clock& clock) {
  return OpenChatService(config, clock, CliRunOwner(config));
}

Result<std::unique_ptr<ChatService>> OpenChatService(const config::Config& config,
                                                     const Clock& clock, RunOwner owner) {
  auto service = std::make_unique<ChatService>();
  auto tools = OpenToolSet(config, clock);
  if (!tools) return tools.error();
  service->tools = std::move(*tools);
  auto runs = OpenRunStore(config, clock);
  if (!runs) return runs.error();
  // The store's health is timed on real time, as the upkeep that reads it
  // (leases, the lost-run horizon) and the server log are: a configured fixed
  // `now` dates the runs' data, not the store's calls.
  service->runs =
      std::make_unique<app::ObservedRunStore>(std::move(*runs), SystemClock::Instance());
  service->records = std::make_unique<app::RunRecordWriter>(*service->runs);
  service->model = OpenChatModel(config);
  service->owner = std::move(owner);
  service->observation_retention =
      std::chrono::hours(24) * config.storage.observation_retention_days;
  service->language = config.language;
  service->chat = std::make_unique<app::ChatApplicationUseCase>(
      ChatDepsFor(*service, *service->model, config, clock));
  return service;
}

}  // namespace diagd::wiring
