// The three tools opened from a configuration and driven through the real
// boundary over the bundled demo workspace.
#include "wiring/tool_set.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "core/clock.h"
#include "tools/tool_catalog.h"

namespace diagd::wiring {
namespace {

class ToolSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = config::LoadConfigFile(std::string(DIAGD_SOURCE_DIR) + "/examples/demo/diagd.toml", {});
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    config_ = std::move(*loaded);
    // Keep the index out of the source tree.
    cache_ = std::filesystem::temp_directory_path() /
             ("diagd-wiring-test-" + std::to_string(::getpid()));
    config_.tools.documents.cache_path = cache_;
  }
  void TearDown() override { std::filesystem::remove_all(cache_); }

  tools::ExecutedCall Execute(ToolSet& set, const std::string& id, tools::ToolRequest request,
                              tools::ToolBudget& budget) {
    auto executed = set.boundary->Execute(
        {"run-1", id, request, tools::ToolCatalog::ScopeOf(request)}, budget);
    EXPECT_TRUE(executed.has_value());
    return executed.value_or(tools::ExecutedCall{});
  }

  config::Config config_;
  std::filesystem::path cache_;
  SystemClock clock_;
};

class Unlimited final : public tools::ToolBudget {
 public:
  Status AdmitToolCall() override { return OkStatus(); }
  void ChargeToolBytes(std::size_t) override {}
};

TEST_F(ToolSetTest, OffersTheTopicsAndDatasourcesOfTheWorkspace) {
  auto set = OpenToolSet(config_, clock_);
  ASSERT_TRUE(set.has_value()) << set.error().message;
  const auto& definitions = *(*set)->catalog->Definitions();
  EXPECT_NE(definitions[1].parameters_schema.find(
                R"("enum":["gateway","inventory-service","order-service","payment-db","payment-service"])"),
            std::string::npos)
      << definitions[1].parameters_schema;
  EXPECT_NE(definitions[2].parameters_schema.find(R"("enum":["orders"])"), std::string::npos);
}

TEST_F(ToolSetTest, ALogTopicAddedWhileRunningIsOfferedAndQueriedWithoutARestart) {
  auto logs = cache_ / "logs";
  std::filesystem::create_directories(logs);
  std::filesystem::copy_file(config_.tools.logs.path / "gateway.log", logs / "gateway.log");
  config_.tools.logs.path = logs;
  ManualClock clock(config_.now.value_or(WallTime{}));
  auto set = OpenToolSet(config_, clock);
  ASSERT_TRUE(set.has_value()) << set.error().message;
  auto offered_at_start = (*set)->catalog->Definitions();

  std::filesystem::copy_file(config_.tools.logs.path / "gateway.log", logs / "billing.log");
  clock.Advance(kCatalogRefreshInterval);
  const auto& definitions = *(*set)->catalog->Definitions();
  EXPECT_NE(definitions[1].parameters_schema.find(R"("enum":["billing","gateway"])"),
            std::string::npos)
      << definitions[1].parameters_schema;
  EXPECT_EQ((*offered_at_start)[1].parameters_schema.find("billing"), std::string::npos);
  auto parsed = (*set)->catalog->ParseInput(tools::logs::kQueryLogs,
                                            {{"topic", "billing"}, {"query", "timeout"}});
  ASSERT_TRUE(parsed.has_value());
  Unlimited budget;
  auto executed = Execute(**set, "call-1", *parsed, budget);
  EXPECT_FALSE(executed.record.error_code.has_value());
}

TEST_F(ToolSetTest, RunsEachToolOverTheDemoWorkspace) {
  auto set = OpenToolSet(config_, clock_);
  ASSERT_TRUE(set.has_value()) << set.error().message;
  Unlimited budget;

  auto docs = Execute(**set, "c1", tools::DocumentsRequest{"连接池耗尽 慢查询"}, budget);
  ASSERT_EQ(tools::EvidenceStatusOf(docs.record.result), tools::EvidenceStatus::kEvidenceFound);

  auto logs = Execute(**set, "c2", tools::LogsRequest{"payment-db", "slow query", 60}, budget);
  ASSERT_EQ(tools::EvidenceStatusOf(logs.record.result), tools::EvidenceStatus::kEvidenceFound);
  const auto& events = std::get<tools::LogsResult>(logs.record.result).events;
  EXPECT_LE(events.front().timestamp, events.back().timestamp) << "oldest first";
  EXPECT_GE(events.front().timestamp, std::string("2026-11-29T09:30:00.000Z"))
      << "60 minutes back from the configured now";

  auto rows = Execute(**set, "c3",
                      tools::MysqlRequest{"orders",
                                          "SELECT service, version FROM deployments ORDER BY "
                                          "deployed_at DESC LIMIT 1",
                                          {}},
                      budget);
  ASSERT_EQ(tools::EvidenceStatusOf(rows.record.result), tools::EvidenceStatus::kEvidenceFound)
      << rows.record.error_message;
  const auto& row = std::get<tools::MysqlResult>(rows.record.result).rows.at(0);
  EXPECT_EQ(std::get<std::string>(row.at(0)), "payment-service");
  EXPECT_EQ(std::get<std::string>(row.at(1)), "v2.3.1");
  EXPECT_TRUE(std::filesystem::exists(cache_)) << "the index lives in the cache folder";
}

TEST_F(ToolSetTest, AMissingFolderIsAnErrorNamingTheKey) {
  config_.tools.logs.path = "/nonexistent/diagd/logs";
  auto set = OpenToolSet(config_, clock_);
  ASSERT_FALSE(set.has_value());
  EXPECT_EQ(set.error().message.rfind("tools.logs.path: ", 0), 0u) << set.error().message;
}

TEST_F(ToolSetTest, ARedisCanonicalStoreOpensAndWorksWhileRedisIsDown) {
  // Nothing listens on port 1: the store must open anyway (Redis is dialled
  // on first use) and keep the instance's own records in memory.
  config_.storage.canonical = "redis://:secret@127.0.0.1:1/0";
  auto set = OpenToolSet(config_, clock_);
  ASSERT_TRUE(set.has_value()) << set.error().message;
  EXPECT_EQ(dynamic_cast<tools::MemoryCanonicalStore*>((*set)->canonical_store.get()), nullptr);
  tools::CanonicalRecord record;
  record.run_id = "run-1";
  record.tool_call_id = "c1";
  ASSERT_TRUE((*set)->canonical_store->Put(record)) << "a Redis failure does not fail the put";
  auto got = (*set)->canonical_store->Get("run-1", "c1");
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->has_value());
}

TEST_F(ToolSetTest, ABadRedisUrlIsAnErrorNamingTheKey) {
  config_.storage.canonical = "redis://user@cache:6379/0";
  auto set = OpenToolSet(config_, clock_);
  ASSERT_FALSE(set.has_value());
  EXPECT_EQ(set.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(set.error().message.rfind("storage.canonical: ", 0), 0u) << set.error().message;
}

}  // namespace
}  // namespace diagd::wiring
