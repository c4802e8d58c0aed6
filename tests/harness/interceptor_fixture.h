// A tool interceptor wired to real catalog, boundary, tracker, canonical
// store and trace, with scripted adapters behind the boundary.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/json.h"
#include "harness/tool_interceptor.h"
#include "tools/canonical_store.h"
#include "tools/testing/scripted_adapter.h"

namespace diagd::harness::testing {

inline tools::CatalogOptions DemoCatalogOptions() {
  tools::CatalogOptions options;
  options.logs.topics = {"gateway", "order-service", "payment-db"};
  options.logs.default_lookback_minutes = 60;
  options.logs.max_lookback_minutes = 1440;
  options.mysql.datasources = {"orders"};
  return options;
}

// Builds envelope arguments: {"previous_observation": {...}?, "input": input}.
inline std::string Args(const std::string& input_json, const std::string& previous_id = "",
                        const std::string& gain = "") {
  std::string args = "{";
  if (!previous_id.empty()) {
    args += R"("previous_observation":{"tool_call_id":")" + previous_id +
            R"(","information_gain":")" + gain + R"("},)";
  }
  return args + R"("input":)" + input_json + "}";
}

inline std::string DocsInput(const std::string& query) {
  return R"({"query":")" + query + R"("})";
}
inline std::string LogsInput(const std::string& topic, const std::string& query) {
  return R"({"topic":")" + topic + R"(","query":")" + query + R"("})";
}

class InterceptorTest : public ::testing::Test {
 protected:
  InterceptorTest()
      : store_(std::chrono::seconds(3600), clock_),
        catalog_(DemoCatalogOptions()),
        boundary_({{tools::documents::kSearchDocuments, &docs_},
                   {tools::logs::kQueryLogs, &logs_},
                   {tools::mysql::kQueryMysql, &mysql_}},
                  store_, clock_, tools::BoundaryOptions{}, [](std::chrono::milliseconds) {}),
        budget_(10),
        tracker_({3, 2}),
        trace_(clock_),
        interceptor_({"run-1", catalog_, boundary_, budget_, tracker_, trace_, {}}) {}

  // One model response with one tool call; returns its observation.
  std::string Call(const std::string& id, const std::string& tool, const std::string& args) {
    ToolCallRequest request{id, tool, args};
    TurnResult turn = interceptor_.HandleTurn(std::span(&request, 1));
    EXPECT_EQ(turn.responses.size(), 1u);
    if (turn.responses.empty()) return {};
    observations_.push_back(turn.responses[0].ObservationJson());
    return turn.responses[0].ObservationJson();
  }

  TurnResult Turn(const std::vector<ToolCallRequest>& calls) {
    TurnResult turn = interceptor_.HandleTurn(calls);
    for (const auto& response : turn.responses) observations_.push_back(response.ObservationJson());
    return turn;
  }

  static boost::json::object Obj(const std::string& observation) {
    auto parsed = json::Parse(observation);
    EXPECT_TRUE(parsed.has_value()) << observation;
    return parsed ? parsed->as_object() : boost::json::object{};
  }

  int ToolRuns() const { return docs_.calls() + logs_.calls() + mysql_.calls(); }
  std::string Trace() const { return RenderTrace(trace_.Events()); }

  ManualClock clock_;
  tools::MemoryCanonicalStore store_;
  tools::testing::ScriptedAdapter docs_, logs_, mysql_;
  tools::ToolCatalog catalog_;
  tools::ToolBoundary boundary_;
  tools::testing::CountingBudget budget_;
  ProgressTracker tracker_;
  InMemoryTrace trace_;
  ToolInterceptor interceptor_;
  std::vector<std::string> observations_;
};

}  // namespace diagd::harness::testing
