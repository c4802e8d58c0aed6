// The diagnosis agent against the in-process scripted model and scripted
// tool adapters behind the real catalog, boundary, interceptors and store.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "agent/diagnosis_agent.h"
#include "core/clock.h"
#include "model/testing/scripted_model.h"
#include "tools/canonical_store.h"
#include "tools/testing/scripted_adapter.h"

namespace diagd::agent::testing {

inline model::ToolCall ToolCall(std::string id, std::string name, std::string arguments) {
  return {std::move(id), std::move(name), std::move(arguments)};
}

inline std::string LogsArgs(const std::string& query, const std::string& previous = "",
                            const std::string& gain = "GAINED") {
  std::string prev = previous.empty() ? "" : R"("previous_observation":{"tool_call_id":")" +
                                                 previous + R"(","information_gain":")" + gain +
                                                 R"("},)";
  return "{" + prev + R"("input":{"topic":"order-service","query":")" + query + R"("}})";
}

inline std::string DocsArgs(const std::string& query, const std::string& previous = "",
                            const std::string& gain = "GAINED") {
  std::string prev = previous.empty() ? "" : R"("previous_observation":{"tool_call_id":")" +
                                                 previous + R"(","information_gain":")" + gain +
                                                 R"("},)";
  return "{" + prev + R"("input":{"query":")" + query + R"("}})";
}

class AgentTest : public ::testing::Test {
 protected:
  AgentTest() { Reset(harness::BudgetLimits{}); }

  void Reset(harness::BudgetLimits limits) {
    tools::CatalogOptions options;
    options.logs.topics = {"order-service", "gateway"};
    options.mysql.datasources = {"orders"};
    catalog_ = std::make_unique<tools::ToolCatalog>(options);
    boundary_ = std::make_unique<tools::ToolBoundary>(
        std::map<tools::ToolName, tools::ToolAdapter*>{
            {tools::documents::kSearchDocuments, &docs_},
            {tools::logs::kQueryLogs, &logs_},
            {tools::mysql::kQueryMysql, &mysql_}},
        store_, clock_, tools::BoundaryOptions{}, [](std::chrono::milliseconds) {});
    run_ = std::make_unique<harness::RunContext>("run-1", harness::RunLimits{limits, {3, 2}},
                                                 clock_);
  }

  DiagnosisAgentExecution Run(const std::string& question = "订单服务为什么报 500？") {
    DiagnosisAgentUseCase agent({model_, *catalog_, *boundary_, store_, config::Language::kZh, {}});
    return agent.Execute(*run_, question);
  }

  std::string Trace() const { return harness::RenderTrace(run_->trace().Events()); }

  ManualClock clock_;
  tools::MemoryCanonicalStore store_{std::chrono::seconds(3600), clock_};
  tools::testing::ScriptedAdapter docs_, logs_, mysql_;
  std::unique_ptr<tools::ToolCatalog> catalog_;
  std::unique_ptr<tools::ToolBoundary> boundary_;
  std::unique_ptr<harness::RunContext> run_;
  model::testing::ScriptedModel model_;
};

// A valid draft citing `id` with `quote`.
inline std::string DraftCiting(const std::string& id, const std::string& quote) {
  return R"({"conclusion":{"root_cause":"payment-db 连接池耗尽","confidence":"HIGH","evidence":[)"
         R"({"tool_call_id":")" +
         id + R"(","quote":")" + quote + R"("}]},"findings":[],"next_steps":["扩容连接池"]})";
}

}  // namespace diagd::agent::testing
