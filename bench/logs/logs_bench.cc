// The local query_logs backend on a large topic: 2,000,000 events over 7
// days (about 12,000 an hour), generated once into the temp folder and
// reused by later runs. Reported in docs/log-query.md:
//   - BM_IndexBuild: the first-use index build of the whole file, and the
//     index's memory per event;
//   - BM_Query*: one query through the adapter (file check, index search,
//     read-back, matching, result), p50 and p99 over the iterations.
//     Target: p50 under 50 ms for a 60-minute lookback.
//   - BM_SearchMovingWindow: the index search alone over windows spread
//     across the week, so no window is served from a warm block.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/clock.h"
#include "tools/logs/local_logs_adapter.h"
#include "tools/logs/topic_index.h"

namespace diagd::tools::logs {
namespace {

namespace fs = std::filesystem;
using Millis = std::chrono::duration<double, std::milli>;

constexpr std::size_t kEvents = 2'000'000;
constexpr std::int64_t kWeekMillis = 7LL * 24 * 3600 * 1000;

WallTime BenchNow() { return *ParseRfc3339("2026-11-29T10:30:00Z"); }
UnixMillis BenchNowMillis() {
  return std::chrono::floor<std::chrono::milliseconds>(BenchNow().time_since_epoch()).count();
}

struct Template {
  const char* level;
  const char* service;
  const char* text;  // {n} is replaced by a number
  int weight;
};

// Roughly what an order system logs: mostly INFO, some WARN, a few ERROR,
// some of them about timeouts, in English and Chinese.
const Template kTemplates[] = {
    {"INFO", "gateway", "GET /api/v1/orders/{n} 200 37ms upstream=order-service", 30},
    {"INFO", "order-service", "order {n} created for user 88213 amount=129.00 CNY", 20},
    {"INFO", "inventory", "库存扣减成功 sku=SKU-{n} qty=1 warehouse=SH-02", 12},
    {"DEBUG", "user-service", "cache hit user:{n} ttl=300s", 10},
    {"INFO", "payment-db", "checkpoint complete: wrote {n} buffers (0.8%)", 8},
    {"WARN", "gateway", "upstream order-service slow response {n}ms path=/api/v1/orders", 6},
    {"WARN", "payment-db", "slow query {n}ms: SELECT * FROM payments WHERE order_id = ?", 4},
    {"WARN", "order-service", "retrying payment call attempt=2 after timeout order={n}", 2},
    {"ERROR", "gateway", "upstream timeout calling order-service after 3000ms request_id={n}", 2},
    {"ERROR", "order-service",
     "HikariPool-1 - Connection is not available, request timed out after 30000ms order={n}", 2},
    {"ERROR", "order-service", "调用 payment-db 连接超时 timeout=3000ms order={n}", 1},
    {"ERROR", "payment-db", "Too many connections (max_connections=500) client={n}", 1},
    {"ERROR", "inventory", "库存服务异常: NullPointerException at StockService.java:{n}", 1},
};

std::string Fill(const char* text, std::uint64_t n) {
  std::string out(text);
  auto at = out.find("{n}");
  if (at != std::string::npos) out.replace(at, 3, std::to_string(n));
  return out;
}

// The topic folder, written on first use (about 340 MB of `.jsonl`, the
// same events as a `.log` of the diagd layout).
const fs::path& BenchFolder() {
  static const fs::path folder = [] {
    fs::path dir = fs::temp_directory_path() / "diagd_logs_bench_v1";
    if (fs::exists(dir / "complete")) return dir;
    fs::create_directories(dir);
    std::ofstream jsonl(dir / "orders.jsonl", std::ios::binary | std::ios::trunc);
    std::ofstream log(dir / "orders.log", std::ios::binary | std::ios::trunc);
    std::vector<int> pick;
    for (std::size_t t = 0; t < std::size(kTemplates); ++t) {
      pick.insert(pick.end(), kTemplates[t].weight, static_cast<int>(t));
    }
    std::mt19937_64 rng(20261129);
    UnixMillis start = BenchNowMillis() - kWeekMillis;
    std::string jsonl_buffer, log_buffer;
    for (std::size_t i = 0; i < kEvents; ++i) {
      // Evenly spread, with up to half a second of jitter: files are nearly,
      // not strictly, in time order, as real ones are.
      UnixMillis t = start + static_cast<UnixMillis>(i * (kWeekMillis / kEvents)) +
                     static_cast<UnixMillis>(rng() % 1000) - 500;
      std::string stamp = FormatRfc3339Millis(WallTime(std::chrono::milliseconds(t)));
      const Template& tpl = kTemplates[pick[rng() % pick.size()]];
      std::string message = Fill(tpl.text, rng() % 100000);
      jsonl_buffer += R"({"timestamp":")" + stamp + R"(","level":")" + tpl.level +
                      R"(","service":")" + tpl.service + R"(","message":")" + message +
                      R"(","host":"node-)" + std::to_string(rng() % 16) + "\"}\n";
      log_buffer += stamp + " " + tpl.level + " [" + tpl.service + "] " + message + "\n";
      if (jsonl_buffer.size() > (8u << 20)) {
        jsonl << jsonl_buffer;
        log << log_buffer;
        jsonl_buffer.clear();
        log_buffer.clear();
      }
    }
    jsonl << jsonl_buffer;
    log << log_buffer;
    std::ofstream(dir / "complete") << kEvents << "\n";
    return dir;
  }();
  return folder;
}

const char* FileOf(TopicFormat format) {
  return format == TopicFormat::kJsonLines ? "orders.jsonl" : "orders.log";
}

void ReportPercentiles(benchmark::State& state, std::vector<double>& millis) {
  if (millis.empty()) return;
  std::sort(millis.begin(), millis.end());
  auto at = [&](double q) {
    return millis[std::min(millis.size() - 1, static_cast<std::size_t>(q * millis.size()))];
  };
  state.counters["p50_ms"] = at(0.50);
  state.counters["p99_ms"] = at(0.99);
  state.counters["max_ms"] = millis.back();
}

void BM_IndexBuild(benchmark::State& state, TopicFormat format) {
  fs::path file = BenchFolder() / FileOf(format);
  std::size_t events = 0, bytes = 0;
  for (auto _ : state) {
    TopicIndex index(file, format);
    auto refreshed = index.Refresh(SystemClock::Instance(),
                                   SystemClock::Instance().Monotonic() + std::chrono::minutes(10),
                                   BenchNowMillis());
    if (!refreshed) state.SkipWithError(refreshed.error().message.c_str());
    events = index.EventCount();
    bytes = index.MemoryBytes();
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["index_bytes_per_event"] =
      static_cast<double>(bytes) / std::max<std::size_t>(events, 1);
  state.counters["file_MB"] = static_cast<double>(fs::file_size(file)) / 1e6;
}
BENCHMARK_CAPTURE(BM_IndexBuild, jsonl, TopicFormat::kJsonLines)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3);
BENCHMARK_CAPTURE(BM_IndexBuild, log, TopicFormat::kPlainText)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3);

// One adapter per format, its index built before any timing.
LocalLogsAdapter& WarmAdapter(TopicFormat format) {
  static std::unique_ptr<LocalLogsAdapter> adapters[2];
  auto& adapter = adapters[format == TopicFormat::kJsonLines ? 0 : 1];
  if (!adapter) {
    fs::path dir =
        fs::temp_directory_path() /
        (format == TopicFormat::kJsonLines ? "diagd_logs_bench_jsonl" : "diagd_logs_bench_log");
    fs::create_directories(dir);
    fs::path link = dir / FileOf(format);
    if (!fs::exists(link)) fs::create_symlink(BenchFolder() / FileOf(format), link);
    LocalLogsOptions options;
    options.root = dir;
    options.now = BenchNow();
    adapter = std::move(*LocalLogsAdapter::Open(options, SystemClock::Instance()));
    (void)adapter->Execute(LogsRequest{"orders", "", 1},
                           SystemClock::Instance().Monotonic() + std::chrono::minutes(10));
  }
  return *adapter;
}

void BM_Query(benchmark::State& state, TopicFormat format, const std::string& query, int lookback) {
  LocalLogsAdapter& adapter = WarmAdapter(format);
  std::vector<double> millis;
  std::size_t returned = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    auto out = adapter.Execute(LogsRequest{"orders", query, lookback},
                               SystemClock::Instance().Monotonic() + std::chrono::seconds(10));
    millis.push_back(Millis(std::chrono::steady_clock::now() - start).count());
    if (!out) {
      state.SkipWithError(out.error().message.c_str());
      break;
    }
    returned = std::get<LogsResult>(out->result).events.size();
  }
  ReportPercentiles(state, millis);
  state.counters["returned"] = static_cast<double>(returned);
}

// The target case: errors about timeouts in the last hour.
BENCHMARK_CAPTURE(BM_Query, error_timeout_60m_jsonl, TopicFormat::kJsonLines, "level:ERROR timeout",
                  60)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200);
BENCHMARK_CAPTURE(BM_Query, error_timeout_60m_log, TopicFormat::kPlainText, "level:ERROR timeout",
                  60)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200);
// The worst case for a window: nothing matches, every event is read back.
BENCHMARK_CAPTURE(BM_Query, no_match_60m_jsonl, TopicFormat::kJsonLines, "\"no such phrase\"", 60)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200);
BENCHMARK_CAPTURE(BM_Query, no_match_60m_log, TopicFormat::kPlainText, "\"no such phrase\"", 60)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200);
// Chinese terms: a selective one, and one that matches nothing.
BENCHMARK_CAPTURE(BM_Query, error_chinese_60m_jsonl, TopicFormat::kJsonLines,
                  "level:ERROR 连接超时", 60)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200);
BENCHMARK_CAPTURE(BM_Query, no_match_chinese_60m_jsonl, TopicFormat::kJsonLines, "数据库主从切换",
                  60)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200);
// The first 6 and the newest 24 of the hour: the two walks stop after 31
// matches in all.
BENCHMARK_CAPTURE(BM_Query, everything_60m_jsonl, TopicFormat::kJsonLines, "", 60)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200);
// The maximum default lookback (1440 minutes), a selective and an empty-handed query.
BENCHMARK_CAPTURE(BM_Query, error_timeout_24h_jsonl, TopicFormat::kJsonLines, "level:ERROR timeout",
                  1440)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);
BENCHMARK_CAPTURE(BM_Query, no_match_24h_jsonl, TopicFormat::kJsonLines, "\"no such phrase\"", 1440)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);
BENCHMARK_CAPTURE(BM_Query, no_match_24h_log, TopicFormat::kPlainText, "\"no such phrase\"", 1440)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);

// The search alone, each iteration on another hour of the week.
void BM_SearchMovingWindow(benchmark::State& state, TopicFormat format) {
  TopicIndex index(BenchFolder() / FileOf(format), format);
  const Clock& clock = SystemClock::Instance();
  auto file = index.Refresh(clock, clock.Monotonic() + std::chrono::minutes(10), BenchNowMillis());
  if (!file) {
    state.SkipWithError(file.error().message.c_str());
    return;
  }
  LogQuery query = *ParseLogQuery("level:ERROR timeout");
  std::mt19937_64 rng(7);
  std::vector<double> millis;
  for (auto _ : state) {
    UnixMillis end = BenchNowMillis() - static_cast<UnixMillis>(rng() % (kWeekMillis - 3'600'000));
    SearchRequest request;
    request.query = &query;
    request.from_ms = end - 3'600'000;
    request.to_ms = end;
    request.reference_ms = BenchNowMillis();
    auto start = std::chrono::steady_clock::now();
    auto out = index.Search(request, *file, clock, clock.Monotonic() + std::chrono::seconds(10));
    millis.push_back(Millis(std::chrono::steady_clock::now() - start).count());
    if (!out) state.SkipWithError(out.error().message.c_str());
  }
  ReportPercentiles(state, millis);
}
BENCHMARK_CAPTURE(BM_SearchMovingWindow, jsonl, TopicFormat::kJsonLines)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200);
BENCHMARK_CAPTURE(BM_SearchMovingWindow, log, TopicFormat::kPlainText)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(200);

}  // namespace
}  // namespace diagd::tools::logs

BENCHMARK_MAIN();
