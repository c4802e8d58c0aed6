// The local backend over real third-party documentation (../shared/data):
// the Chinese manuals of Arthas, RocketMQ, Nacos and StabilityGuide, and the
// English Prometheus-operator and OpenShift alert runbooks. Some of these
// files are written as instructions to an AI agent; here they are data like
// any other text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/text.h"
#include "tools/documents/documents_test_support.h"
#include "tools/documents/local_documents_adapter.h"

namespace diagd::tools::documents {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::filesystem::path kData = DIAGD_SHARED_DATA_DIR;

class RealDocumentsTest : public ::testing::Test {
 protected:
  static void TearDownTestSuite() {
    delete zh_;
    delete en_;
    delete cache_;
    zh_ = en_ = nullptr;
    cache_ = nullptr;
  }
  void SetUp() override {
    if (!std::filesystem::is_directory(kData / "docs-zh") ||
        !std::filesystem::is_directory(kData / "docs-en")) {
      GTEST_SKIP() << kData.string() << ": ../shared/data not present";
    }
  }

  // Each tree is indexed once per test process, on first use (ctest runs
  // every test in a process of its own).
  static LocalDocumentsAdapter& Zh() { return Tree("docs-zh", zh_); }
  static LocalDocumentsAdapter& En() { return Tree("docs-en", en_); }

  static LocalDocumentsAdapter& Tree(const char* name, LocalDocumentsAdapter*& slot) {
    if (slot != nullptr) return *slot;
    if (cache_ == nullptr) cache_ = new testing::TempDir();
    LocalDocumentsOptions options;
    options.root = kData / name;
    options.cache_dir = cache_->path();
    auto adapter = LocalDocumentsAdapter::Open(options, SystemClock::Instance());
    EXPECT_TRUE(adapter.has_value()) << adapter.error().ToString();
    // The first build of the Chinese tree takes a second or two on 2 cores.
    auto built = (*adapter)->Refresh(SystemClock::Instance().Monotonic() + std::chrono::minutes(2));
    EXPECT_TRUE(built.has_value()) << built.error().ToString();
    slot = adapter->release();
    return *slot;
  }

  static std::vector<std::string> Sources(const DocumentsResult& result) {
    std::vector<std::string> sources;
    for (const auto& item : result.evidence) sources.push_back(item.source);
    return sources;
  }

  // Every excerpt is an exact substring of its file, within bounds.
  static void ExpectExactExcerpts(const char* tree, const DocumentsResult& result) {
    for (const auto& item : result.evidence) {
      std::string file = testing::ReadFile(kData / tree / item.source);
      EXPECT_NE(file.find(item.excerpt), std::string::npos) << item.source;
      EXPECT_LE(text::CodePointCount(item.excerpt), 600u);
      EXPECT_FALSE(item.excerpt.empty());
    }
  }

  static inline testing::TempDir* cache_ = nullptr;
  static inline LocalDocumentsAdapter* zh_ = nullptr;
  static inline LocalDocumentsAdapter* en_ = nullptr;
};

TEST_F(RealDocumentsTest, FindsMessagesInTheRocketMqManual) {
  auto result = testing::Search(Zh(), "消息");
  ASSERT_EQ(result.evidence.size(), 5u);
  for (const auto& source : Sources(result)) EXPECT_THAT(source, StartsWith("rocketmq/"));
  for (const auto& item : result.evidence) EXPECT_THAT(item.excerpt, HasSubstr("消息"));
  EXPECT_TRUE(result.truncated);
  ExpectExactExcerpts("docs-zh", result);
}

TEST_F(RealDocumentsTest, FindsTheBusiestThreadsInTheArthasManual) {
  auto result = testing::Search(Zh(), "最忙的线程");
  ASSERT_FALSE(result.evidence.empty());
  EXPECT_EQ(result.evidence[0].source, "arthas/site/docs/doc/thread.md");
  EXPECT_THAT(Sources(result), Contains("arthas/skills/cpu-high/SKILL.md"));
  ExpectExactExcerpts("docs-zh", result);
}

TEST_F(RealDocumentsTest, FindsCircuitBreakingAndRateLimitingInStabilityGuide) {
  auto breaking = testing::Search(Zh(), "熔断");
  ASSERT_FALSE(breaking.evidence.empty());
  EXPECT_EQ(breaking.evidence[0].source,
            "stabilityguide/docs/prevention/resilience/流控降级最佳实践.md");
  EXPECT_THAT(breaking.evidence[0].breadcrumb, HasSubstr("熔断"));

  auto limiting = testing::Search(Zh(), "限流");
  ASSERT_GE(limiting.evidence.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_THAT(limiting.evidence[i].source, StartsWith("stabilityguide/"));
    EXPECT_THAT(limiting.evidence[i].breadcrumb + limiting.evidence[i].excerpt, HasSubstr("限流"));
  }
  ExpectExactExcerpts("docs-zh", breaking);
  ExpectExactExcerpts("docs-zh", limiting);
}

TEST_F(RealDocumentsTest, AnswersAChineseQuestionWithTheMatchingPlaybook) {
  auto result = testing::Search(Zh(), "CPU 飙高怎么排查");
  ASSERT_FALSE(result.evidence.empty());
  EXPECT_EQ(result.evidence[0].source, "arthas/skills/cpu-high/SKILL.md");
  EXPECT_THAT(result.evidence[0].excerpt, HasSubstr("飙高"));

  auto oom = testing::Search(Zh(), "OutOfMemoryError");
  ASSERT_FALSE(oom.evidence.empty());
  EXPECT_THAT(oom.evidence[0].source, EndsWith("OutOfMemoryError常见原因及解决方法.md"));
}

TEST_F(RealDocumentsTest, FindsAlertRunbooksByName) {
  auto result = testing::Search(En(), "KubePodCrashLooping");
  ASSERT_GE(result.evidence.size(), 3u);
  // The runbook's own sections first (its title is the alert name); the
  // data set's PROVENANCE.md, which lists it, may follow.
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(result.evidence[i].source,
              "prometheus-operator-runbooks/content/runbooks/kubernetes/KubePodCrashLooping.md");
    EXPECT_EQ(result.evidence[i].title, "KubePodCrashLooping");
  }
  ExpectExactExcerpts("docs-en", result);
}

TEST_F(RealDocumentsTest, FindsEtcdRunbooksByWhatTheyAreAbout) {
  auto leader = testing::Search(En(), "etcd has no leader");
  ASSERT_FALSE(leader.evidence.empty());
  EXPECT_THAT(leader.evidence[0].source, EndsWith("etcdNoLeader.md"));

  auto fsync = testing::Search(En(), "FSYNC");
  ASSERT_FALSE(fsync.evidence.empty());
  EXPECT_THAT(fsync.evidence[0].source, EndsWith("etcdHighFsyncDurations.md"));
  EXPECT_THAT(text::AsciiLower(fsync.evidence[0].excerpt), HasSubstr("fsync"));

  auto etcd = testing::Search(En(), "etcd");
  ASSERT_EQ(etcd.evidence.size(), 5u);
  for (const auto& item : etcd.evidence) {
    EXPECT_THAT(item.source, AllOf(HasSubstr("etcd"), EndsWith(".md")));
    EXPECT_THAT(item.excerpt, HasSubstr("etcd"));
  }
  ExpectExactExcerpts("docs-en", leader);
  ExpectExactExcerpts("docs-en", fsync);
  ExpectExactExcerpts("docs-en", etcd);
}

TEST_F(RealDocumentsTest, FindsCpuThrottlingInEnglish) {
  auto result = testing::Search(En(), "cpu throttling");
  ASSERT_FALSE(result.evidence.empty());
  EXPECT_THAT(result.evidence[0].source, EndsWith("CPUThrottlingHigh.md"));
}

TEST_F(RealDocumentsTest, NeverWritesIntoTheDataFolders) {
  auto before = testing::Snapshot(kData / "docs-en");
  testing::TempDir cache;
  LocalDocumentsOptions options;
  options.root = kData / "docs-en";
  options.cache_dir = cache.path();
  auto adapter = LocalDocumentsAdapter::Open(options, SystemClock::Instance());
  ASSERT_TRUE(adapter.has_value());
  EXPECT_FALSE(testing::Search(**adapter, "etcd").evidence.empty());  // builds, then searches
  EXPECT_EQ(testing::Snapshot(kData / "docs-en"), before);
  EXPECT_THAT((*adapter)->index_directory().string(),
              StartsWith(std::filesystem::canonical(cache.path()).string()));
}

}  // namespace
}  // namespace diagd::tools::documents
