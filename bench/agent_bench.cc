// A diagnosis run of fixed shape (docs/performance.md): 8 model turns, each calling
// query_logs (graded GAINED) with a fixed ~2 KB result from an in-process
// tool, then a final draft; an in-process scripted model with zero latency.
// 2,000 runs after 100 warm-up runs. Reports CPU time per step (9 model
// turns per run) and the memory one in-flight run holds at its peak.
// Orchestration only: prompt, history, interceptors, tracker, trace, store.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <memory>

#include "agent/diagnosis_agent.h"
#include "core/clock.h"
#include "tools/canonical_store.h"

namespace diagd {
namespace {

constexpr int kToolTurns = 8;

// ~2 KB of log events for every query.
class FixedLogsAdapter final : public tools::ToolAdapter {
 public:
  FixedLogsAdapter() {
    for (int i = 0; i < 7; ++i) {
      result_.events.push_back(
          {"2026-11-29T10:2" + std::to_string(i) + ":00.000Z", std::string("ERROR"),
           std::string("order-service"),
           "HikariPool-1 - Connection is not available, request timed out after 30000ms. "
           "orderId=202611290" + std::to_string(i) +
               " path=/api/v1/orders/submit upstream=payment-db:3306 active=50 idle=0 "
               "waiting=37 total=50 trace=7f3a9c2e"});
    }
  }

 private:
  Result<tools::AdapterOutput, tools::AdapterFailure> DoExecute(const tools::ToolRequest&, MonoTime,
                                                                const std::stop_token&) override {
    return tools::AdapterOutput{result_, "{}"};
  }

  tools::LogsResult result_;
};

// Plays the fixed script without allocating a queue: turn n of a run is
// derived from the number of tool messages in the request.
class FixedScriptModel final : public model::ChatModel {
 public:
  Result<model::ChatResponse, model::CallError> Complete(
      const model::ChatRequest& request) override {
    int tool_results = 0;
    for (const auto& message : request.messages) tool_results += message.role == model::Role::kTool;
    model::ChatResponse response;
    response.message.role = model::Role::kAssistant;
    response.usage = model::Usage{1000, 50, 1050};
    if (tool_results == kToolTurns) {
      if (sample_memory_) peak_bytes_ = mallinfo2().uordblks;
      response.message.content =
          R"({"conclusion":{"root_cause":"payment-db 连接池耗尽","confidence":"HIGH","evidence":)"
          R"([{"tool_call_id":"call_8","quote":"HikariPool-1 - Connection is not available"}]}})";
      return response;
    }
    std::string id = "call_" + std::to_string(tool_results + 1);
    std::string previous =
        tool_results == 0 ? "" : R"("previous_observation":{"tool_call_id":"call_)" +
                                     std::to_string(tool_results) +
                                     R"(","information_gain":"GAINED"},)";
    response.message.tool_calls.push_back(
        {id, "query_logs",
         "{" + previous + R"("input":{"topic":"order-service","query":"HikariPool )" +
             std::to_string(tool_results) + R"("}})"});
    return response;
  }
  std::string Label(model::Component) const override { return "fixed script"; }

  bool sample_memory_ = false;
  std::size_t peak_bytes_ = 0;
};

struct Bench {
  Bench() : store(std::chrono::hours(1), clock) {
    tools::CatalogOptions options;
    options.logs.topics = {"order-service"};
    catalog = std::make_unique<tools::ToolCatalog>(options);
    boundary = std::make_unique<tools::ToolBoundary>(
        std::map<tools::ToolName, tools::ToolAdapter*>{{tools::logs::kQueryLogs, &adapter}},
        store, clock, tools::BoundaryOptions{});
  }
  bool RunOnce(int i) {
    harness::BudgetLimits limits;
    limits.max_model_calls = 20;
    harness::RunContext run("run-" + std::to_string(i), {limits, {3, 2}}, clock);
    agent::DiagnosisAgentUseCase agent(
        {model, *catalog, *boundary, store, config::Language::kZh, {}});
    auto execution = agent.Execute(run, "订单服务从 10 点开始大量 500，为什么？");
    return execution.draft.has_value();
  }

  ManualClock clock;
  tools::MemoryCanonicalStore store;
  FixedLogsAdapter adapter;
  FixedScriptModel model;
  std::unique_ptr<tools::ToolCatalog> catalog;
  std::unique_ptr<tools::ToolBoundary> boundary;
};

void BM_DiagnosisRun(benchmark::State& state) {
  Bench bench;
  int i = 0;
  for (; i < 100; ++i) bench.RunOnce(i);  // warm-up
  for (auto _ : state) {
    if (!bench.RunOnce(i++)) state.SkipWithError("no draft");
  }
  state.counters["steps_per_run"] = kToolTurns + 1;
  // (steps per run x runs / seconds) inverted: seconds of CPU per step.
  state.counters["cpu_per_step"] = benchmark::Counter(
      kToolTurns + 1, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DiagnosisRun)->Iterations(2000)->Unit(benchmark::kMicrosecond);

// Heap held by one run at its peak (the final model turn: full history, 8
// canonical records, tracker, trace), measured as the growth of allocated
// bytes from before the run starts.
void BM_MemoryPerInFlightRun(benchmark::State& state) {
  Bench bench;
  for (int i = 0; i < 100; ++i) bench.RunOnce(i);
  std::size_t total = 0;
  int runs = 0;
  bench.model.sample_memory_ = true;
  for (auto _ : state) {
    std::size_t before = mallinfo2().uordblks;
    bench.RunOnce(1000 + runs);
    total += bench.model.peak_bytes_ - before;
    ++runs;
  }
  state.counters["bytes_per_run"] = static_cast<double>(total) / runs;
}
BENCHMARK(BM_MemoryPerInFlightRun)->Iterations(200)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace diagd

BENCHMARK_MAIN();
