// Search latency of the local documents backend, end to end through
// `LocalDocumentsAdapter::Execute` (refresh check, query terms, BM25 match,
// excerpts, raw summary), on two corpora:
//
// - real: ../shared/data/docs-zh + docs-en (copied into one temp tree), the
//   Chinese manuals and English runbooks the product is tested on;
// - generated: 100,000 sections (1,000 files of 100 sections) of mixed
//   Chinese and English text with Zipf-distributed words, built once under
//   /tmp/diagd-documents-bench-v1 and reused by later runs.
//
// Corpus generation and index builds happen before the measured loops and
// are printed on their own. Each benchmark reports the per-query p50 and p99
// (collected per call) as counters. Figures: docs/documents-search.md.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tools/documents/local_documents_adapter.h"

namespace diagd::tools::documents {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const fs::path kData = DIAGD_SHARED_DATA_DIR;
const fs::path kGeneratedHome = fs::temp_directory_path() / "diagd-documents-bench-v1";
constexpr int kGeneratedFiles = 1000;
constexpr int kSectionsPerFile = 100;

const std::vector<std::string> kRealQueries = {"消息堆积",
                                               "线程 死锁",
                                               "CPU 飙高怎么排查",
                                               "Full GC 频繁",
                                               "限流 熔断",
                                               "nacos 配置不生效",
                                               "OutOfMemoryError",
                                               "连接池 超时",
                                               "订单服务 500 连接池",
                                               "RocketMQ 消费者 重复消费",
                                               "arthas trace 方法耗时",
                                               "KubePodCrashLooping",
                                               "etcd has no leader",
                                               "etcd fsync slow disk",
                                               "apiserver latency",
                                               "node disk full",
                                               "pod keeps restarting OOMKilled",
                                               "prometheus target down",
                                               "alertmanager config reload failed",
                                               "dns resolution failures"};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::unique_ptr<LocalDocumentsAdapter> OpenAdapter(const fs::path& root, const fs::path& cache) {
  LocalDocumentsOptions options;
  options.root = root;
  options.cache_dir = cache;
  auto adapter = LocalDocumentsAdapter::Open(options, SystemClock::Instance());
  if (!adapter.has_value()) {
    std::fprintf(stderr, "cannot open %s: %s\n", root.c_str(), adapter.error().ToString().c_str());
    return nullptr;
  }
  return std::move(*adapter);
}

// Builds (or brings up to date) the index and says how long it took.
bool Build(LocalDocumentsAdapter& adapter, const char* name) {
  auto start = Clock::now();
  auto built = adapter.Refresh(SystemClock::Instance().Monotonic() + std::chrono::hours(1));
  if (!built) {
    std::fprintf(stderr, "%s: index build failed: %s\n", name, built.error().ToString().c_str());
    return false;
  }
  std::fprintf(stderr, "%s: index build or check: %.3f s\n", name, Seconds(Clock::now() - start));
  return true;
}

// Words drawn with Zipf-like frequencies (rank r has weight 1/r), as in text.
class Vocabulary {
 public:
  explicit Vocabulary(std::vector<std::string> words) : words_(std::move(words)) {
    std::vector<double> weights;
    for (std::size_t r = 1; r <= words_.size(); ++r)
      weights.push_back(1.0 / static_cast<double>(r));
    pick_ = std::discrete_distribution<std::size_t>(weights.begin(), weights.end());
  }
  const std::string& Draw(std::mt19937& rng) { return words_[pick_(rng)]; }
  const std::string& At(std::size_t rank) const { return words_[rank % words_.size()]; }

 private:
  std::vector<std::string> words_;
  std::discrete_distribution<std::size_t> pick_;
};

Vocabulary EnglishWords(std::mt19937& rng) {
  const std::string syllables[] = {"ka",  "to",  "ri",  "ne",  "so",  "lu",  "mi",
                                   "da",  "ve",  "po",  "qu",  "zen", "tor", "lex",
                                   "gra", "bin", "cel", "dor", "fy",  "mon"};
  std::uniform_int_distribution<int> syllable(0, 19);
  std::uniform_int_distribution<int> length(2, 4);
  std::vector<std::string> words;
  for (int i = 0; i < 20000; ++i) {
    std::string word;
    for (int k = length(rng); k > 0; --k) word += syllables[syllable(rng)];
    words.push_back(word);
  }
  return Vocabulary(std::move(words));
}

Vocabulary ChineseWords(std::mt19937& rng) {
  // Common characters of operations text; words of two to four of them.
  const std::u32string chars =
      U"服务订单连接池超时数据库线程内存消息队列配置中心网关延迟错误日志告警监控集群节点磁盘网络"
      U"请求响应调用链路容量限流熔断降级重试缓存索引事务锁死堆栈进程资源负载均衡发布回滚版本实例";
  std::uniform_int_distribution<std::size_t> pick(0, chars.size() - 1);
  std::uniform_int_distribution<int> length(2, 4);
  std::vector<std::string> words;
  for (int i = 0; i < 20000; ++i) {
    std::string word;
    for (int k = length(rng); k > 0; --k) {
      char32_t c = chars[pick(rng)];
      word += static_cast<char>(0xE0 | (c >> 12));
      word += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      word += static_cast<char>(0x80 | (c & 0x3F));
    }
    words.push_back(word);
  }
  return Vocabulary(std::move(words));
}

// 100,000 sections, about 60 words each, half the sections in Chinese.
void Generate(const fs::path& tree, std::mt19937& rng, Vocabulary& en, Vocabulary& zh) {
  std::uniform_int_distribution<int> words_per_section(30, 90);
  for (int f = 0; f < kGeneratedFiles; ++f) {
    fs::path path = tree / ("area" + std::to_string(f % 20)) / ("doc" + std::to_string(f) + ".md");
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << "# " << en.Draw(rng) << " " << zh.Draw(rng) << " runbook " << f << "\n\n";
    for (int s = 1; s < kSectionsPerFile; ++s) {
      bool chinese = (s % 2) == 0;
      Vocabulary& vocabulary = chinese ? zh : en;
      out << (s % 10 == 1 ? "## " : "### ") << vocabulary.Draw(rng) << " " << vocabulary.Draw(rng)
          << "\n\n";
      for (int w = words_per_section(rng); w > 0; --w) {
        out << vocabulary.Draw(rng)
            << (chinese ? (w % 12 == 0 ? "。" : "") : (w % 12 == 0 ? ". " : " "));
      }
      out << "\n\n";
    }
  }
}

std::vector<std::string> GeneratedQueries(std::mt19937& rng, Vocabulary& en, Vocabulary& zh) {
  // From frequent words (many matches) to rare ones (a handful).
  std::vector<std::string> queries;
  std::uniform_int_distribution<std::size_t> rank(0, 19999);
  for (int i = 0; i < 200; ++i) {
    switch (i % 4) {
      case 0:
        queries.push_back(zh.At(rank(rng)) + zh.At(rank(rng) / 100));
        break;
      case 1:
        queries.push_back(en.Draw(rng) + " " + en.At(rank(rng)));
        break;
      case 2:
        queries.push_back(zh.Draw(rng) + " " + en.Draw(rng) + " " + zh.At(rank(rng)));
        break;
      default:
        queries.push_back(en.At(rank(rng)) + " " + en.At(rank(rng)) + " " + en.At(rank(rng) / 10));
        break;
    }
  }
  return queries;
}

void RunQueries(benchmark::State& state, LocalDocumentsAdapter* adapter,
                const std::vector<std::string>* queries) {
  std::vector<double> ms;
  std::size_t next = static_cast<std::size_t>(state.thread_index()) * 7;
  for (auto _ : state) {
    const std::string& query = (*queries)[next++ % queries->size()];
    auto start = Clock::now();
    auto output = adapter->Execute(DocumentsRequest{query},
                                   SystemClock::Instance().Monotonic() + std::chrono::seconds(10));
    auto elapsed = Clock::now() - start;
    if (!output.has_value()) {
      state.SkipWithError("search failed");
      break;
    }
    state.SetIterationTime(Seconds(elapsed));
    ms.push_back(Seconds(elapsed) * 1000);
  }
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * ms.size()))];
  };
  state.counters["p50_ms"] = benchmark::Counter(at(0.50), benchmark::Counter::kAvgThreads);
  state.counters["p99_ms"] = benchmark::Counter(at(0.99), benchmark::Counter::kAvgThreads);
}

}  // namespace
}  // namespace diagd::tools::documents

int main(int argc, char** argv) {
  using namespace diagd::tools::documents;
  benchmark::Initialize(&argc, argv);
  std::error_code ignored;

  // Real corpus: both trees under one root, as one configured `path` would be.
  fs::path real_home =
      fs::temp_directory_path() / ("diagd-documents-bench-real-" + std::to_string(getpid()));
  std::unique_ptr<LocalDocumentsAdapter> real;
  if (fs::is_directory(kData / "docs-zh") && fs::is_directory(kData / "docs-en")) {
    std::error_code copy_error;
    fs::create_directories(real_home / "tree", copy_error);
    for (const char* tree : {"docs-zh", "docs-en"}) {
      fs::copy(kData / tree, real_home / "tree" / tree, fs::copy_options::recursive, copy_error);
    }
    if (!copy_error) real = OpenAdapter(real_home / "tree", real_home / "cache");
    if (real && !Build(*real, "real corpus (docs-zh + docs-en)")) real.reset();
  } else {
    std::fprintf(stderr, "real corpus skipped: %s/docs-zh and docs-en not present\n",
                 kData.c_str());
  }
  if (real) {
    benchmark::RegisterBenchmark("Search/real_corpus", RunQueries, real.get(), &kRealQueries)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(3);
    benchmark::RegisterBenchmark("Search/real_corpus/2_threads", RunQueries, real.get(),
                                 &kRealQueries)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(3)
        ->Threads(2);
  }

  // Generated corpus: deterministic (fixed seed), generated once.
  std::mt19937 rng(20261129);
  Vocabulary en = EnglishWords(rng);
  Vocabulary zh = ChineseWords(rng);
  fs::path tree = kGeneratedHome / "tree";
  if (!fs::exists(kGeneratedHome / "generated")) {
    fs::remove_all(kGeneratedHome, ignored);
    auto start = Clock::now();
    std::mt19937 text_rng(7);
    Generate(tree, text_rng, en, zh);
    std::ofstream(kGeneratedHome / "generated") << "ok\n";
    std::fprintf(stderr, "generated corpus: %d sections in %.2f s\n",
                 kGeneratedFiles * kSectionsPerFile, Seconds(Clock::now() - start));
  } else {
    std::fprintf(stderr, "generated corpus: reusing %s\n", kGeneratedHome.c_str());
  }
  auto generated = OpenAdapter(tree, kGeneratedHome / "cache");
  if (generated && !Build(*generated, "generated corpus (100,000 sections)")) generated.reset();
  if (generated) {
    // What a refresh costs when nothing changed (a scan of 1,000 stamps),
    // and when one file of 100 sections did.
    Build(*generated, "generated corpus, nothing changed");
    std::ofstream(tree / "area0" / "doc0.md", std::ios::app)
        << "\n## appended\n\nchanged at " << Clock::now().time_since_epoch().count() << "\n";
    Build(*generated, "generated corpus, one file changed");
  }
  std::vector<std::string> generated_queries = GeneratedQueries(rng, en, zh);
  if (generated) {
    benchmark::RegisterBenchmark("Search/generated_100k_sections", RunQueries, generated.get(),
                                 &generated_queries)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(3);
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  real.reset();
  fs::remove_all(real_home, ignored);
  return 0;
}
