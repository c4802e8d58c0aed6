// The canonical store's behaviour on every implementation: memory, Redis,
// and memory in front of Redis (what storage.canonical = "redis://" opens);
// then what only Redis does (its keys and TTL, a damaged value, Redis going
// away and coming back) and what the fallback keeps doing while Redis is
// down.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "store/fallback_canonical_store.h"
#include "store/redis_canonical_store.h"
#include "testing/eventually.h"
#include "testing/free_port.h"
#include "testing/redis_server.h"

namespace diagd::store {
namespace {

using diagd::testing::Eventually;

using namespace std::chrono_literals;
using tools::CanonicalRecord;
using ::testing::HasSubstr;

// Run ids unique within the test program, whose Redis all tests share.
std::string UniqueRun(const std::string& name) {
  static std::atomic<int> next{0};
  return name + "-" + std::to_string(++next);
}

CanonicalRecord Record(const std::string& run, const std::string& call,
                       const std::string& query = "timeout") {
  CanonicalRecord record;
  record.run_id = run;
  record.tool_call_id = call;
  record.tool = tools::logs::kQueryLogs;
  record.request_json = R"({"topic":"gateway"})";
  tools::LogsResult logs;
  logs.tool_call_id = call;
  logs.topic = "gateway";
  logs.query = query;
  logs.events = {{"2026-01-01T00:00:00.000Z", "ERROR", "gw", "upstream timeout"}};
  logs.returned_count = 1;
  logs.evidence_status = tools::EvidenceStatus::kEvidenceFound;
  record.result = logs;
  return record;
}

std::string QueryOf(const CanonicalRecord& record) {
  return std::get<tools::LogsResult>(record.result).query;
}

enum class Backend { kMemory, kRedis, kFallback };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  switch (info.param) {
    case Backend::kMemory:
      return "Memory";
    case Backend::kRedis:
      return "Redis";
    case Backend::kFallback:
      return "MemoryOverRedis";
  }
  return "";
}

class CanonicalStoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() != Backend::kMemory) {
      DIAGD_SHARED_REDIS(server);
      url_ = server->Url();
    }
  }

  std::unique_ptr<tools::CanonicalInvocationStore> Open(std::chrono::seconds ttl) {
    switch (GetParam()) {
      case Backend::kMemory:
        return std::make_unique<tools::MemoryCanonicalStore>(ttl, clock_);
      case Backend::kRedis: {
        auto store = RedisCanonicalStore::Open(url_, ttl);
        EXPECT_TRUE(store) << store.error().ToString();
        return store ? std::move(*store) : nullptr;
      }
      case Backend::kFallback: {
        auto store = OpenRedisCanonicalStore(url_, ttl, clock_);
        EXPECT_TRUE(store) << store.error().ToString();
        return store ? std::move(*store) : nullptr;
      }
    }
    return nullptr;
  }

  // Lets `ttl` pass: the manual clock moves for memory; Redis expires on
  // its own clock, so the cases with Redis use a TTL of one second and wait
  // for it.
  std::chrono::seconds ShortTtl() const {
    return GetParam() == Backend::kMemory ? 10s : 1s;
  }
  bool PassTtlUntil(tools::CanonicalInvocationStore& store, const std::string& run,
                    const std::string& call) {
    auto gone = [&] {
      auto got = store.Get(run, call);
      return got && !got->has_value();
    };
    clock_.Advance(10s);  // past the memory store's TTL, whichever it is
    if (GetParam() == Backend::kMemory) return gone();
    return Eventually(gone);
  }

  ManualClock clock_;
  std::string url_;
};

TEST_P(CanonicalStoreTest, GivesBackWhatWasPutAndNothingForAnotherRun) {
  auto store = Open(3600s);
  ASSERT_NE(store, nullptr);
  std::string run = UniqueRun("put");
  ASSERT_TRUE(store->Put(Record(run, "c1")));
  auto got = store->Get(run, "c1");
  ASSERT_TRUE(got) << got.error().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->request_json, R"({"topic":"gateway"})");
  EXPECT_EQ(QueryOf(**got), "timeout");
  auto other_run = store->Get(UniqueRun("other"), "c1");
  ASSERT_TRUE(other_run);
  EXPECT_FALSE(other_run->has_value()) << "keys are per run";
  auto other_call = store->Get(run, "c2");
  ASSERT_TRUE(other_call);
  EXPECT_FALSE(other_call->has_value());
}

// Read shows what Get gives (on every store: in place in memory, a copy
// from Redis), and nullptr for a call never stored, another run's or one
// past its TTL.
TEST_P(CanonicalStoreTest, ReadShowsTheRecordGetGivesAndNullWhereGetFindsNone) {
  auto store = Open(ShortTtl());
  ASSERT_NE(store, nullptr);
  std::string run = UniqueRun("read");
  ASSERT_TRUE(store->Put(Record(run, "c1", "as read")));
  auto query_read = [&](const std::string& of_run, const std::string& call) {
    std::optional<std::string> query;
    int calls = 0;
    Status read = store->Read(of_run, call, [&](const tools::CanonicalRecord* record) {
      ++calls;
      if (record != nullptr) query = QueryOf(*record);
    });
    EXPECT_TRUE(read) << read.error().ToString();
    EXPECT_EQ(calls, 1) << "read once, found or not";
    return query;
  };
  EXPECT_EQ(query_read(run, "c1"), "as read");
  EXPECT_EQ(query_read(run, "c2"), std::nullopt);
  EXPECT_EQ(query_read(UniqueRun("other"), "c1"), std::nullopt);
  ASSERT_TRUE(PassTtlUntil(*store, run, "c1"));
  EXPECT_EQ(query_read(run, "c1"), std::nullopt);
}

TEST_P(CanonicalStoreTest, APutReplacesTheEarlierRecordOfTheCall) {
  auto store = Open(3600s);
  ASSERT_NE(store, nullptr);
  std::string run = UniqueRun("replace");
  ASSERT_TRUE(store->Put(Record(run, "c1", "first")));
  ASSERT_TRUE(store->Put(Record(run, "c1", "second")));
  auto got = store->Get(run, "c1");
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ(QueryOf(**got), "second");
}

TEST_P(CanonicalStoreTest, ExpiresRecordsAfterTheTtl) {
  auto store = Open(ShortTtl());
  ASSERT_NE(store, nullptr);
  std::string run = UniqueRun("ttl");
  ASSERT_TRUE(store->Put(Record(run, "c1")));
  auto got = store->Get(run, "c1");
  ASSERT_TRUE(got && got->has_value());
  EXPECT_TRUE(PassTtlUntil(*store, run, "c1"));
}

TEST_P(CanonicalStoreTest, AForgottenRunLosesItsRecordsAndNoOtherRunDoes) {
  auto store = Open(3600s);
  ASSERT_NE(store, nullptr);
  std::string base = UniqueRun("forget");
  std::string r1 = base + "-r1";
  std::string r10 = base + "-r10";  // starts the same as r1: another run
  std::string r2 = base + "-r2";
  for (const std::string& run : {r1, r10, r2}) {
    for (const char* call : {"c1", "c2"}) ASSERT_TRUE(store->Put(Record(run, call)));
  }
  store->ForgetRun(r1);
  for (const char* call : {"c1", "c2"}) {
    auto gone = store->Get(r1, call);
    ASSERT_TRUE(gone);
    EXPECT_FALSE(gone->has_value()) << call;
  }
  auto kept = store->Get(r10, "c1");
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->has_value()) << "a run id that starts the same is another run";
  kept = store->Get(r2, "c2");
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->has_value());
  store->ForgetRun(base + "-unknown");  // nothing to forget: no error, no effect
  kept = store->Get(r2, "c1");
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->has_value());
}

TEST_P(CanonicalStoreTest, KeepsHostileStringsAsTheyAre) {
  auto store = Open(3600s);
  ASSERT_NE(store, nullptr);
  std::string run = UniqueRun("hostile") + " 运行 \r\n*1\r\n$4\r\nPING";
  std::string call("c\0\xff:1", 5);
  CanonicalRecord record = Record(run, call, std::string("a\0b", 3));
  ASSERT_TRUE(store->Put(record));
  auto got = store->Get(run, call);
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->run_id, run);
  EXPECT_EQ((*got)->tool_call_id, call);
  EXPECT_EQ(QueryOf(**got), std::string("a\0b", 3));
}

TEST_P(CanonicalStoreTest, ConcurrentRunsPutAndGetTheirOwnRecords) {
  auto store = Open(3600s);
  ASSERT_NE(store, nullptr);
  std::string base = UniqueRun("threads");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      std::string run = base + "-" + std::to_string(t);
      for (int i = 0; i < 30; ++i) {
        std::string call = std::to_string(i).insert(0, 1, 'c');
        if (!store->Put(Record(run, call, run + call))) ++wrong;
        auto got = store->Get(run, call);
        if (!got || !got->has_value() || QueryOf(**got) != run + call) ++wrong;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Stores, CanonicalStoreTest,
                         ::testing::Values(Backend::kMemory, Backend::kRedis, Backend::kFallback),
                         BackendName);

// Raw access to the test's Redis, to look at keys and to damage values.
class RedisCanonicalStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DIAGD_SHARED_REDIS(server);
    server_ = server;
    auto endpoint = ParseRedisUrl(server->Url());
    ASSERT_TRUE(endpoint);
    raw_ = std::make_unique<RedisConnection>(*endpoint, RedisTimeouts{});
  }
  RedisReply Raw(const std::vector<std::string_view>& args) {
    auto reply = raw_->Command(args);
    EXPECT_TRUE(reply) << reply.error().ToString();
    return reply ? *reply : RedisReply{};
  }

  testing::RedisServer* server_ = nullptr;
  std::unique_ptr<RedisConnection> raw_;
};

TEST_F(RedisCanonicalStoreTest, KeepsARunInOneHashWhoseTtlEachPutRenews) {
  auto store = RedisCanonicalStore::Open(server_->Url(), 3600s);
  ASSERT_TRUE(store);
  std::string run = UniqueRun("hash");
  std::string key = std::string("diagd:canonical:").append(run);
  EXPECT_EQ(RedisCanonicalStore::KeyOf(run), key);
  ASSERT_TRUE((*store)->Put(Record(run, "c1")));
  ASSERT_TRUE((*store)->Put(Record(run, "c2")));
  RedisReply fields = Raw({"HKEYS", key});
  ASSERT_EQ(fields.elements.size(), 2u);
  RedisReply ttl = Raw({"TTL", key});
  EXPECT_GT(ttl.integer, 3500);
  EXPECT_LE(ttl.integer, 3600);

  Raw({"EXPIRE", key, "5"});
  ASSERT_TRUE((*store)->Put(Record(run, "c3")));
  EXPECT_GT(Raw({"TTL", key}).integer, 3500) << "a put renews the run's TTL";

  (*store)->ForgetRun(run);
  EXPECT_EQ(Raw({"EXISTS", key}).integer, 0) << "ForgetRun deletes the hash";
}

TEST_F(RedisCanonicalStoreTest, ADamagedValueIsAnErrorNotARecordNorACrash) {
  auto store = RedisCanonicalStore::Open(server_->Url(), 3600s);
  ASSERT_TRUE(store);
  std::string run = UniqueRun("damaged");
  std::string key = RedisCanonicalStore::KeyOf(run);
  Raw({"HSET", key, "c1", "not a record"});
  auto got = (*store)->Get(run, "c1");
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, ErrorCode::kInternal);

  // A whole record, filed under another call's id.
  ASSERT_TRUE((*store)->Put(Record(run, "c2")));
  RedisReply c2 = Raw({"HGET", key, "c2"});
  Raw({"HSET", key, "c3", c2.text});
  auto misfiled = (*store)->Get(run, "c3");
  ASSERT_FALSE(misfiled);
  EXPECT_THAT(misfiled.error().message, HasSubstr("another call"));

  Raw({"DEL", key});
  Raw({"SET", key, "a string, not a hash"});
  auto wrong_type = (*store)->Get(run, "c1");
  ASSERT_FALSE(wrong_type);
  auto put = (*store)->Put(Record(run, "c1"));
  ASSERT_FALSE(put) << "HSET on a string fails inside the MULTI";
  EXPECT_EQ(put.error().code, ErrorCode::kUnavailable);
  Raw({"DEL", key});
}

TEST(RedisCanonicalStore, AnUnreachableRedisIsAnUnavailableError) {
  int closed = testing::FreeLoopbackPort();
  auto store = RedisCanonicalStore::Open(
      "redis://:hunter2@127.0.0.1:" + std::to_string(closed) + "/0", 3600s);
  ASSERT_TRUE(store) << "opening dials nothing";
  auto put = (*store)->Put(Record("r", "c1"));
  ASSERT_FALSE(put);
  EXPECT_EQ(put.error().code, ErrorCode::kUnavailable);
  EXPECT_THAT(put.error().message, ::testing::Not(HasSubstr("hunter2")));
  auto got = (*store)->Get("r", "c1");
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, ErrorCode::kUnavailable);
  (*store)->ForgetRun("r");  // no error to give; must not hang or crash
}

TEST(RedisCanonicalStore, ABadUrlIsAnInvalidArgument) {
  auto store = RedisCanonicalStore::Open("redis://cache:99999", 3600s);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::kInvalidArgument);
  ManualClock clock;
  auto fallback = OpenRedisCanonicalStore("redis://", 3600s, clock);
  ASSERT_FALSE(fallback);
  EXPECT_THAT(fallback.error().message, HasSubstr("host"));
}

// A private server: these stop it.
class RedisGoesAwayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = testing::RedisServer::Start();
    if (!started && started.error().code == ErrorCode::kFailedPrecondition) {
      GTEST_SKIP() << started.error().message;
    }
    ASSERT_TRUE(started) << started.error().ToString();
    server_ = std::move(*started);
  }
  RedisPoolOptions Quick() const { return {.backoff = 100ms, .max_backoff = 200ms}; }

  std::unique_ptr<testing::RedisServer> server_;
  ManualClock clock_;
};

TEST_F(RedisGoesAwayTest, TheRedisStoreFailsWhileRedisIsDownAndWorksAgainAfter) {
  auto store = RedisCanonicalStore::Open(server_->Url(), 3600s, Quick());
  ASSERT_TRUE(store);
  ASSERT_TRUE((*store)->Put(Record("r", "c1")));
  server_->Stop();
  EXPECT_FALSE((*store)->Put(Record("r", "c2")));
  EXPECT_FALSE((*store)->Get("r", "c1"));
  ASSERT_TRUE(server_->Restart());
  EXPECT_TRUE(Eventually([&] { return (*store)->Put(Record("r", "c3")).has_value(); }));
  auto got = (*store)->Get("r", "c3");
  ASSERT_TRUE(got && got->has_value());
  auto lost = (*store)->Get("r", "c1");
  ASSERT_TRUE(lost);
  EXPECT_FALSE(lost->has_value()) << "the restarted Redis kept nothing";
}

TEST_F(RedisGoesAwayTest, TheFallbackKeepsARunGoingWhileRedisIsDown) {
  auto mine = OpenRedisCanonicalStore(server_->Url(), 3600s, clock_, Quick());
  auto theirs = OpenRedisCanonicalStore(server_->Url(), 3600s, clock_, Quick());
  ASSERT_TRUE(mine && theirs);
  ASSERT_TRUE((*mine)->Put(Record("run-a", "c1")));
  auto seen = (*theirs)->Get("run-a", "c1");
  ASSERT_TRUE(seen && seen->has_value()) << "another instance reads the run from Redis";

  server_->Stop();
  ASSERT_TRUE((*mine)->Put(Record("run-a", "c2"))) << "a Redis failure is counted, not returned";
  auto own = (*mine)->Get("run-a", "c2");
  ASSERT_TRUE(own && own->has_value()) << "the instance's own records are in memory";
  EXPECT_GE((*mine)->shared_failures(), 1u);
  auto unreadable = (*theirs)->Get("run-a", "c2");
  ASSERT_FALSE(unreadable) << "a record only Redis could give is an error while it is down";
  EXPECT_EQ(unreadable.error().code, ErrorCode::kUnavailable);
  bool shown = false;
  auto mark_shown = [&](const tools::CanonicalRecord*) { shown = true; };
  EXPECT_TRUE((*mine)->Read("run-a", "c2", mark_shown)) << "read from memory, Redis down";
  EXPECT_TRUE(shown);
  shown = false;
  Status unread = (*theirs)->Read("run-a", "c2", mark_shown);
  ASSERT_FALSE(unread) << "so is Read, and it shows nothing";
  EXPECT_EQ(unread.error().code, ErrorCode::kUnavailable);
  EXPECT_FALSE(shown);
  (*mine)->ForgetRun("run-a");
  auto forgotten = (*mine)->local().Get("run-a", "c1");
  ASSERT_TRUE(forgotten);
  EXPECT_FALSE(forgotten->has_value()) << "the local records go even when Redis is down";

  ASSERT_TRUE(server_->Restart());
  std::uint64_t failures = (*mine)->shared_failures();
  EXPECT_TRUE(Eventually([&] {
    failures = (*mine)->shared_failures();
    EXPECT_TRUE((*mine)->Put(Record("run-b", "c1")));
    return (*mine)->shared_failures() == failures;
  })) << "puts reach Redis again once it is back";
  // The other instance failed twice while Redis was down, so its pool backs
  // off before it dials again: its reads come back once that back-off passes.
  EXPECT_TRUE(Eventually([&] {
    auto again = (*theirs)->Get("run-b", "c1");
    return again && again->has_value();
  })) << "another instance reads Redis again once its back-off has passed";
}

}  // namespace
}  // namespace diagd::store
