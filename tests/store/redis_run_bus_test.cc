#include "store/redis_run_bus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "testing/eventually.h"
#include "testing/free_port.h"
#include "testing/redis_server.h"

namespace diagd::store {
namespace {

using diagd::testing::Eventually;

using namespace std::chrono_literals;
using ::testing::ElementsAre;

struct Received {
  std::string run_id;
  app::RunEvent event;
};

// What a listener was told, for the test thread to look at.
class Recorder {
 public:
  app::RunBus::Listener Listener() {
    return {
        [this](const std::string& run_id, const app::RunEvent& event) {
          std::lock_guard lock(mu_);
          events_.push_back({run_id, event});
        },
        [this](const std::string& run_id) {
          std::lock_guard lock(mu_);
          cancels_.push_back(run_id);
        },
        [this](bool up) {
          std::lock_guard lock(mu_);
          states_.push_back(up);
        },
    };
  }
  std::vector<Received> EventsOf(const std::string& run_id) {
    std::lock_guard lock(mu_);
    std::vector<Received> out;
    for (const Received& r : events_) {
      if (r.run_id == run_id) out.push_back(r);
    }
    return out;
  }
  std::vector<std::int64_t> IdsOf(const std::string& run_id) {
    std::vector<std::int64_t> ids;
    for (const Received& r : EventsOf(run_id)) ids.push_back(r.event.id);
    return ids;
  }
  std::size_t event_count() {
    std::lock_guard lock(mu_);
    return events_.size();
  }
  std::vector<std::string> cancels() {
    std::lock_guard lock(mu_);
    return cancels_;
  }
  std::vector<bool> states() {
    std::lock_guard lock(mu_);
    return states_;
  }

 private:
  std::mutex mu_;
  std::vector<Received> events_;
  std::vector<std::string> cancels_;
  std::vector<bool> states_;
};

RedisEndpoint Endpoint(const std::string& url) {
  auto endpoint = ParseRedisUrl(url);
  EXPECT_TRUE(endpoint) << endpoint.error().ToString();
  return endpoint ? *endpoint : RedisEndpoint{};
}

// Quick reconnection, so tests that stop Redis do not wait long.
RedisRunBusOptions Quick() {
  RedisRunBusOptions options;
  options.reconnect_backoff = 100ms;
  return options;
}

app::RunEvent Event(std::int64_t id, std::string name = "progress") {
  return {id, std::move(name), R"({"step":)" + std::to_string(id) + "}"};
}

class RedisRunBusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = testing::RedisServer::Start();
    if (!started && started.error().code == ErrorCode::kFailedPrecondition) {
      GTEST_SKIP() << started.error().message;
    }
    ASSERT_TRUE(started) << started.error().ToString();
    server_ = std::move(*started);
  }
  std::unique_ptr<RedisRunBus> Bus(Recorder& recorder) {
    auto bus = std::make_unique<RedisRunBus>(Endpoint(server_->Url()), Quick());
    bus->Start(recorder.Listener());
    return bus;
  }
  RedisReply Raw(const std::vector<std::string_view>& args) {
    RedisConnection raw(Endpoint(server_->Url()), {});
    auto reply = raw.Command(args);
    EXPECT_TRUE(reply) << reply.error().ToString();
    return reply ? *reply : RedisReply{};
  }

  std::unique_ptr<testing::RedisServer> server_;
};

TEST_F(RedisRunBusTest, TwoInstancesSeeEachOthersEventsInOrderAndCancels) {
  Recorder a_heard, b_heard;
  auto a = Bus(a_heard);
  auto b = Bus(b_heard);
  ASSERT_TRUE(Eventually([&] { return a->up() && b->up(); }));
  EXPECT_EQ(a->generation(), 1u);
  EXPECT_THAT(a_heard.states(), ElementsAre(true));

  std::vector<std::int64_t> expected;
  for (std::int64_t id = 1; id <= 300; ++id) {
    a->PublishEvent("run-a", Event(id));
    expected.push_back(id);
  }
  app::RunEvent hostile{1, "result", "{\"text\":\"引号 \\\" 换行 \\n \\u0000 \\r\\n*1\"}"};
  b->PublishEvent("run-b \"quoted\"", hostile);

  ASSERT_TRUE(Eventually([&] { return b_heard.IdsOf("run-a").size() == expected.size(); }))
      << b_heard.IdsOf("run-a").size();
  EXPECT_EQ(b_heard.IdsOf("run-a"), expected) << "in the order they were published";
  EXPECT_EQ(b_heard.EventsOf("run-a")[41].event.data, R"({"step":42})");
  EXPECT_EQ(b_heard.EventsOf("run-a")[41].event.name, "progress");
  ASSERT_TRUE(Eventually([&] { return a_heard.EventsOf("run-b \"quoted\"").size() == 1; }));
  app::RunEvent got = a_heard.EventsOf("run-b \"quoted\"")[0].event;
  EXPECT_EQ(got.id, 1);
  EXPECT_EQ(got.name, "result");
  EXPECT_EQ(got.data, hostile.data);
  EXPECT_EQ(a->stats().published, 300u);
  EXPECT_EQ(a->stats().dropped, 0u);

  ASSERT_TRUE(a->PublishCancel("run-b \"quoted\""));
  ASSERT_TRUE(Eventually([&] { return !b_heard.cancels().empty(); }));
  EXPECT_THAT(b_heard.cancels(), ElementsAre("run-b \"quoted\""));
  EXPECT_TRUE(Eventually([&] { return a_heard.cancels().size() == 1; }))
      << "an instance hears its own messages too";
}

TEST_F(RedisRunBusTest, TheStateFollowsRedisAndEachReconnectionIsANewGeneration) {
  Recorder heard;
  auto bus = Bus(heard);
  ASSERT_TRUE(Eventually([&] { return bus->up(); }));
  EXPECT_EQ(bus->generation(), 1u);

  server_->Stop();
  ASSERT_TRUE(Eventually([&] { return !bus->up(); }));
  EXPECT_TRUE(Eventually([&] { return heard.states().size() == 2; }));
  EXPECT_THAT(heard.states(), ElementsAre(true, false));
  EXPECT_FALSE(bus->PublishCancel("r1")) << "a cancel needs Redis";

  ASSERT_TRUE(server_->Restart());
  ASSERT_TRUE(Eventually([&] { return bus->up(); }));
  EXPECT_EQ(bus->generation(), 2u);
  EXPECT_TRUE(Eventually([&] { return heard.states().size() == 3; }));
  EXPECT_THAT(heard.states(), ElementsAre(true, false, true));
  EXPECT_TRUE(Eventually([&] { return bus->PublishCancel("r1").has_value(); }));
  EXPECT_TRUE(Eventually([&] { return heard.cancels().size() == 1; }));
}

TEST_F(RedisRunBusTest, ARedisThatFallsSilentIsNoticedByItsUnansweredPing) {
  Recorder heard;
  RedisRunBusOptions options = Quick();
  options.ping_interval = 200ms;
  options.timeouts.command = 500ms;
  RedisRunBus bus(Endpoint(server_->Url()), options);
  bus.Start(heard.Listener());
  ASSERT_TRUE(Eventually([&] { return bus.up(); }));
  ASSERT_EQ(kill(server_->pid(), SIGSTOP), 0);  // connections stay open; nothing answers
  bool noticed = Eventually([&] { return !bus.up(); });
  kill(server_->pid(), SIGCONT);
  EXPECT_TRUE(noticed);
  ASSERT_TRUE(Eventually([&] { return bus.up() && bus.generation() >= 2; }));
  EXPECT_EQ(heard.states().front(), true);
  EXPECT_EQ(heard.states().back(), true);
}

TEST_F(RedisRunBusTest, EventsPublishedWhileRedisIsDownAreLostWithoutBlockingThePublisher) {
  Recorder a_heard, b_heard;
  auto a = Bus(a_heard);
  auto b = Bus(b_heard);
  ASSERT_TRUE(Eventually([&] { return a->up() && b->up(); }));
  a->PublishEvent("run", Event(1));
  ASSERT_TRUE(Eventually([&] { return b_heard.IdsOf("run").size() == 1; }));

  server_->Stop();
  ASSERT_TRUE(Eventually([&] { return !b->up(); }));
  for (std::int64_t id = 2; id <= 1001; ++id) a->PublishEvent("run", Event(id));
  ASSERT_TRUE(Eventually([&] { return a->stats().dropped >= 1000; }))
      << "the publisher drops what it cannot send: " << a->stats().dropped;

  ASSERT_TRUE(server_->Restart());
  ASSERT_TRUE(Eventually([&] { return b->up() && b->generation() == 2; }));
  // The publisher dials again after its back-off: publish until one arrives.
  std::int64_t next = 1002;
  ASSERT_TRUE(Eventually([&] {
    a->PublishEvent("run", Event(next++));
    return b_heard.IdsOf("run").size() > 1;
  }));
  std::vector<std::int64_t> ids = b_heard.IdsOf("run");
  EXPECT_EQ(ids[0], 1);
  for (std::size_t i = 1; i < ids.size(); ++i) {
    EXPECT_GT(ids[i], 1001) << "nothing published while Redis was down arrives";
    EXPECT_GT(ids[i], ids[i - 1]) << "in order";
  }
}

TEST_F(RedisRunBusTest, NoMoreThanTheQueueBoundWaitsWhileThePublisherIsStuck) {
  RedisRunBusOptions options = Quick();
  options.max_queued = 10;
  options.timeouts.command = 10s;  // the stuck batch waits for Redis to answer again
  RedisRunBus bus(Endpoint(server_->Url()), options);
  ASSERT_EQ(kill(server_->pid(), SIGSTOP), 0);  // the publisher's first batch waits for a reply
  for (std::int64_t id = 1; id <= 100; ++id) bus.PublishEvent("run", Event(id));
  kill(server_->pid(), SIGCONT);
  ASSERT_TRUE(Eventually([&] {
    RedisRunBus::Stats stats = bus.stats();
    return stats.published + stats.dropped == 100;
  }));
  // One batch (taken from a queue of at most 10) was in flight and at most
  // 10 waited behind it; both went out once Redis answered, the other 80 or
  // more were refused at once.
  RedisRunBus::Stats stats = bus.stats();
  EXPECT_GE(stats.published, 1u);
  EXPECT_LE(stats.published, 20u);
  EXPECT_GE(stats.dropped, 80u);
}

TEST_F(RedisRunBusTest, AMalformedMessageIsIgnoredAndCounted) {
  Recorder heard;
  auto bus = Bus(heard);
  ASSERT_TRUE(Eventually([&] { return bus->up(); }));
  for (const char* payload : {
           "not json",
           "[1,2]",
           "{}",
           R"({"run_id":"r","id":"7","name":"progress","data":"{}"})",
           R"({"run_id":"r","id":0,"name":"progress","data":"{}"})",
           R"({"run_id":"","id":1,"name":"progress","data":"{}"})",
           R"({"run_id":"r","id":1,"name":"progress","data":{}})",
           R"({"run_id":"r","id":1,"name":"progress","data":"{}","extra":1})",
           "{\"run_id\":\"\xff\",\"id\":1,\"name\":\"progress\",\"data\":\"{}\"}",
       }) {
    EXPECT_GE(Raw({"PUBLISH", kRunEventsChannel, payload}).integer, 1) << payload;
  }
  Raw({"PUBLISH", kRunCancelChannel, "r"});
  Raw({"PUBLISH", kRunCancelChannel, R"({"run_id":7})"});
  // The bus's own form, written by hand: it is the contract between
  // instances, whatever builds them.
  Raw({"PUBLISH", kRunEventsChannel,
       R"({"run_id":"r","id":3,"name":"done","data":"{\"ok\":true}"})"});
  Raw({"PUBLISH", kRunCancelChannel, R"({"run_id":"r"})"});

  ASSERT_TRUE(Eventually([&] { return heard.cancels().size() == 1; }));
  EXPECT_EQ(heard.event_count(), 1u) << "only the well-formed event";
  std::vector<Received> events = heard.EventsOf("r");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.id, 3);
  EXPECT_EQ(events[0].event.name, "done");
  EXPECT_EQ(events[0].event.data, R"({"ok":true})");
  EXPECT_EQ(bus->stats().malformed, 11u);
  EXPECT_TRUE(bus->up()) << "a bad message does not end the subscription";
}

TEST_F(RedisRunBusTest, StopIsPromptAndFinal) {
  Recorder heard;
  auto bus = Bus(heard);
  ASSERT_TRUE(Eventually([&] { return bus->up(); }));
  auto start = std::chrono::steady_clock::now();
  bus->Stop();
  // Generous: a Stop that waited on a socket timeout would still pass; one
  // that hung would not.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_FALSE(bus->up());
  bus->PublishEvent("r", Event(1));
  EXPECT_EQ(bus->stats().dropped, 1u) << "a stopped bus drops what it is given";
  bus->Stop();  // again: nothing to do
}

TEST(RedisRunBus, OpensAndStopsWhileRedisIsUnreachable) {
  int closed = testing::FreeLoopbackPort();
  auto bus = OpenRedisRunBus("redis://127.0.0.1:" + std::to_string(closed));
  ASSERT_TRUE(bus) << "Redis being down at open is fine";
  Recorder heard;
  (*bus)->Start(heard.Listener());
  for (std::int64_t id = 1; id <= 100; ++id) (*bus)->PublishEvent("r", Event(id));
  auto* redis_bus = dynamic_cast<RedisRunBus*>(bus->get());
  ASSERT_NE(redis_bus, nullptr);
  EXPECT_TRUE(Eventually([&] { return redis_bus->stats().dropped == 100; }));
  EXPECT_FALSE((*bus)->up());
  EXPECT_EQ((*bus)->generation(), 0u);
  EXPECT_FALSE((*bus)->PublishCancel("r"));
  auto start = std::chrono::steady_clock::now();
  (*bus)->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_TRUE(heard.states().empty()) << "never up, so never down either";
}

TEST(RedisRunBus, ABadUrlIsTheOnlyErrorAtOpen) {
  auto bus = OpenRedisRunBus("redis://:hunter2@cache:0");
  ASSERT_FALSE(bus);
  EXPECT_EQ(bus.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(bus.error().message, ::testing::Not(::testing::HasSubstr("hunter2")));
}

}  // namespace
}  // namespace diagd::store
