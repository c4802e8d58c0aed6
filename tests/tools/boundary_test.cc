#include "tools/tool_boundary.h"

#include <gtest/gtest.h>

#include "tools/testing/scripted_adapter.h"
#include "tools/tool_catalog.h"

namespace diagd::tools {
namespace {

using testing::CountingBudget;
using testing::ScriptedAdapter;

class BoundaryTest : public ::testing::Test {
 protected:
  ToolBoundary Boundary(BoundaryOptions options = {}) {
    return ToolBoundary({{tools::logs::kQueryLogs, &logs_}}, store_, clock_, options,
                        [this](std::chrono::milliseconds d) {
                          slept_.push_back(d);
                          clock_.Advance(d);
                        });
  }
  ToolCall Call(const std::string& id) {
    LogsRequest request{"gateway", "timeout", 60};
    return {"run-1", id, request, ToolCatalog::ScopeOf(request)};
  }

  ManualClock clock_;
  MemoryCanonicalStore store_{std::chrono::seconds(60), clock_};
  ScriptedAdapter logs_;
  CountingBudget budget_{5};
  std::vector<std::chrono::milliseconds> slept_;
};

TEST_F(BoundaryTest, RunsStoresAndChargesASuccessfulCall) {
  auto executed = Boundary().Execute(Call("c1"), budget_);
  ASSERT_TRUE(executed);
  EXPECT_EQ(EvidenceStatusOf(executed->record.result), EvidenceStatus::kEvidenceFound);
  EXPECT_EQ(ToolCallIdOf(executed->record.result), "c1") << "the boundary stamps the id";
  EXPECT_EQ(budget_.admitted(), 1);
  EXPECT_EQ(budget_.bytes(), std::string(R"({"events":1})").size());
  auto stored = store_.Get("run-1", "c1");
  ASSERT_TRUE(stored && stored->has_value());
  EXPECT_EQ((*stored)->request_json, R"({"topic":"gateway","query":"timeout","lookback_minutes":60})");
}

TEST_F(BoundaryTest, RefusedBudgetRunsAndStoresNothing) {
  CountingBudget empty(0);
  auto executed = Boundary().Execute(Call("c1"), empty);
  ASSERT_FALSE(executed);
  EXPECT_EQ(executed.error().code, ErrorCode::kResourceExhausted);
  EXPECT_EQ(logs_.calls(), 0);
  EXPECT_FALSE(store_.Get("run-1", "c1")->has_value());
}

TEST_F(BoundaryTest, RetriesTechnicalFailuresWithBackoffUpToTheAttemptLimit) {
  logs_.PushFailure(ToolErrorCode::kToolUnavailable);
  BoundaryOptions options;
  options.max_attempts = 3;
  auto executed = Boundary(options).Execute(Call("c1"), budget_);
  ASSERT_TRUE(executed);
  EXPECT_EQ(executed->attempts, 2);
  EXPECT_EQ(EvidenceStatusOf(executed->record.result), EvidenceStatus::kEvidenceFound);
  EXPECT_EQ(slept_, std::vector<std::chrono::milliseconds>{std::chrono::milliseconds(100)});
  EXPECT_EQ(budget_.admitted(), 1) << "retries are one tool call";

  for (int i = 0; i < 3; ++i) logs_.PushFailure(ToolErrorCode::kToolUnavailable);
  auto failed = Boundary(options).Execute(Call("c2"), budget_);
  EXPECT_EQ(failed->attempts, 3);
  EXPECT_EQ(failed->record.error_code, ToolErrorCode::kToolUnavailable);
  EXPECT_EQ(EvidenceStatusOf(failed->record.result), EvidenceStatus::kError);
}

TEST_F(BoundaryTest, NeverRetriesTimeoutsOrRefusedQueries) {
  logs_.PushFailure(ToolErrorCode::kToolTimeout);
  auto timeout = Boundary().Execute(Call("c1"), budget_);
  EXPECT_EQ(timeout->attempts, 1);
  EXPECT_EQ(timeout->record.error_code, ToolErrorCode::kToolTimeout);
  logs_.PushFailure(ToolErrorCode::kQueryFailed, "syntax error");
  auto refused = Boundary().Execute(Call("c2"), budget_);
  EXPECT_EQ(refused->attempts, 1);
  EXPECT_EQ(refused->record.error_message, "syntax error");
  EXPECT_EQ(logs_.calls(), 2);
}

TEST_F(BoundaryTest, DoesNotRetryPastTheDeadline) {
  logs_.PushFailure(ToolErrorCode::kToolUnavailable);
  BoundaryOptions options;
  options.max_attempts = 5;
  options.timeouts[tools::logs::kQueryLogs] = std::chrono::milliseconds(50);
  auto executed = Boundary(options).Execute(Call("c1"), budget_);
  EXPECT_EQ(executed->attempts, 1) << "a 100 ms backoff does not fit in 50 ms";
  EXPECT_EQ(executed->record.error_code, ToolErrorCode::kToolUnavailable);
}

TEST_F(BoundaryTest, ToolWithoutAdapterIsUnavailable) {
  ToolBoundary boundary({}, store_, clock_, {});
  DocumentsRequest request{"x"};
  auto executed =
      boundary.Execute({"run-1", "c1", request, ToolCatalog::ScopeOf(request)}, budget_);
  ASSERT_TRUE(executed);
  EXPECT_EQ(executed->record.error_code, ToolErrorCode::kToolUnavailable);
}

TEST_F(BoundaryTest, CapsTheStoredRawResponse) {
  LogsResult result;
  result.events.push_back({"t", std::nullopt, std::nullopt, "m"});
  logs_.Push(AdapterOutput{result, std::string(1000, 'r')});
  BoundaryOptions options;
  options.max_raw_response_bytes = 100;
  auto executed = Boundary(options).Execute(Call("c1"), budget_);
  EXPECT_EQ(executed->record.raw_response.size(), 100u);
  EXPECT_TRUE(executed->record.raw_response_truncated);
  EXPECT_EQ(budget_.bytes(), 1000u) << "the budget is charged what the backend returned";
}

class FailingStore final : public CanonicalInvocationStore {
 public:
  Status Put(CanonicalRecord) override { return Error::Unavailable("redis down"); }
  Result<std::optional<CanonicalRecord>> Get(const std::string&, const std::string&) override {
    return Error::Unavailable("redis down");
  }
  void ForgetRun(const std::string&) override {}
};

TEST_F(BoundaryTest, AResultThatCannotBeStoredIsReportedAsUnavailable) {
  FailingStore store;
  ToolBoundary boundary({{tools::logs::kQueryLogs, &logs_}}, store, clock_, {});
  auto executed = boundary.Execute(Call("c1"), budget_);
  ASSERT_TRUE(executed);
  EXPECT_EQ(EvidenceStatusOf(executed->record.result), EvidenceStatus::kError);
  EXPECT_EQ(executed->record.error_code, ToolErrorCode::kToolUnavailable);
}

TEST(MemoryCanonicalStore, ExpiresRecordsAfterTheTtl) {
  ManualClock clock;
  MemoryCanonicalStore store(std::chrono::seconds(10), clock);
  CanonicalRecord record;
  record.run_id = "r1";
  record.tool_call_id = "c1";
  ASSERT_TRUE(store.Put(record));
  EXPECT_TRUE(store.Get("r1", "c1")->has_value());
  EXPECT_FALSE(store.Get("r2", "c1")->has_value()) << "keys are per run";
  clock.Advance(std::chrono::seconds(10));
  EXPECT_FALSE(store.Get("r1", "c1")->has_value());
  record.tool_call_id = "c2";
  ASSERT_TRUE(store.Put(record));
  EXPECT_EQ(store.SizeForTest(), 1u) << "expired records are dropped on later puts";
}

TEST(MemoryCanonicalStore, AForgottenRunLosesItsRecordsAndNoOtherRunDoes) {
  ManualClock clock;
  MemoryCanonicalStore store(std::chrono::seconds(10), clock);
  CanonicalRecord record;
  for (const char* run : {"r1", "r10", "r2"}) {
    for (const char* call : {"c1", "c2"}) {
      record.run_id = run;
      record.tool_call_id = call;
      ASSERT_TRUE(store.Put(record));
    }
  }
  ASSERT_TRUE(store.Put(record));  // r2/c2 again: replaced, still one record
  EXPECT_EQ(store.SizeForTest(), 6u);
  store.ForgetRun("r1");
  EXPECT_EQ(store.SizeForTest(), 4u);
  EXPECT_FALSE(store.Get("r1", "c1")->has_value());
  EXPECT_TRUE(store.Get("r10", "c1")->has_value()) << "a run id that starts the same is another run";
  EXPECT_TRUE(store.Get("r2", "c2")->has_value());
  store.ForgetRun("r-unknown");
  EXPECT_EQ(store.SizeForTest(), 4u);
  // The remaining records still expire, once each.
  clock.Advance(std::chrono::seconds(10));
  record.run_id = "r3";
  ASSERT_TRUE(store.Put(record));
  EXPECT_EQ(store.SizeForTest(), 1u);
}

}  // namespace
}  // namespace diagd::tools

namespace diagd::tools {
namespace {

TEST(ControlView, ReadsStatusCountsRelevanceAndScopeFromTheRecord) {
  CanonicalRecord record;
  DocumentsResult documents;
  documents.evidence.push_back({"d1", "a.md", "t", "t", "连接池耗尽"});
  documents.relevance_level = RelevanceLevel::kReference;
  record.result = documents;
  Canonicalize(record.result, ResultLimits{});
  record.scope = {"[\"search_documents\",\"q\"]", "q"};
  ControlView view = ControlViewOf(record);
  EXPECT_EQ(view.evidence_status, EvidenceStatus::kEvidenceFound);
  EXPECT_EQ(view.returned_count, 1u);
  EXPECT_FALSE(view.truncated);
  EXPECT_EQ(view.relevance_level, RelevanceLevel::kReference);
  EXPECT_EQ(view.scope->identity, "[\"search_documents\",\"q\"]");
}

}  // namespace
}  // namespace diagd::tools
