#include "tools/documents/markdown_sections.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace diagd::tools::documents {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Breadcrumbs(const std::vector<MarkdownSection>& sections) {
  std::vector<std::string> out;
  for (const auto& section : sections) out.push_back(section.breadcrumb);
  return out;
}

TEST(MarkdownSections, SplitsAtHeadingsWithTheHeadingPathAsBreadcrumb) {
  std::string text =
      "# 订单服务 Runbook\n"
      "intro\n"
      "## 连接池\n"
      "pool text\n"
      "### 超时\n"
      "timeout text\n"
      "## Restart\n"
      "restart text\n";
  auto sections = SplitMarkdownSections(text, "ops/orders.md");
  EXPECT_THAT(Breadcrumbs(sections),
              ElementsAre("订单服务 Runbook", "订单服务 Runbook > 连接池",
                          "订单服务 Runbook > 连接池 > 超时", "订单服务 Runbook > Restart"));
  ASSERT_EQ(sections.size(), 4u);
  EXPECT_EQ(sections[0].title, "订单服务 Runbook");
  EXPECT_EQ(sections[3].title, "订单服务 Runbook");
  EXPECT_EQ(sections[2].heading, "超时");
  EXPECT_EQ(sections[1].body, "## 连接池\npool text\n");
  // The sections tile the file: every byte is in exactly one section.
  std::string joined;
  for (const auto& section : sections) {
    EXPECT_EQ(text.substr(section.offset, section.body.size()), section.body);
    joined += section.body;
  }
  EXPECT_EQ(joined, text);
}

TEST(MarkdownSections, IgnoresHashesInFencedCodeAndHtmlComments) {
  std::string text =
      "# Title\n"
      "```bash\n"
      "# not a heading\n"
      "~~~\n"
      "## still code\n"
      "```\n"
      "~~~~\n"
      "# code too\n"
      "~~~~\n"
      "<!--\n"
      "## commented out\n"
      "-->\n"
      "#hashtag is text\n"
      "## Real\n"
      "body\n";
  auto sections = SplitMarkdownSections(text, "a.md");
  EXPECT_THAT(Breadcrumbs(sections), ElementsAre("Title", "Title > Real"));
  EXPECT_NE(sections[0].body.find("# not a heading"), std::string::npos);
  EXPECT_NE(sections[0].body.find("## commented out"), std::string::npos);
}

TEST(MarkdownSections, KeepsCrlfBytesAndReadsHeadingsWithoutTheCarriageReturn) {
  std::string text = "# Title\r\nline one\r\n## Part \r\nline two\r\n";
  auto sections = SplitMarkdownSections(text, "crlf.md");
  EXPECT_THAT(Breadcrumbs(sections), ElementsAre("Title", "Title > Part"));
  EXPECT_EQ(sections[0].body, "# Title\r\nline one\r\n");
  EXPECT_EQ(sections[1].body, "## Part \r\nline two\r\n");
}

TEST(MarkdownSections, SkipsFrontMatterAndKeepsTextBeforeTheFirstHeading) {
  std::string text =
      "---\n"
      "title: not this\n"
      "# nor this\n"
      "---\n"
      "Preamble text.\n"
      "# Real Title\n"
      "body\n";
  auto sections = SplitMarkdownSections(text, "fm.md");
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].body, "Preamble text.\n");
  EXPECT_EQ(sections[0].breadcrumb, "Real Title");
  EXPECT_EQ(sections[0].offset, text.find("Preamble"));
  EXPECT_EQ(sections[1].breadcrumb, "Real Title");
  // Same breadcrumb, told apart by the ordinal (and hence the id).
  EXPECT_EQ(sections[0].ordinal, 0u);
  EXPECT_EQ(sections[1].ordinal, 1u);
  EXPECT_NE(SectionDocumentId("fm.md", sections[0].breadcrumb, sections[0].ordinal),
            SectionDocumentId("fm.md", sections[1].breadcrumb, sections[1].ordinal));
}

TEST(MarkdownSections, FallsBackToTheFileNameAsTitle) {
  auto sections =
      SplitMarkdownSections("## Meaning\nThe alert fires.\n", "runbooks/etcd/EtcdMembersDown.md");
  ASSERT_EQ(sections.size(), 1u);
  EXPECT_EQ(sections[0].title, "EtcdMembersDown");
  EXPECT_EQ(sections[0].breadcrumb, "EtcdMembersDown > Meaning");
}

TEST(MarkdownSections, ReadsSetextHeadingsButNotThematicBreaks) {
  std::string text =
      "Title\n"
      "=====\n"
      "text\n"
      "\n"
      "Part\n"
      "----\n"
      "more\n"
      "- item\n"
      "---\n"
      "after break\n";
  auto sections = SplitMarkdownSections(text, "s.md");
  EXPECT_THAT(Breadcrumbs(sections), ElementsAre("Title", "Title > Part"));
  EXPECT_EQ(sections[1].body, "Part\n----\nmore\n- item\n---\nafter break\n");
}

TEST(MarkdownSections, StripsClosingHashesAndMarksHeadingOnlySections) {
  auto sections =
      SplitMarkdownSections("\n\n# Title #\n\n## Empty ##\r\n\r\n## Full\ntext\n", "h.md");
  EXPECT_THAT(Breadcrumbs(sections), ElementsAre("Title", "Title > Empty", "Title > Full"));
  EXPECT_FALSE(sections[0].has_text);
  EXPECT_FALSE(sections[1].has_text);
  EXPECT_TRUE(sections[2].has_text);
}

TEST(MarkdownSections, NumbersRepeatedHeadingPathsInOrder) {
  auto sections =
      SplitMarkdownSections("# T\n## Example\none\n## Example\ntwo\n## Other\nx\n", "r.md");
  ASSERT_EQ(sections.size(), 4u);
  EXPECT_EQ(sections[1].ordinal, 0u);
  EXPECT_EQ(sections[2].ordinal, 1u);
  EXPECT_EQ(sections[3].ordinal, 0u);
}

TEST(MarkdownSections, DocumentIdsAreStableHex) {
  std::string id = SectionDocumentId("a/b.md", "T > X", 0);
  EXPECT_EQ(id.size(), 16u);
  EXPECT_EQ(id, SectionDocumentId("a/b.md", "T > X", 0));
  EXPECT_NE(id, SectionDocumentId("a/b.md", "T > X", 1));
  EXPECT_NE(id, SectionDocumentId("a/c.md", "T > X", 0));
  // FNV-1a 64 of the empty string: the same on every machine.
  EXPECT_EQ(StableHashHex(""), "cbf29ce484222325");
}

}  // namespace
}  // namespace diagd::tools::documents
