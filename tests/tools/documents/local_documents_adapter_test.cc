#include "tools/documents/local_documents_adapter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <stop_token>
#include <thread>

#include "core/text.h"
#include "testing/cancelling_clock.h"
#include "tools/documents/documents_test_support.h"

namespace diagd::tools::documents {
namespace {

using ::testing::HasSubstr;
using testing::InTenSeconds;
using testing::ReadFile;
using testing::Search;
using ::testing::StartsWith;
using testing::TempDir;
using testing::WriteFile;

const char kOrders[] =
    "---\n"
    "owner: orders-team\n"
    "---\n"
    "# 订单服务 Runbook\n"
    "\n"
    "订单服务的常见故障与处理。\n"
    "\n"
    "## 连接池耗尽\n"
    "\n"
    "现象：订单服务调用 payment-db 超时，日志出现 HikariPool-1 - Connection is not available。\n"
    "处理：扩大连接池或排查慢查询。\n"
    "\n"
    "## 重启\n"
    "\n"
    "先摘除流量，再逐台重启订单服务。\n";

const char kGateway[] =
    "# Gateway\r\n"
    "\r\n"
    "## Timeouts\r\n"
    "\r\n"
    "The gateway answers 504 when an upstream TIMEOUT is reached.\r\n"
    "Check the upstream latency first.\r\n"
    "\r\n"
    "```yaml\r\n"
    "# gateway.yaml\r\n"
    "upstream_timeout: 30s\r\n"
    "```\r\n";

const char kMisc[] =
    "# Misc\n"
    "\n"
    "Nothing related here. 这里只有一些杂项说明，偶尔提到连接池。\n";

class LocalDocumentsAdapterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(Root() / "ops" / "orders.md", kOrders);
    WriteFile(Root() / "ops" / "gateway.markdown", kGateway);
    WriteFile(Root() / "notes" / "misc.md", kMisc);
    WriteFile(Root() / "notes" / "ignored.txt", "超时 timeout");
  }

  std::filesystem::path Root() const { return tree_.path() / "docs"; }

  std::unique_ptr<LocalDocumentsAdapter> Open(
      std::chrono::milliseconds refresh_interval = std::chrono::milliseconds(0),
      const Clock& clock = SystemClock::Instance(), std::size_t max_excerpt_chars = 600) {
    LocalDocumentsOptions options;
    options.root = Root();
    options.cache_dir = cache_.path();
    options.max_excerpt_chars = max_excerpt_chars;
    options.refresh_interval = refresh_interval;
    auto adapter = LocalDocumentsAdapter::Open(options, clock);
    EXPECT_TRUE(adapter.has_value()) << adapter.error().ToString();
    return adapter.has_value() ? std::move(*adapter) : nullptr;
  }

  std::string FileText(const std::string& source) { return ReadFile(Root() / source); }

  TempDir tree_;
  TempDir cache_;
};

TEST_F(LocalDocumentsAdapterTest, FindsTwoCharacterChineseTerms) {
  auto adapter = Open();
  auto timeout = Search(*adapter, "超时");
  ASSERT_EQ(timeout.evidence.size(), 1u);
  EXPECT_EQ(timeout.evidence[0].source, "ops/orders.md");
  EXPECT_EQ(timeout.evidence[0].title, "订单服务 Runbook");
  EXPECT_EQ(timeout.evidence[0].breadcrumb, "订单服务 Runbook > 连接池耗尽");
  EXPECT_THAT(timeout.evidence[0].excerpt, HasSubstr("超时"));

  auto orders = Search(*adapter, "订单");
  ASSERT_FALSE(orders.evidence.empty());
  for (const auto& item : orders.evidence) EXPECT_EQ(item.source, "ops/orders.md");
}

TEST_F(LocalDocumentsAdapterTest, FindsEnglishWhateverTheCase) {
  auto adapter = Open();
  for (const char* query : {"timeout", "TIMEOUTS", "Timeout"}) {
    auto result = Search(*adapter, query);
    ASSERT_FALSE(result.evidence.empty()) << query;
    EXPECT_EQ(result.evidence[0].source, "ops/gateway.markdown") << query;
    EXPECT_EQ(result.evidence[0].breadcrumb, "Gateway > Timeouts");
  }
  auto pool = Search(*adapter, "hikaripool");
  ASSERT_EQ(pool.evidence.size(), 1u);
  EXPECT_EQ(pool.evidence[0].source, "ops/orders.md");
}

TEST_F(LocalDocumentsAdapterTest, RanksTheBestSectionFirst) {
  auto adapter = Open();
  // 连接池 is a heading and body term in orders.md, a passing mention in misc.md.
  auto result = Search(*adapter, "连接池");
  ASSERT_EQ(result.evidence.size(), 2u);
  EXPECT_EQ(result.evidence[0].breadcrumb, "订单服务 Runbook > 连接池耗尽");
  EXPECT_EQ(result.evidence[1].source, "notes/misc.md");
  // More query terms held ranks higher than one.
  auto both = Search(*adapter, "gateway upstream latency");
  ASSERT_FALSE(both.evidence.empty());
  EXPECT_EQ(both.evidence[0].breadcrumb, "Gateway > Timeouts");
}

TEST_F(LocalDocumentsAdapterTest, ExcerptIsAnExactSubstringAroundTheTerm) {
  auto adapter = Open(std::chrono::milliseconds(0), SystemClock::Instance(), 24);
  for (const char* query : {"慢查询", "latency", "Connection"}) {
    auto result = Search(*adapter, query);
    ASSERT_FALSE(result.evidence.empty()) << query;
    const auto& item = result.evidence[0];
    EXPECT_NE(FileText(item.source).find(item.excerpt), std::string::npos) << item.excerpt;
    EXPECT_LE(text::CodePointCount(item.excerpt), 24u);
    EXPECT_THAT(text::AsciiLower(item.excerpt), HasSubstr(text::AsciiLower(query)));
  }
}

TEST_F(LocalDocumentsAdapterTest, CutsCrlfTextAsIsWithoutNormalizing) {
  auto adapter = Open();
  auto result = Search(*adapter, "latency");
  ASSERT_FALSE(result.evidence.empty());
  EXPECT_THAT(result.evidence[0].excerpt, HasSubstr("reached.\r\nCheck the upstream latency"));
  EXPECT_NE(FileText(result.evidence[0].source).find(result.evidence[0].excerpt),
            std::string::npos);
}

TEST_F(LocalDocumentsAdapterTest, DocumentIdsSurviveReindexingAndUnrelatedChanges) {
  auto adapter = Open();
  auto before = Search(*adapter, "重启 连接池");
  ASSERT_EQ(before.evidence.size(), 3u);

  WriteFile(Root() / "notes" / "misc.md", std::string(kMisc) + "\n## 新增\n无关的新内容。\n");
  auto after_change = Search(*adapter, "重启 连接池");
  ASSERT_EQ(after_change.evidence.size(), 3u);

  adapter.reset();
  std::filesystem::remove_all(cache_.path());
  auto rebuilt = Open();
  auto after_rebuild = Search(*rebuilt, "重启 连接池");
  ASSERT_EQ(after_rebuild.evidence.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(after_change.evidence[i].document_id, before.evidence[i].document_id);
    EXPECT_EQ(after_rebuild.evidence[i].document_id, before.evidence[i].document_id);
  }
}

TEST_F(LocalDocumentsAdapterTest, ReindexesAChangedFile) {
  auto adapter = Open();
  ASSERT_EQ(Search(*adapter, "504").evidence.size(), 1u);
  WriteFile(Root() / "ops" / "gateway.markdown",
            "# Gateway\n\n## Circuit breaking\n\nThe gateway opens the circuit breaker, 熔断。\n");
  auto fresh = Search(*adapter, "熔断");
  ASSERT_EQ(fresh.evidence.size(), 1u);
  EXPECT_EQ(fresh.evidence[0].breadcrumb, "Gateway > Circuit breaking");
  EXPECT_TRUE(Search(*adapter, "504").evidence.empty());
}

TEST_F(LocalDocumentsAdapterTest, ForgetsADeletedFile) {
  auto adapter = Open();
  ASSERT_FALSE(Search(*adapter, "gateway").evidence.empty());
  std::filesystem::remove(Root() / "ops" / "gateway.markdown");
  EXPECT_TRUE(Search(*adapter, "gateway").evidence.empty());
  EXPECT_FALSE(Search(*adapter, "超时").evidence.empty());
}

TEST_F(LocalDocumentsAdapterTest, KeepsTheIndexUnderTheCacheFolderAndNeverWritesTheTree) {
  auto before = testing::Snapshot(Root());
  auto adapter = Open();
  Search(*adapter, "超时");
  WriteFile(Root() / "notes" / "misc.md", "# Misc\nchanged\n");
  before = testing::Snapshot(Root());
  Search(*adapter, "changed");
  EXPECT_EQ(testing::Snapshot(Root()), before);
  auto directory = adapter->index_directory();
  EXPECT_THAT(directory.string(), StartsWith(std::filesystem::canonical(cache_.path()).string()));
  EXPECT_FALSE(std::filesystem::is_empty(directory));
}

TEST_F(LocalDocumentsAdapterTest, NoMatchGivesEmptyEvidenceThatCanonicalizesToNoEvidence) {
  auto adapter = Open();
  auto output =
      adapter->Execute(DocumentsRequest{"kafka 消费积压"}, InTenSeconds(SystemClock::Instance()));
  ASSERT_TRUE(output.has_value());
  auto& result = std::get<DocumentsResult>(output->result);
  EXPECT_TRUE(result.evidence.empty());
  EXPECT_EQ(result.query, "kafka 消费积压");
  Canonicalize(output->result, ResultLimits{});
  EXPECT_EQ(EvidenceStatusOf(output->result), EvidenceStatus::kNoEvidence);
}

TEST_F(LocalDocumentsAdapterTest, AnswersToolTimeoutOnceTheDeadlineHasPassed) {
  auto adapter = Open();
  auto& clock = SystemClock::Instance();
  auto output =
      adapter->Execute(DocumentsRequest{"超时"}, clock.Monotonic() - std::chrono::seconds(1));
  ASSERT_FALSE(output.has_value());
  EXPECT_EQ(output.error().code, ToolErrorCode::kToolTimeout);
  // The next call with time left still works.
  EXPECT_FALSE(Search(*adapter, "超时").evidence.empty());
}

TEST_F(LocalDocumentsAdapterTest, ResumesABuildThatTheDeadlineCutShort) {
  for (int i = 0; i < 400; ++i) {
    std::string text = "# File " + std::to_string(i) + "\n";
    for (int k = 0; k < 20; ++k)
      text += "## Part " + std::to_string(k) + "\n数据库 连接 超时 重试\n";
    WriteFile(Root() / "bulk" / ("f" + std::to_string(1000 + i) + ".md"), text);
  }
  WriteFile(Root() / "bulk" / "zzz.md", "# Last\n\nlastfileterm\n");
  auto adapter = Open();
  auto& clock = SystemClock::Instance();
  auto cut = adapter->Execute(DocumentsRequest{"lastfileterm"},
                              clock.Monotonic() + std::chrono::milliseconds(20));
  ASSERT_FALSE(cut.has_value());
  EXPECT_EQ(cut.error().code, ToolErrorCode::kToolTimeout);
  // The next search with time left finishes the build and finds the last file.
  auto done = Search(*adapter, "lastfileterm");
  ASSERT_EQ(done.evidence.size(), 1u);
  EXPECT_EQ(done.evidence[0].source, "bulk/zzz.md");
}

TEST_F(LocalDocumentsAdapterTest, ACancelStopsTheBuildBetweenFilesAndTheNextSearchResumesIt) {
  for (int i = 0; i < 50; ++i) {
    WriteFile(Root() / "bulk" / ("f" + std::to_string(1000 + i) + ".md"),
              "# File " + std::to_string(i) + "\n\n数据库 连接 超时 重试\n");
  }
  WriteFile(Root() / "bulk" / "zzz.md", "# Last\n\nlastfileterm\n");
  std::stop_source cancel;
  // The build reads the clock before each file: the cancel lands among them.
  diagd::testing::CancellingClock clock(cancel, 10);
  auto adapter = Open(std::chrono::milliseconds(0), clock);
  auto cut = adapter->Execute(DocumentsRequest{"lastfileterm"}, MonoTime{} + std::chrono::hours(1),
                              cancel.get_token());
  ASSERT_FALSE(cut.has_value());
  EXPECT_EQ(cut.error().code, ToolErrorCode::kToolUnavailable);
  auto done = Search(*adapter, "lastfileterm");
  ASSERT_EQ(done.evidence.size(), 1u);
  EXPECT_EQ(done.evidence[0].source, "bulk/zzz.md");
}

TEST_F(LocalDocumentsAdapterTest, ChecksTheTreeAtMostOncePerInterval) {
  ManualClock clock;
  auto adapter = Open(std::chrono::seconds(2), clock);
  ASSERT_EQ(Search(*adapter, "504", clock).evidence.size(), 1u);
  WriteFile(Root() / "ops" / "gateway.markdown", "# Gateway\n\nNow about 熔断 only.\n");
  EXPECT_EQ(Search(*adapter, "504", clock).evidence.size(), 1u);  // not checked yet
  clock.Advance(std::chrono::seconds(3));
  EXPECT_TRUE(Search(*adapter, "504", clock).evidence.empty());
  EXPECT_EQ(Search(*adapter, "熔断", clock).evidence.size(), 1u);
}

TEST_F(LocalDocumentsAdapterTest, MarksTruncatedWhenMoreSectionsMatchThanAreReturned) {
  std::string many = "# Many\n";
  for (int i = 0; i < 8; ++i)
    many += "## Part " + std::to_string(i) + "\n数据库 超时 " + std::to_string(i) + "\n";
  WriteFile(Root() / "many.md", many);
  auto adapter = Open();
  auto result = Search(*adapter, "数据库");
  EXPECT_EQ(result.evidence.size(), 5u);
  EXPECT_TRUE(result.truncated);
  EXPECT_FALSE(Search(*adapter, "504").truncated);
}

TEST_F(LocalDocumentsAdapterTest, SkipsHiddenFoldersOtherFilesAndLinksOutOfTheTree) {
  WriteFile(Root() / ".git" / "notes.md", "# Hidden\nsecretterm\n");
  WriteFile(tree_.path() / "outside" / "out.md", "# Outside\noutsideterm\n");
  std::filesystem::create_directory_symlink(tree_.path() / "outside", Root() / "linked-dir");
  std::filesystem::create_symlink(tree_.path() / "outside" / "out.md", Root() / "linked.md");
  std::filesystem::create_symlink(Root() / "ops" / "orders.md", Root() / "alias.md");
  auto adapter = Open();
  EXPECT_TRUE(Search(*adapter, "secretterm").evidence.empty());
  EXPECT_TRUE(Search(*adapter, "outsideterm").evidence.empty());
  for (const auto& item : Search(*adapter, "超时 timeout").evidence) {
    EXPECT_NE(item.source, "notes/ignored.txt");
  }
  // A link to a file inside the tree is read under the link's own name.
  auto alias = Search(*adapter, "hikaripool");
  ASSERT_EQ(alias.evidence.size(), 2u);
}

TEST_F(LocalDocumentsAdapterTest, RawResponseListsHitsWithoutText) {
  auto adapter = Open();
  auto output = adapter->Execute(DocumentsRequest{"超时"}, InTenSeconds(SystemClock::Instance()));
  ASSERT_TRUE(output.has_value());
  const auto& result = std::get<DocumentsResult>(output->result);
  EXPECT_THAT(output->raw_response, HasSubstr(result.evidence[0].document_id));
  EXPECT_THAT(output->raw_response, HasSubstr("\"rank\":1"));
  EXPECT_THAT(output->raw_response, ::testing::Not(HasSubstr("HikariPool")));
}

TEST_F(LocalDocumentsAdapterTest, RefusesAMissingRootOrACacheInsideTheTree) {
  LocalDocumentsOptions options;
  options.root = tree_.path() / "nope";
  options.cache_dir = cache_.path();
  auto missing = LocalDocumentsAdapter::Open(options, SystemClock::Instance());
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(missing.error().message, HasSubstr("nope"));

  options.root = Root();
  options.cache_dir = Root() / ".cache";
  auto inside = LocalDocumentsAdapter::Open(options, SystemClock::Instance());
  ASSERT_FALSE(inside.has_value());
  EXPECT_EQ(inside.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(LocalDocumentsAdapterTest, ServesConcurrentSearchesWhileFilesChange) {
  auto adapter = Open();
  std::atomic<int> failures{0};
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    for (int i = 0; i < 20; ++i) {
      WriteFile(Root() / "notes" / "misc.md", "# Misc\n第 " + std::to_string(i) + " 版 连接池\n");
    }
    writing = false;
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      for (int i = 0; i < 30 || writing; ++i) {
        auto output = adapter->Execute(DocumentsRequest{"连接池 超时"},
                                       InTenSeconds(SystemClock::Instance()));
        if (!output.has_value()) {
          ADD_FAILURE() << "error " << ToolErrorCodeString(output.error().code);
          ++failures;
        } else if (std::get<DocumentsResult>(output->result).evidence.empty()) {
          ADD_FAILURE() << "nothing found";
          ++failures;
        }
      }
    });
  }
  writer.join();
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace diagd::tools::documents
