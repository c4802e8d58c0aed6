// Values that would break a store that spliced text into SQL or trusted its
// encoding: every value is a bound parameter and comes back byte for byte.
#include <gtest/gtest.h>

#include <string>

#include "core/clock.h"
#include "store/sqlite_run_store.h"
#include "store/store_backends.h"
#include "store/store_test_support.h"

namespace diagd::store {
namespace {

using testing::At;
using testing::RunningRun;

// Quotes, SQL, JSON and shell metacharacters, every control byte but NUL,
// Chinese, an emoji, a right-to-left mark and a lone combining accent.
std::string Hostile() {
  std::string s = R"(it's "quoted" \ back\slash ' OR '1'='1'; DROP TABLE diagnosis_run; -- )";
  s += R"({"json":[1,2]} $(rm -rf /) `x` %s %n )";
  for (int c = 1; c < 0x20; ++c) s.push_back(static_cast<char>(c));
  s += "\x7f 数据库连接池耗尽，订单服务超时 😀 \u200f \u0301 end";
  return s;
}

class HostileStringsTest : public ::testing::TestWithParam<testing::Backend> {
 protected:
  void SetUp() override {
    DIAGD_FRESH_STORE_URL(url, GetParam(), dir_.Url("runs.db"));
    auto opened = testing::OpenStore(url, clock_);
    ASSERT_TRUE(opened) << opened.error().ToString();
    store_ = std::move(*opened);
  }

  testing::TempDir dir_;
  ManualClock clock_{At(0)};
  std::unique_ptr<app::RunStore> store_;
};

TEST_P(HostileStringsTest, EveryRunColumnRoundTripsExactly) {
  std::string id = "run-" + Hostile();
  app::RunRecord run = RunningRun(id, At(0), "conv-" + Hostile());
  run.status = "SUCCEEDED";
  run.route = Hostile();
  run.internal_status = Hostile();
  run.release_outcome = Hostile();
  run.fallback_code = Hostile();
  run.stop_reason = Hostile();
  run.finished_at = At(1);
  run.result_json = Hostile();
  run.steps = {{1, 1, {Hostile(), "call-2"}}};
  harness::TraceEvent event;
  event.seq = 1;
  event.type = harness::TraceEventType::kToolCallCompleted;
  event.time = At(1);
  event.fields = {{"scope_summary", Hostile()}, {Hostile(), std::int64_t{3}}};
  run.trace = {event};
  ASSERT_TRUE(store_->CreateRun(RunningRun(id, At(0))));
  ASSERT_TRUE(store_->FinishRun(run));

  auto got = store_->GetRun(id);
  ASSERT_TRUE(got) << got.error().ToString();
  ASSERT_TRUE(got->has_value());
  const app::RunRecord& back = **got;
  EXPECT_EQ(back.run_id, id);
  EXPECT_EQ(back.conversation_id, run.conversation_id);
  EXPECT_EQ(back.route, Hostile());
  EXPECT_EQ(back.internal_status, Hostile());
  EXPECT_EQ(back.release_outcome, Hostile());
  EXPECT_EQ(back.fallback_code, Hostile());
  EXPECT_EQ(back.stop_reason, Hostile());
  EXPECT_EQ(back.result_json, Hostile());
  ASSERT_EQ(back.steps.size(), 1u);
  EXPECT_EQ(back.steps[0].tool_call_ids, run.steps[0].tool_call_ids);
  ASSERT_EQ(back.trace.size(), 1u);
  ASSERT_EQ(back.trace[0].fields.size(), 2u);
  EXPECT_EQ(back.trace[0].fields[0].value, harness::TraceValue(Hostile()));
  EXPECT_EQ(back.trace[0].fields[1].key, Hostile());

  // The DROP TABLE above was data, not SQL: the table still answers.
  auto runs = store_->ListRuns(5);
  ASSERT_TRUE(runs);
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].run_id, id);
}

TEST_P(HostileStringsTest, MegabyteResultJsonRoundTripsExactly) {
  std::string big = R"({"diagnosis":{"root_cause":")";
  while (big.size() < (1u << 20)) big += "连接池耗尽 \"quoted\" \\ ";
  big += R"("}})";
  app::RunRecord run = RunningRun("run-big", At(0));
  run.status = "SUCCEEDED";
  run.result_json = big;
  ASSERT_TRUE(store_->FinishRun(run));

  auto got = store_->GetRun("run-big");
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->result_json.size(), big.size());
  EXPECT_TRUE((*got)->result_json == big);
}

TEST_P(HostileStringsTest, ResultJsonAndTurnsKeepBytesThatAreNotUtf8) {
  // The store does not judge the text of these columns; it keeps it.
  std::string bytes;
  for (int c = 1; c < 256; ++c) bytes.push_back(static_cast<char>(c));
  app::RunRecord run = RunningRun("run-bytes", At(0));
  run.status = "FAILED";
  run.result_json = bytes;
  ASSERT_TRUE(store_->FinishRun(run));
  ASSERT_TRUE(store_->AppendTurn("conv-b", {"user", bytes, "run-bytes", At(0)}));

  auto got = store_->GetRun("run-bytes");
  ASSERT_TRUE(got && got->has_value());
  EXPECT_TRUE((*got)->result_json == bytes);
  auto turns = store_->RecentTurns("conv-b", 1);
  ASSERT_TRUE(turns);
  ASSERT_EQ(turns->size(), 1u);
  EXPECT_TRUE((*turns)[0].content == bytes);
}

TEST_P(HostileStringsTest, ConversationTurnsRoundTripExactly) {
  std::string conversation = "conv-" + Hostile();
  ASSERT_TRUE(store_->AppendTurn(conversation, {"user", Hostile(), Hostile(), At(1)}));
  ASSERT_TRUE(store_->AppendTurn(conversation, {"assistant", "答：" + Hostile(), "r", At(2)}));

  auto turns = store_->RecentTurns(conversation, 10);
  ASSERT_TRUE(turns) << turns.error().ToString();
  ASSERT_EQ(turns->size(), 2u);
  EXPECT_EQ((*turns)[0].content, Hostile());
  EXPECT_EQ((*turns)[0].run_id, Hostile());
  EXPECT_EQ((*turns)[1].content, "答：" + Hostile());
  auto none = store_->RecentTurns("conv-", 10);  // a prefix is another conversation
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST_P(HostileStringsTest, IllFormedUtf8InATraceIsRepairedNotRefused) {
  app::RunRecord run = RunningRun("run-1", At(0));
  harness::TraceEvent event;
  event.seq = 1;
  event.time = At(0);
  event.fields = {{"route", std::string("ok \xff\xfe end")}};
  run.trace = {event};
  run.steps = {{1, std::nullopt, {std::string("call-\xc3")}}};
  ASSERT_TRUE(store_->CreateRun(run));

  auto got = store_->GetRun("run-1");
  ASSERT_TRUE(got) << got.error().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->trace[0].fields[0].value,
            harness::TraceValue(std::string("ok \xEF\xBF\xBD\xEF\xBF\xBD end")));
  EXPECT_EQ((*got)->steps[0].tool_call_ids[0], "call-\xEF\xBF\xBD");
}

DIAGD_ON_BOTH_STORES(HostileStringsTest);

}  // namespace
}  // namespace diagd::store
