// One intercepted tool call end to end: envelope parse, grade of the
// previous result, tracker steps, input validation, scope, the tool boundary
// with an in-process adapter returning a fixed ~2 KB log result, canonical
// store put, trace events, and the whitelisted observation serialized.
// Budget: under 20 us per call on a 2-core machine (docs/performance.md).
#include <benchmark/benchmark.h>

#include <memory>

#include "core/clock.h"
#include "harness/tool_interceptor.h"
#include "model/chat_model.h"
#include "model/openai_wire.h"
#include "tools/canonical_store.h"
#include "tools/observation.h"
#include "tools/testing/scripted_adapter.h"
#include "tools/tool_result.h"

namespace diagd {
namespace {

// Answers every logs query with the same 8 events of ~250 bytes each.
class FixedLogsAdapter final : public tools::ToolAdapter {
 public:
  FixedLogsAdapter() {
    for (int i = 0; i < 8; ++i) {
      result_.events.push_back(
          {"2026-11-29T10:2" + std::to_string(i) + ":00.000Z", std::string("ERROR"),
           std::string("order-service"),
           "HikariPool-1 - Connection is not available, request timed out after 30000ms. "
           "orderId=202611290" +
               std::to_string(i) +
               " path=/api/v1/orders/submit upstream=payment-db:3306 "
               "active=50 idle=0 waiting=37 total=50 trace=7f3a9c2e"});
    }
  }

 private:
  Result<tools::AdapterOutput, tools::AdapterFailure> DoExecute(const tools::ToolRequest& request,
                                                                MonoTime,
                                                                const std::stop_token&) override {
    tools::LogsResult result = result_;
    const auto& q = std::get<tools::LogsRequest>(request);
    result.topic = q.topic;
    result.query = q.query;
    result.lookback_minutes = q.lookback_minutes;
    return tools::AdapterOutput{std::move(result), "{}"};
  }

  tools::LogsResult result_;
};

struct Run {
  explicit Run(const tools::ToolCatalog& catalog, const tools::ToolBoundary& boundary,
               const Clock& clock)
      : tracker({3, 2}),
        trace(clock),
        interceptor({"run-bench", catalog, boundary, budget, tracker, trace, {}}) {}
  tools::testing::CountingBudget budget{1 << 30};
  harness::ProgressTracker tracker;
  harness::InMemoryTrace trace;
  harness::ToolInterceptor interceptor;
};

void BM_InterceptedToolCall(benchmark::State& state) {
  ManualClock clock;
  tools::CatalogOptions options;
  options.logs.topics = {"order-service"};
  tools::ToolCatalog catalog(options);
  FixedLogsAdapter adapter;
  auto store = std::make_unique<tools::MemoryCanonicalStore>(std::chrono::seconds(3600), clock);
  auto boundary = std::make_unique<tools::ToolBoundary>(
      std::map<tools::ToolName, tools::ToolAdapter*>{{tools::logs::kQueryLogs, &adapter}},
      *store, clock, tools::BoundaryOptions{});
  auto run = std::make_unique<Run>(catalog, *boundary, clock);

  std::int64_t i = 0;
  std::size_t observation_bytes = 0;
  std::string previous;
  for (auto _ : state) {
    if (i % 1000 == 0 && i > 0) {
      // A fresh run (and store) every 1,000 calls keeps memory flat.
      state.PauseTiming();
      run.reset();
      boundary.reset();
      store = std::make_unique<tools::MemoryCanonicalStore>(std::chrono::seconds(3600), clock);
      boundary = std::make_unique<tools::ToolBoundary>(
          std::map<tools::ToolName, tools::ToolAdapter*>{{tools::logs::kQueryLogs, &adapter}},
          *store, clock, tools::BoundaryOptions{});
      run = std::make_unique<Run>(catalog, *boundary, clock);
      previous.clear();
      state.ResumeTiming();
    }
    std::string id = "call_" + std::to_string(i);
    std::string args = "{";
    if (!previous.empty()) {
      args += R"("previous_observation":{"tool_call_id":")" + previous +
              R"(","information_gain":"GAINED"},)";
    }
    args += R"("input":{"topic":"order-service","query":"level:ERROR HikariPool )" +
            std::to_string(i) + R"(","lookback_minutes":60}})";
    harness::ToolCallRequest call{id, "query_logs", std::move(args)};
    auto turn = run->interceptor.HandleTurn(std::span(&call, 1));
    if (i == 0) observation_bytes = turn.responses[0].ObservationJson().size();
    benchmark::DoNotOptimize(turn);
    previous = std::move(id);
    ++i;
  }
  state.counters["observation_bytes"] = static_cast<double>(observation_bytes);
}
BENCHMARK(BM_InterceptedToolCall)->Unit(benchmark::kMicrosecond);

// A 30-event log result's observation: written as text (what the
// interceptor does), and then in the form an OpenAI request body carries
// it (what the client does once per tool result, wire::kJsonString).
tools::ToolResult ThirtyEventResult() {
  tools::LogsResult logs;
  logs.tool_call_id = "call_3";
  logs.topic = "payment-service";
  logs.query = "HikariPool";
  logs.lookback_minutes = 60;
  for (int i = 0; i < 30; ++i) {
    logs.events.push_back(
        {"2026-11-29T10:2" + std::to_string(i % 10) + ":00.000Z", std::string("ERROR"),
         std::string("payment-service"),
         "payment-service-5b7f4c9d8-q7w2n [http-nio-8080-exec-13" + std::to_string(i) +
             "] c.z.hikari.pool.HikariPool - 支付失败 \"HikariPool-1 - Connection is not "
             "available, request timed out after 30000ms\" orderId=2026112907302330" +
             std::to_string(i) + " channel=wechat amount=145.90 trace=7f3a9c2e"});
  }
  tools::ToolResult result = logs;
  tools::Canonicalize(result, tools::ResultLimits{});
  return result;
}

void BM_ObservationWritten(benchmark::State& state) {
  tools::ToolResult result = ThirtyEventResult();
  for (auto _ : state) {
    model::SharedText text(tools::ResultObservation(result, {}));
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(BM_ObservationWritten)->Unit(benchmark::kMicrosecond);

void BM_ObservationWrittenForTheWire(benchmark::State& state) {
  tools::ToolResult result = ThirtyEventResult();
  for (auto _ : state) {
    model::SharedText text(tools::ResultObservation(result, {}));
    auto written = text.HeldAs(model::wire::kJsonString);
    benchmark::DoNotOptimize(written);
  }
}
BENCHMARK(BM_ObservationWrittenForTheWire)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace diagd

BENCHMARK_MAIN();
