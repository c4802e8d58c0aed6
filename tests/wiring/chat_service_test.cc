// One chat through the service the CLI and the server open: the offline
// provider (rule-based, no model) diagnoses the bundled demo over the real
// tools, and the run's numbered event stream is delivered, stored and
// replayable.
#include "wiring/chat_service.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <map>

namespace diagd::wiring {
namespace {

class EventWatcher final : public app::ChatObserver {
 public:
  explicit EventWatcher(app::RunStore& runs) : runs_(runs) {}
  void OnRunStarted(const std::string& run_id, const std::string&) override { run_id_ = run_id; }
  void OnToolProgress(const harness::ToolProgress&) override { ++typed_progress_; }
  void OnRunEvent(const app::RunEvent& event) override {
    events_.push_back(event);
    if (event.name == "result") {
      auto stored = runs_.GetRun(run_id_);
      stored_before_result_ = stored && stored->has_value() && (*stored)->status != "RUNNING";
    }
  }

  app::RunStore& runs_;
  std::string run_id_;
  int typed_progress_ = 0;
  std::vector<app::RunEvent> events_;
  bool stored_before_result_ = false;
};

class ChatServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded =
        config::LoadConfigFile(std::string(DIAGD_SOURCE_DIR) + "/examples/demo/diagd.toml", {});
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    config_ = std::move(*loaded);
    dir_ = std::filesystem::temp_directory_path() /
           ("diagd-chat-service-" + std::to_string(::getpid()));
    config_.tools.documents.cache_path = dir_ / "cache";
    config_.storage.runs = "sqlite:" + (dir_ / "runs.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  config::Config config_;
  std::filesystem::path dir_;
};

TEST_F(ChatServiceTest, StoreHealthIsTimedOnRealTimeWhenTheConfigFixesNow) {
  // A fixed `now` (recorded data) dates runs; an outage of the store is
  // timed on the clock the store upkeep compares it with.
  ManualClock fixed(std::chrono::sys_days(std::chrono::year(2020) / 1 / 1));
  auto service = OpenChatService(config_, fixed);
  ASSERT_TRUE(service.has_value()) << service.error().message;
  std::filesystem::remove(dir_ / "runs.db");
  WallTime before = std::chrono::system_clock::now();
  ASSERT_FALSE((*service)->runs->RenewLeases("instance-a", before));
  app::StoreHealth health = (*service)->runs->health();
  EXPECT_EQ(health.state, app::StoreHealth::State::kFailing);
  ASSERT_TRUE(health.failing_since.has_value());
  EXPECT_GE(*health.failing_since, before);
  EXPECT_LE(*health.failing_since, std::chrono::system_clock::now());
}

TEST_F(ChatServiceTest, TheRunStreamIsNumberedOrderedStoredAndShownAfterTheRunIsStored) {
  auto service = OpenChatService(config_, SystemClock::Instance());
  ASSERT_TRUE(service.has_value()) << service.error().message;
  EventWatcher watcher(*(*service)->runs);
  auto result = (*service)->chat->Handle({"订单服务为什么大量 500？", std::nullopt, std::nullopt},
                                         &watcher);
  ASSERT_TRUE(result.has_value()) << result.error().message;

  const auto& events = watcher.events_;
  ASSERT_GE(events.size(), 5u);
  for (std::size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].id, std::int64_t(i) + 1);
  EXPECT_EQ(events[0].name, "run");
  EXPECT_EQ(boost::json::parse(events[0].data).at("run_id"), result->run_id.c_str());
  EXPECT_EQ(events[1].name, "route");
  EXPECT_EQ(boost::json::parse(events[1].data).at("route"), "DIAGNOSIS");
  EXPECT_EQ(events[events.size() - 2].name, "result");
  EXPECT_EQ(events.back().name, "done");
  EXPECT_EQ(boost::json::parse(events[events.size() - 2].data),
            boost::json::parse(app::ChatResultJson(*result)));

  // Progress: each index STARTED, then exactly one outcome with that index.
  std::map<std::int64_t, std::vector<std::string>> by_index;
  int progress = 0;
  for (std::size_t i = 2; i + 2 < events.size(); ++i) {
    ASSERT_EQ(events[i].name, "progress");
    ++progress;
    auto data = boost::json::parse(events[i].data).as_object();
    by_index[data.at("index").as_int64()].emplace_back(data.at("status").as_string());
    EXPECT_TRUE(data.contains("tool") && data.contains("scope"));
  }
  EXPECT_GT(by_index.size(), 0u) << "the offline provider uses the tools";
  for (const auto& [index, statuses] : by_index) {
    ASSERT_EQ(statuses.size(), 2u) << index;
    EXPECT_EQ(statuses[0], "STARTED");
    EXPECT_NE(statuses[1], "STARTED");
  }
  EXPECT_EQ(watcher.typed_progress_, progress) << "typed callbacks still reach the watcher";
  EXPECT_TRUE(watcher.stored_before_result_);

  // The finished run's canonical records are freed, not kept for the TTL.
  auto* canonical =
      dynamic_cast<tools::MemoryCanonicalStore*>((*service)->tools->canonical_store.get());
  ASSERT_NE(canonical, nullptr);
  EXPECT_EQ(canonical->SizeForTest(), 0u);

  auto stored = (*service)->runs->RunEvents(result->run_id, 0);
  ASSERT_TRUE(stored.has_value());
  ASSERT_EQ(stored->size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ((*stored)[i].id, events[i].id);
    EXPECT_EQ((*stored)[i].name, events[i].name);
    EXPECT_EQ((*stored)[i].data, events[i].data);
  }
}

TEST_F(ChatServiceTest, AnUnusableRunStoreIsAClearErrorNamingTheKey) {
  config_.storage.runs = "postgresql://nobody@127.0.0.1:1/none";
  auto service = OpenChatService(config_, SystemClock::Instance());
  ASSERT_FALSE(service.has_value());
  EXPECT_NE(service.error().message.find("storage.runs"), std::string::npos);
}

}  // namespace
}  // namespace diagd::wiring
